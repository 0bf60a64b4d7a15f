/**
 * A sort key declared as data: an SQL expression over a table's columns with its type and direction.
 * Every keyset page (api/read/keyset.ts) is ordered by such keys: lists whose sort the request chooses
 * (the catalog lists, the venue market lists of schemas/venues/) declare each sort as a list of keys, ties
 * broken by a unique key last; a feed's fixed order is its key columns, all in the request's direction.
 */

export interface SortColumn {
  /** An SQL expression over the table's columns (fixed text; it may use the request's bound parameters). */
  expr: string;
  /**
   * The key value's type, which fixes its form in a cursor: UInt32 and Float64 travel as JSON numbers
   * (exact), Int64, UInt64 and String as strings (64-bit integers beyond 2^53 stay exact).
   */
  type: 'UInt32' | 'Float64' | 'Int64' | 'UInt64' | 'String';
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
