/**
 * What alpha's market-data endpoints share (candles, volume chart, volume and open-interest series):
 * the path ids' rules, a market's all-time first and last trade (alpha_market_totals), the 404 of a
 * market the chain never saw (alpha_tokens), bound times and the UTC periods of the series.
 *
 * The derived tables (schemas/tables/alpha-analytics.ts) are ReplacingMergeTree(version, deleted): every
 * read here uses FINAL (and `deleted = 0`, which FINAL implies). Amounts are 6-decimal base units.
 */
import type { ClickHouse } from '../../../core/clickhouse/index.ts';
import { expression, fields } from '../../../core/clickhouse/table.ts';
import { ApiError } from '../../errors.ts';
import { parseHash } from '../filters.ts';

/** A market of the endpoints: a condition (YES terms, both tokens) or one outcome token. */
export type Level = 'token' | 'condition';

export interface MarketRef {
  level: Level;
  id: string;
}

/** The id column of the derived tables keyed by market. */
export const ID_COLUMN: Record<Level, 'token_id' | 'condition_id'> = {
  token: 'token_id',
  condition: 'condition_id',
};

export const MINUTE = 60;
export const HOUR = 3600;
export const DAY = 86_400;
export const WEEK = 7 * DAY;
/** 1970-01-05 00:00 UTC, a Monday: weeks are counted from it. */
export const MONDAY_EPOCH = 4 * DAY;

/** DateTime('UTC') stops at 2106: later bounds are clamped there (nothing is stored beyond). */
const MAX_DATETIME = 4_294_967_295;
export const clampSeconds = (s: number) => Math.min(Math.max(0, Math.floor(s)), MAX_DATETIME);

/** `toDateTime({name:UInt32}, 'UTC')`: a bound time in a derived table's bucket type. */
export const at = (name: string) => `toDateTime({${name}:UInt32}, 'UTC')`;

/** The path's condition id: 0x + 64 hex, else a 400 naming `condition_id`; lowercased. */
export function conditionIdOf(raw: string): string {
  return parseHash(raw, 'condition_id')!;
}

/** start_time ≥ end_time (both given) is a 400 naming both. */
export function checkStartBeforeEnd(start: number | undefined, end: number | undefined): void {
  if (start !== undefined && end !== undefined && start >= end) {
    throw new ApiError(400, `start_time (${start}) must be before end_time (${end})`);
  }
}

export interface TradeSpan {
  /** First and last trade, Unix seconds; null when the market has none. */
  first: number | null;
  last: number | null;
}

/**
 * A market's all-time first and last trade from alpha_market_totals: toUnixTimestamp of a
 * Nullable(DateTime64) is a Nullable(UInt32), read as a number or null.
 */
const TOTALS_SPAN = fields({
  first: expression<number | null>('toUnixTimestamp(first_trade_time)'),
  last: expression<number | null>('toUnixTimestamp(last_trade_time)'),
});

/** The market's first and last trade from its totals row, or undefined without one. */
async function totalsSpan(ch: ClickHouse, m: MarketRef): Promise<TradeSpan | undefined> {
  const rows = await ch.read(
    'api.alpha.market.totals',
    `SELECT ${TOTALS_SPAN.sql}
     FROM alpha_market_totals FINAL
     WHERE level = {level:String} AND id = {id:String} AND deleted = 0`,
    { level: m.level, id: m.id },
  );
  return rows.map(TOTALS_SPAN.zip)[0];
}

/**
 * The market's first and last trade from alpha_market_totals; a market without a totals row is looked
 * up in alpha_tokens: never seen on chain → 404, else a market without trades (first and last null).
 */
export async function tradeSpan(ch: ClickHouse, m: MarketRef): Promise<TradeSpan> {
  const span = await totalsSpan(ch, m);
  if (span) return span;
  await requireOnChain(ch, m);
  return { first: null, last: null };
}

/** A 404 unless the market has a totals row or alpha_tokens has a row of it. */
export async function requireSeen(ch: ClickHouse, m: MarketRef): Promise<void> {
  if (!(await totalsSpan(ch, m))) await requireOnChain(ch, m);
}

/** Whether alpha_tokens has a row: the constant 1 of any row found. */
const SEEN = fields({ seen: expression<1>('1') });

