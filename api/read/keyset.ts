/**
 * The one keyset engine: every paginated read (feeds, sorted catalog lists, venue lists, search) reads
 * `limit + 1` rows after the cursor's key in its keys' order (exact `has_more`) and encodes the next
 * cursor from the last row kept. Keys are `SortColumn`s (core/clickhouse/sort-keys.ts: an expression, its
 * type and direction); a feed's fixed order (`fixedOrder`) is the special case of key columns all in the
 * request's direction. The cursor carries the key values (api/pagination.ts: signed, bound to the digest
 * of the request's normalized filters and sort; reused with others it is a 400). Values travel only as
 * bound parameters.
 */
import type { SortColumn } from '../../core/clickhouse/sort-keys.ts';
import type { Selection } from '../../core/clickhouse/table.ts';
import type { RouteContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { type PageInfo, paginate, type SortKey } from '../pagination.ts';
import type { Condition, Where } from './where.ts';

export type { SortColumn };

/** A key column of a fixed order (a feed's): its type fixes the cursor's value form. */
export interface KeyColumn {
  column: string;
  type: SortColumn['type'];
}

/** A fixed order in the request's direction: every key column ascending or every one descending. */
export function fixedOrder(columns: readonly KeyColumn[], order: 'asc' | 'desc'): SortColumn[] {
  return columns.map((k) => ({ expr: k.column, type: k.type, dir: order }));
}

const invalidKey = () =>
  new ApiError(400, 'Invalid pagination_key: pass back the pagination_key of the previous page unchanged.');

function checkValue(type: SortColumn['type'], v: unknown): boolean {
  switch (type) {
    case 'UInt32':
      return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffffffff;
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

const IDENT = /^[a-z_][a-z0-9_]*$/;
/** A plain column as is (so the primary key and projections see it), any other expression in parentheses. */
const operand = (expr: string) => (IDENT.test(expr) ? expr : `(${expr})`);

/**
 * Rows strictly after `key` in the order of `keys` (each column in its own direction): an OR of plain
 * comparisons, `a op x OR (a = x AND b op y) ...`, so the primary key and projections can use it. A key
 * of the wrong shape is a 400.
 */
export function afterKey(keys: readonly SortColumn[], key: SortKey): Condition {
  if (key.length !== keys.length) throw invalidKey();
  const params: Record<string, unknown> = {};
  const placeholders = keys.map((k, i) => {
    if (!checkValue(k.type, key[i])) throw invalidKey();
    params[`sort_key_${i}`] = key[i];
    return `{sort_key_${i}:${k.type}}`;
  });
  const terms = keys.map((k, i) => {
    const eq = keys.slice(0, i).map((p, j) => `${operand(p.expr)} = ${placeholders[j]}`);
    const cmp = `${operand(k.expr)} ${k.dir === 'desc' ? '<' : '>'} ${placeholders[i]}`;
    return eq.length === 0 ? cmp : `(${[...eq, cmp].join(' AND ')})`;
  });
  return { sql: terms.join(' OR '), params };
}

/** The ORDER BY list of `keys`. */
export const orderBy = (keys: readonly SortColumn[]): string =>
  keys.map((k) => `${operand(k.expr)} ${k.dir === 'desc' ? 'DESC' : 'ASC'}`).join(', ');

/** A row's key values as read (64-bit integers arrive as strings) → the cursor's form. */
export function cursorKey(keys: readonly SortColumn[], values: readonly unknown[]): SortKey {
  return keys.map((k, i) =>
    k.type === 'UInt32' || k.type === 'Float64' ? Number(values[i]) : String(values[i]),
  );
}

export interface KeysetRead<Row> {
  /** Query label (`api.<route>`). */
  label: string;
  keys: readonly SortColumn[];
  /** The request's filters; the cursor's condition is added here. */
  where: Where;
  /** Digest of the normalized filters and sort (`filtersDigest`). */
  digest: string;
  /** The presented pagination_key, if any. */
  token: string | undefined;
  /** The token's key when the caller already decoded it (to answer its 400 first): not decoded again. */
  key?: SortKey;
  limit: number;
  /** Parameters the statement binds besides the filters' (e.g. a search rank's words). */
  params?: Record<string, unknown>;
  /**
   * The condition after a decoded cursor key, when the keys' own comparison (`afterKey`) is not the one to
   * use: beta's trades compare the key's Unix ms on the table's DateTime64 column itself. It checks the
   * key's shape (a 400 otherwise).
   */
  after?(key: SortKey): Condition;
  /**
   * The statement: at most `{page_rows:UInt32}` rows matching `where` (filters and cursor), in `order`
   * (the keys' ORDER BY list).
   */
  sql(where: Where, order: string): string;
  /**
   * The read's arrays → page rows, each with its key values as read. A statement that returns a row more
   * than once (a join with its outcomes) folds it here.
   */
  rows(raw: unknown[][]): { row: Row; key: readonly unknown[] }[];
}

/** One page: the rows in key order (at most `limit`) and the pagination with the next cursor. */
export async function keysetPage<Row>(
  ctx: RouteContext,
  r: KeysetRead<Row>,
): Promise<{ rows: Row[]; pagination: PageInfo }> {
  if (r.token !== undefined) {
    const key = r.key ?? ctx.cursors.decode(r.token, r.digest);
    r.where.add(r.after ? r.after(key) : afterKey(r.keys, key));
  }
  const raw = await ctx.deps.clickhouse.read<unknown[]>(r.label, r.sql(r.where, orderBy(r.keys)), {
    ...r.params,
    ...r.where.params,
    page_rows: r.limit + 1,
  });
  const cut = cutPage(ctx, r, r.rows(raw), (last) => cursorKey(r.keys, last.key));
  return { rows: cut.items.map((x) => x.row), pagination: cut.pagination };
}

/**
 * Cuts `limit + 1` rows in key order into one page (exact `has_more`) and encodes the next cursor from
 * the last row kept: `keysetPage` does it for every read it makes; a list whose order is computed in
 * process (a wallet's positions sorted on derived values) or whose cursor carries more than its key (the
 * top holders' rank) calls it with its own rows and key.
 */
export function cutPage<T>(
  ctx: RouteContext,
  r: { digest: string; limit: number },
  rows: T[],
  key: (last: T) => SortKey,
): { items: T[]; pagination: PageInfo } {
  return paginate(rows, r.limit, (last) => ctx.cursors.encode(r.digest, key(last)));
}

export interface TablePage<Row> extends Omit<KeysetRead<Row>, 'sql' | 'rows'> {
  /** The table (or `table FINAL`) read. */
  table: string;
  /** The row's columns; a key that is not one of them is read after them. */
  select: Selection<Row>;
}

/**
 * A page of one table's rows: `SELECT <select> FROM <table> WHERE ... ORDER BY <keys> LIMIT`. The engine
 * reads the wide columns of the first `limit + 1` rows only, after sorting on the narrow ones (lazy
 * materialization); measured faster than choosing the ids first and reading their rows by key
 * (docs/decisions.md).
 */
export function tablePage<Row>(
  ctx: RouteContext,
  r: TablePage<Row>,
): Promise<{ rows: Row[]; pagination: PageInfo }> {
  const n = r.select.columns.length;
  const at = r.keys.map((k) => r.select.columns.indexOf(k.expr));
  const extra = r.keys.filter((_, i) => at[i]! < 0).map((k) => k.expr);
  let next = n;
  const keyAt = at.map((i) => (i >= 0 ? i : next++));
  return keysetPage(ctx, {
    ...r,
    sql: (where, order) =>
      `SELECT ${[...r.select.columns, ...extra].join(', ')} FROM ${r.table} ${where.sql()}
     ORDER BY ${order}
     LIMIT {page_rows:UInt32}`,
    rows: (raw) =>
      raw.map((v) => ({
        row: r.select.zip(v),
        key: keyAt.map((i) => v[i]),
      })),
  });
}
