/**
 * Query-parameter rules shared by the alpha chain-data routes: the 400s SPEC names (more than 50
 * wallets, an invalid address named in the message, a malformed hash) and a small WHERE builder whose
 * values are always bound as ClickHouse parameters.
 */
import { ApiError } from '../../../errors.ts';
import { paginate } from '../../../pagination.ts';
import type { RouteContext } from '../../index.ts';

export const MAX_WALLETS = 50;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HASH32 = /^0x[0-9a-fA-F]{64}$/;

/** A comma-separated wallet list → distinct lowercase addresses, sorted (so order never matters). */
export function parseWallets(raw: string | undefined, param = 'wallet'): string[] | undefined {
  if (raw === undefined) return undefined;
  const items = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length === 0) throw new ApiError(400, `${param} must list at least one address`);
  for (const item of items) {
    if (!ADDRESS.test(item)) {
      throw new ApiError(
        400,
        `Invalid address in ${param}: "${item.slice(0, 100)}" (expected 0x followed by 40 hex characters)`,
      );
    }
  }
  const wallets = [...new Set(items.map((s) => s.toLowerCase()))].sort();
  if (wallets.length > MAX_WALLETS) {
    throw new ApiError(
      400,
      `Too many addresses in ${param}: ${wallets.length} distinct, at most ${MAX_WALLETS} are allowed`,
    );
  }
  return wallets;
}

/** A bytes32 value (`0x` + 64 hex) → lowercase; anything else is a 400 naming the parameter. */
export function parseHash(raw: string | undefined, param: string): string | undefined {
  if (raw === undefined) return undefined;
  const v = raw.trim();
  if (!HASH32.test(v)) {
    throw new ApiError(
      400,
      `Invalid ${param}: "${v.slice(0, 100)}" (expected 0x followed by 64 hex characters)`,
    );
  }
  return v.toLowerCase();
}

export function checkTimeRange(start: number | undefined, end: number | undefined): void {
  if (start !== undefined && end !== undefined && start > end) {
    throw new ApiError(400, `start_time (${start}) is after end_time (${end})`);
  }
}

/** Conditions joined by AND, each a fixed SQL fragment; values only ever travel as parameters. */
export function createWhere() {
  const parts: string[] = [];
  const params: Record<string, unknown> = {};
  return {
    params,
    add(sql: string, values: Record<string, unknown> = {}) {
      parts.push(sql);
      Object.assign(params, values);
    },
    sql(): string {
      return parts.length === 0 ? '' : `WHERE ${parts.map((p) => `(${p})`).join(' AND ')}`;
    },
  };
}

/** Base units (6 decimals) as ClickHouse returns 64-bit integers (strings) → a JSON number. */
export function units(v: string | number): number {
  return Number(v) / 1e6;
}

/**
 * The keyset condition after a cursor `[block_number, log_index]`, in the feed's direction. Written as
 * an OR of plain comparisons so the primary key and projections can use it.
 */
export function afterCursor(key: (string | number)[], order: 'asc' | 'desc') {
  const [bn, li] = key;
  if (
    typeof bn !== 'string' ||
    !/^\d{1,20}$/.test(bn) ||
    typeof li !== 'number' ||
    !Number.isInteger(li) ||
    li < 0
  ) {
    throw new ApiError(
      400,
      'Invalid pagination_key: pass back the pagination_key of the previous page unchanged.',
    );
  }
  const op = order === 'desc' ? '<' : '>';
  return {
    sql: `block_number ${op} {cursor_bn:UInt64} OR (block_number = {cursor_bn:UInt64} AND log_index ${op} {cursor_li:UInt32})`,
    params: { cursor_bn: bn, cursor_li: li },
  };
}

export type Where = ReturnType<typeof createWhere>;

/** `start_time` / `end_time` (Unix seconds) as conditions on `block_time`. */
export function addTimeRange(w: Where, start: number | undefined, end: number | undefined): void {
  if (start !== undefined) {
    w.add("block_time >= fromUnixTimestamp64Milli({start_ms:Int64}, 'UTC')", { start_ms: start * 1000 });
  }
  if (end !== undefined) {
    w.add("block_time <= fromUnixTimestamp64Milli({end_ms:Int64}, 'UTC')", { end_ms: end * 1000 });
  }
}

/**
 * One page of a chain event table in (block_number, log_index) order: the keyset condition after the
 * cursor, `limit + 1` rows for an exact `has_more`, and the next cursor bound to the filters' digest.
 */
export async function chainEventPage<R extends { block_number: string | number; log_index: string | number }>(
  ctx: RouteContext,
  o: {
    label: string;
    table: 'alpha_fills' | 'alpha_activity';
    columns: string;
    where: Where;
    cursor: (string | number)[] | undefined;
    order: 'asc' | 'desc';
    limit: number;
    digest: string;
  },
) {
  if (o.cursor) {
    const c = afterCursor(o.cursor, o.order);
    o.where.add(c.sql, c.params);
  }
  const dir = o.order === 'asc' ? 'ASC' : 'DESC';
  const rows = await ctx.deps.clickhouse.query<R>(
    o.label,
    `SELECT ${o.columns} FROM ${o.table} ${o.where.sql()}
     ORDER BY block_number ${dir}, log_index ${dir}
     LIMIT {page_rows:UInt32}`,
    { ...o.where.params, page_rows: o.limit + 1 },
  );
  return paginate(rows, o.limit, (last) =>
    ctx.cursors.encode(o.digest, [String(last.block_number), Number(last.log_index)]),
  );
}

/** Market slugs of the page's conditions (none until venue metadata is ingested). */
export async function slugsOf(ctx: RouteContext, conditionIds: Iterable<string | null>) {
  const ids = [...new Set([...conditionIds].filter((c): c is string => !!c))];
  return ids.length > 0 ? ctx.markets.slugs(ids) : new Map<string, string>();
}