/** A 404 unless alpha_tokens has a row of the token (or of a token of the condition). */
async function requireOnChain(ch: ClickHouse, m: MarketRef): Promise<void> {
  // alpha_tokens is ordered by token: a token is a primary-key lookup, a condition reads the
  // condition_id column (only markets without a totals row get here).
  const [seen] = (
    await ch.read(
      'api.alpha.market.seen',
      `SELECT ${SEEN.sql} FROM alpha_tokens WHERE ${ID_COLUMN[m.level]} = {id:String} LIMIT 1`,
      { id: m.id },
    )
  ).map(SEEN.zip);
  if (!seen) {
    throw new ApiError(404, `Unknown ${ID_COLUMN[m.level]} ${m.id}: not seen on chain`);
  }
}

/**
 * A price or a mean price (0–1) as served: rounded to 6 decimals, the base unit's precision (a price is USD
 * per share, both in 6-decimal base units): 0.535, not the 0.5350003130674347 of a division in floats.
 */
export const PRICE_DECIMALS = 6;
export const roundPrice = (p: number) => Math.round(p * 10 ** PRICE_DECIMALS) / 10 ** PRICE_DECIMALS;

/** Base units (UInt64/Int64 as a string or number) → USD. */
export const usdOf = (v: string | number) => Number(v) / 1e6;

/** Granularities of the series endpoints other than `all`. */
export type Period = 'hour' | 'day' | 'week' | 'month' | 'year';

/** The start of the period holding `t` (Unix seconds, UTC). */
export function periodStart(t: number, p: Period): number {
  switch (p) {
    case 'hour':
      return t - (((t % HOUR) + HOUR) % HOUR);
    case 'day':
      return t - (((t % DAY) + DAY) % DAY);
    case 'week':
      return t - ((((t - MONDAY_EPOCH) % WEEK) + WEEK) % WEEK);
    case 'month': {
      const d = new Date(t * 1000);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
    }
    case 'year':
      return Date.UTC(new Date(t * 1000).getUTCFullYear(), 0, 1) / 1000;
  }
}

/** The start of the period after the one starting at `start`. */
export function nextPeriod(start: number, p: Period): number {
  switch (p) {
    case 'hour':
      return start + HOUR;
    case 'day':
      return start + DAY;
    case 'week':
      return start + WEEK;
    case 'month': {
      const d = new Date(start * 1000);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
    }
    case 'year':
      return Date.UTC(new Date(start * 1000).getUTCFullYear() + 1, 0, 1) / 1000;
  }
}

/**
 * A cumulative series: one point per period from the period of the first row (or of `start`, when
 * later) to the period of `end`, each the sums of every row before the period's end (rows before
 * `start` included). `rows` are [time, ...amounts] in ascending time; empty rows → no point.
 */
export function cumulative(
  rows: readonly (readonly [number, ...number[]])[],
  o: { period: Period; start: number | undefined; end: number },
): { timestamp: number; sums: number[] }[] {
  const first = rows[0];
  if (!first) return [];
  const lastPeriod = periodStart(o.end, o.period);
  let p = periodStart(Math.max(first[0], o.start ?? 0), o.period);
  const sums = new Array<number>(first.length - 1).fill(0);
  const out: { timestamp: number; sums: number[] }[] = [];
  let i = 0;
  for (; p <= lastPeriod; p = nextPeriod(p, o.period)) {
    const periodEnd = nextPeriod(p, o.period);
    for (; i < rows.length && rows[i]![0] < periodEnd; i++) {
      const r = rows[i]!;
      for (let k = 1; k < r.length; k++) sums[k - 1]! += r[k]!;
    }
    out.push({ timestamp: p, sums: [...sums] });
  }
  return out;
}

/** `all`: one point at `end` with the sums of every row; none without rows. */
export function total(
  rows: readonly (readonly [number, ...number[]])[],
  end: number,
): { timestamp: number; sums: number[] }[] {
  const first = rows[0];
  if (!first) return [];
  const sums = new Array<number>(first.length - 1).fill(0);
  for (const r of rows) for (let k = 1; k < r.length; k++) sums[k - 1]! += r[k]!;
  return [{ timestamp: end, sums }];
}
