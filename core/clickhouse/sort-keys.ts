/**
 * A sort key declared as data: an SQL expression over a table's columns with its type and direction.
 * Lists whose sort the request chooses (api/queries/sorted-page.ts, the venue market lists of
 * schemas/venues/) declare each sort as a list of keys, ties broken by a unique key last.
 */

export interface SortColumn {
  /** An SQL expression over the table's columns (fixed text; it may use the request's bound parameters). */
  expr: string;
  type: 'Float64' | 'Int64' | 'UInt64' | 'String';
  dir: 'asc' | 'desc';
}

/** A key sorted descending. */
export const descKey = (expr: string, type: SortColumn['type']): SortColumn => ({ expr, type, dir: 'desc' });

/**
 * The keys of a nullable column in `dir`, rows without a value last in either direction: (is null,
 * `value`), where `value` is the column made non-null (e.g. `ifNull(price, 0)`).
 */
export function nullsLastKeys(
  column: string,
  value: string,
  type: SortColumn['type'],
  dir: SortColumn['dir'],
): SortColumn[] {
  return [
    { expr: `toUInt64(isNull(${column}))`, type: 'UInt64', dir: 'asc' },
    { expr: value, type, dir },
  ];
}

/** The keys of a nullable DateTime64 column by its Unix ms, missing times last either way. */
export const nullableTimeKeys = (column: string, dir: SortColumn['dir']): SortColumn[] =>
  nullsLastKeys(column, `ifNull(toUnixTimestamp64Milli(${column}), 0)`, 'Int64', dir);
