/**
 * Filters of list endpoints, declared rather than coded: each is a name in the filters digest, a parse
 * rule (the 400s SPEC names: wallet lists, bytes32 hashes, time ranges) and a fixed SQL fragment whose
 * values are always bound as parameters ({name:Type}), never spliced into the SQL.
 */

import type { RouteContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import type { Condition } from '../read/where.ts';

/** The validated query string of a request (after schema validation, coercion and defaults). */
export type Query = Readonly<Record<string, unknown>>;

/** What `resolve` answers when no row can match (e.g. an unknown market slug): an empty page. */
export const NO_ROWS = Symbol('no rows');

export interface Filter<V = unknown> {
  /** Its key in the filters digest: cursors are bound to it, so renaming it invalidates live cursors. */
  readonly name: string;
  /** The normalized value (undefined when absent); throws ApiError(400) on SPEC's rules. */
  parse(query: Query): V | undefined;
  /** The condition of a present value; undefined adds none. */
  where?(value: V): Condition | undefined;
  /**
   * A condition that needs an in-process seam first (e.g. market slug → condition ids). Runs after the
   * cursor is checked; NO_ROWS answers an empty page without a query.
   */
  resolve?(value: V, ctx: RouteContext): Promise<Condition | typeof NO_ROWS>;
  /** When present, the list is in this order whatever `order` says (e.g. `after`: oldest first). */
  readonly order?: 'asc' | 'desc';
}

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

const text = (q: Query, param: string) => q[param] as string | undefined;

/** `wallet`-style list (≤ 50 distinct valid addresses) matched against `column`. */
export function walletList(o: { column: string; param?: string; name?: string }): Filter<string[]> {
  const param = o.param ?? 'wallet';
  return {
    name: o.name ?? 'wallets',
    parse: (q) => parseWallets(text(q, param), param),
    where: (wallets) => ({ sql: `${o.column} IN {${param}:Array(String)}`, params: { [param]: wallets } }),
  };
}

/**
 * A bytes32 parameter (a 400 naming it when malformed), lowercased, matched by `sql` (default
 * `column = {param:String}`).
 */
export function bytes32(o: { param: string; column?: string; sql?: string }): Filter<string> {
  const sql = o.sql ?? `${o.column ?? o.param} = {${o.param}:String}`;
  return {
    name: o.param,
    parse: (q) => parseHash(text(q, o.param), o.param),
    where: (v) => ({ sql, params: { [o.param]: v } }),
  };
}

/** A parameter the schema already validated, compared as given (`column = {param:type}`). */
export function equals(o: { param: string; column?: string; type?: string }): Filter<unknown> {
  return {
    name: o.param,
    parse: (q) => q[o.param],
    where: (v) => ({
      sql: `${o.column ?? o.param} = {${o.param}:${o.type ?? 'String'}}`,
      params: { [o.param]: v },
    }),
  };
}

/**
 * `start_time` / `end_time` (Unix seconds, inclusive) on a DateTime64 `column`; start after end is a
 * 400 (checked when start_time is parsed, so declare the pair where that check belongs in the order).
 */
export const timeRange = (column: string) => timeBounds(column, 1000);

/** The Unix-ms twin of `timeRange`: `start_time` / `end_time` in Unix milliseconds, inclusive. */
export const timeRangeMs = (column: string) => timeBounds(column, 1);

/** The pair of bounds on `column`, their values in units of `msPerUnit` milliseconds. */
function timeBounds(column: string, msPerUnit: number): [Filter<number>, Filter<number>] {
  const bound = (param: 'start_time' | 'end_time', op: string, ms: string): Filter<number> => ({
    name: param,
    parse: (q) => {
      if (param === 'start_time')
        checkTimeRange(q.start_time as number | undefined, q.end_time as number | undefined);
      return q[param] as number | undefined;
    },
    where: (v) => ({
      sql: `${column} ${op} fromUnixTimestamp64Milli({${ms}:Int64}, 'UTC')`,
      params: { [ms]: v * msPerUnit },
    }),
  });
  return [bound('start_time', '>=', 'start_ms'), bound('end_time', '<=', 'end_ms')];
}

/**
 * `market_slug`: resolved through the market slug seam (api/markets.ts) to condition ids; an unknown
 * slug answers an empty page. `where` turns the ids into the table's condition.
 */
export function marketSlug(where: (conditionIds: string[]) => Condition): Filter<string> {
  return {
    name: 'market_slug',
    parse: (q) => text(q, 'market_slug'),
    async resolve(slug, ctx) {
      const ids = await ctx.markets.conditionIds(slug);
      return ids.length === 0 ? NO_ROWS : where(ids);
    },
  };
}
