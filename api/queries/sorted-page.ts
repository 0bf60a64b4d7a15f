/**
 * Keyset pages over a sort chosen per request: the catalog lists (events, markets, series, tags) sort by
 * one of many keys (a metric, a date, a title, a search rank), each with its own direction, then by id.
 * A `SortColumn` (core/clickhouse/sort-keys.ts) is an SQL expression over the table with its type and
 * direction; `sortedPage` reads `limit + 1` rows after the cursor's key in that order (exact `has_more`)
 * and encodes the next cursor from the last row kept. The cursor carries the key values (Float64 as a JSON number, which round-trips
 * exactly; Int64/UInt64 as decimal strings; String as is) and is bound, like every cursor, to the digest
 * of the request's normalized filters and sort (api/pagination.ts): reused with others it is a 400.
 * Values travel only as bound parameters.
 */
import type { SortColumn } from '../../core/clickhouse/sort-keys.ts';
import type { RouteContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { paginate, type SortKey } from '../pagination.ts';
import type { Condition } from './filters.ts';
import type { PageInfo, Where } from './list.ts';

const invalidKey = () =>
  new ApiError(400, 'Invalid pagination_key: pass back the pagination_key of the previous page unchanged.');

function checkValue(type: SortColumn['type'], v: unknown): boolean {
  switch (type) {
    case 'UInt32':
    case 'Float64':
      return typeof v === 'number' && Number.isFinite(v);
    case 'Int64':
      return typeof v === 'string' && /^-?\d{1,19}$/.test(v);
    case 'UInt64':
      return typeof v === 'string' && /^\d{1,20}$/.test(v);
    case 'String':
      return typeof v === 'string' && v.length <= 4096;
  }
}

/**
 * Rows strictly after `key` in the order of `keys` (each column in its own direction): an OR of plain
 * comparisons, `a op x OR (a = x AND b op y) ...`. A key of the wrong shape is a 400.
 */
export function afterSortKey(keys: readonly SortColumn[], key: SortKey): Condition {
  if (key.length !== keys.length) throw invalidKey();
  const params: Record<string, unknown> = {};
  const placeholders = keys.map((k, i) => {
    if (!checkValue(k.type, key[i])) throw invalidKey();
    params[`sort_key_${i}`] = key[i];
    return `{sort_key_${i}:${k.type}}`;
  });
  const terms = keys.map((k, i) => {
    const eq = keys.slice(0, i).map((p, j) => `(${p.expr}) = ${placeholders[j]}`);
    const cmp = `(${k.expr}) ${k.dir === 'desc' ? '<' : '>'} ${placeholders[i]}`;
    return eq.length === 0 ? cmp : `(${[...eq, cmp].join(' AND ')})`;
  });
  return { sql: terms.join(' OR '), params };
}

/** The cursor form of a key value read back from ClickHouse (64-bit integers arrive as strings). */
function keyValue(type: SortColumn['type'], v: unknown): string | number {
  return type === 'Float64' ? Number(v) : String(v);
}

export interface SortedPageRequest {
  /** Query label (`api.<route>`). */
  label: string;
  table: string;
  /** SELECT expressions of a row (the sort key values are appended after them). */
  columns: readonly string[];
  keys: readonly SortColumn[];
  /** The request's filters (conditions and bound parameters); the cursor's condition is added here. */
  where: Where;
  /** Digest of the normalized filters and sort (`filtersDigest`). */
  digest: string;
  /** The presented pagination_key, if any. */
  token: string | undefined;
  limit: number;
  /** Parameters the sort expressions bind (e.g. a search rank's words). */
  params?: Record<string, unknown>;
}

/** One page in the requested order: the rows (without the appended key values) and the pagination. */
export async function sortedPage<Row extends unknown[]>(
  ctx: RouteContext,
  r: SortedPageRequest,
): Promise<{ rows: Row[]; pagination: PageInfo }> {
  if (r.token !== undefined) r.where.add(afterSortKey(r.keys, ctx.cursors.decode(r.token, r.digest)));
  const n = r.columns.length;
  // One pass: the engine reads the wide columns (a `doc`) of the first `limit + 1` rows only, after
  // sorting on the narrow ones (lazy materialization); measured faster than choosing the ids first and
  // reading their rows by key (docs/decisions.md).
  const sql = `SELECT ${[...r.columns, ...r.keys.map((k) => k.expr)].join(', ')} FROM ${r.table} ${r.where.sql()}
    ORDER BY ${r.keys.map((k) => `(${k.expr}) ${k.dir === 'desc' ? 'DESC' : 'ASC'}`).join(', ')}
    LIMIT {page_rows:UInt32}`;
  const rows = await ctx.deps.clickhouse.read<unknown[]>(r.label, sql, {
    ...r.params,
    ...r.where.params,
    page_rows: r.limit + 1,
  });
  const cut = paginate(rows, r.limit, (last) =>
    ctx.cursors.encode(
      r.digest,
      r.keys.map((k, i) => keyValue(k.type, last[n + i])),
    ),
  );
  return { rows: cut.items.map((row) => row.slice(0, n) as Row), pagination: cut.pagination };
}
