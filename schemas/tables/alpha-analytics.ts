/**
 * Venue alpha's market analytics tables (schemas/clickhouse/027_market_analytics.sql; docs/analytics.md),
 * each described once like the chain tables: the API's read column lists derive from these, and
 * test/table-descriptions.test.ts checks every description against `DESCRIBE TABLE`.
 *
 * Every row carries the `version` of the analytics run that computed it and a `deleted` flag
 * (ReplacingMergeTree(version, deleted)): read with FINAL. Amounts are integers in 6-decimal base units.
 */
import { c, defineTable } from '../../core/clickhouse/table.ts';

/** Whether a totals or rolling row is a token's or a condition's. */
export const LEVEL = c.enum8({ token: 1, condition: 2 });

const RUN = { version: c.u64n, deleted: c.u8<0 | 1>() } as const;

/** The bucket and price columns every candle table starts with (after its key). */
const OHLC = {
  bucket: c.seconds,
  open: c.f64,
  high: c.f64,
  low: c.f64,
  close: c.f64,
  first_time: c.time,
  last_time: c.time,
  usd: c.u64,
  shares: c.u64,
} as const;

/** Counts and sides every candle table ends with. */
const FLOW = {
  trades: c.u32,
  buys: c.u32,
  sells: c.u32,
  buy_usd: c.u64,
  sell_usd: c.u64,
  ...RUN,
} as const;

const tokenCandles = <N extends string>(name: N) =>
  defineTable(name, { token_id: c.hex(), ...OHLC, ...FLOW });

/** Condition candles are in YES terms: a NO fill at p is a YES price of 1 − p; volume is both tokens'. */
const conditionCandles = <N extends string>(name: N) =>
  defineTable(name, {
    condition_id: c.hex(),
    ...OHLC,
    yes_value: c.i64,
    yes_usd: c.u64,
    no_usd: c.u64,
    ...FLOW,
  });

export const ALPHA_TOKEN_CANDLES_1M = tokenCandles('alpha_token_candles_1m');
export const ALPHA_TOKEN_CANDLES_1H = tokenCandles('alpha_token_candles_1h');
export const ALPHA_TOKEN_CANDLES_1D = tokenCandles('alpha_token_candles_1d');
export const ALPHA_CONDITION_CANDLES_1M = conditionCandles('alpha_condition_candles_1m');
export const ALPHA_CONDITION_CANDLES_1H = conditionCandles('alpha_condition_candles_1h');
export const ALPHA_CONDITION_CANDLES_1D = conditionCandles('alpha_condition_candles_1d');

export const ALPHA_OI_DELTAS_1H = defineTable('alpha_oi_deltas_1h', {
  condition_id: c.hex(),
  bucket: c.seconds,
  delta: c.i64,
  events: c.u32,
  ...RUN,
});

export const ALPHA_MARKET_TOTALS = defineTable('alpha_market_totals', {
  level: LEVEL,
  id: c.hex(),
  volume: c.u64,
  buy_volume: c.u64,
  sell_volume: c.u64,
  trades: c.u64,
  buys: c.u64,
  sells: c.u64,
  first_trade_time: c.nullableTime,
  last_trade_time: c.nullableTime,
  open_interest: c.i64,
  ...RUN,
});

export const ALPHA_MARKET_ROLLING = defineTable('alpha_market_rolling', {
  level: LEVEL,
  id: c.hex(),
  volume_1d: c.u64,
  volume_7d: c.u64,
  volume_30d: c.u64,
  buy_volume_1d: c.u64,
  buy_volume_7d: c.u64,
  buy_volume_30d: c.u64,
  sell_volume_1d: c.u64,
  sell_volume_7d: c.u64,
  sell_volume_30d: c.u64,
  trades_1d: c.u64,
  trades_7d: c.u64,
  trades_30d: c.u64,
  buys_1d: c.u64,
  buys_7d: c.u64,
  buys_30d: c.u64,
  sells_1d: c.u64,
  sells_7d: c.u64,
  sells_30d: c.u64,
  oi_change_1d: c.i64,
  oi_change_7d: c.i64,
  oi_change_30d: c.i64,
  computed_at: c.time,
  ...RUN,
});

export const ALPHA_ANALYTICS_TABLES = {
  alpha_token_candles_1m: ALPHA_TOKEN_CANDLES_1M,
  alpha_token_candles_1h: ALPHA_TOKEN_CANDLES_1H,
  alpha_token_candles_1d: ALPHA_TOKEN_CANDLES_1D,
  alpha_condition_candles_1m: ALPHA_CONDITION_CANDLES_1M,
  alpha_condition_candles_1h: ALPHA_CONDITION_CANDLES_1H,
  alpha_condition_candles_1d: ALPHA_CONDITION_CANDLES_1D,
  alpha_oi_deltas_1h: ALPHA_OI_DELTAS_1H,
  alpha_market_totals: ALPHA_MARKET_TOTALS,
  alpha_market_rolling: ALPHA_MARKET_ROLLING,
} as const;
