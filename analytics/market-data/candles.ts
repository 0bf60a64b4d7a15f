/**
 * Candles of venue alpha's markets (docs/analytics.md "Candles"): per token and per condition, from maker
 * fills only (each trade once, alpha-chain.md §6.2), pending rows included; buy/sell is the maker order's
 * side, as in trades rows. 1-minute candles are computed from `alpha_fills`; hours roll up from minutes
 * and days from hours (5- and 15-minute candles roll up from minutes when read).
 *
 * Condition candles are in YES terms: a fill on the NO token (outcome 1, through `alpha_tokens`) at price
 * p is a YES price of 1 − p (computed as (shares − usd) ÷ shares, so 1 − 0.42 reads 0.58, not 0.5800000000000001); their volume is both tokens'. `yes_value` (Σ YES price × shares, exactly
 * shares − usd for a NO fill) gives the share-weighted mean. A fill whose token `alpha_tokens` does not
 * know has no condition: it counts in its token's candles only.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import { ALPHA_CONDITION_CANDLES_1M, ALPHA_TOKEN_CANDLES_1M } from '../../schemas/tables/alpha-analytics.ts';
import {
  bucketsOf,
  computedColumns,
  DAY,
  HOUR,
  keyFilter,
  MINUTE,
  replaceScope,
  type Scope,
  timeWindow,
  tokenMapSql,
} from '../shared/scope.ts';

// The SELECTs below return these columns in this order (the tables' descriptions).
const TOKEN_COLUMNS = computedColumns(ALPHA_TOKEN_CANDLES_1M);
const CONDITION_COLUMNS = computedColumns(ALPHA_CONDITION_CANDLES_1M);

/** The order of fills within a bucket: open is the first, close the last. */
const ORDER = '(block_number, log_index)';

const FLOW_FROM_FILLS = `count() AS trades, countIf(side = 'BUY') AS buys, countIf(side = 'SELL') AS sells,
  sumIf(usd, side = 'BUY') AS buy_usd, sumIf(usd, side = 'SELL') AS sell_usd`;

/** Token → condition and outcome for the scope's conditions (or every token with a known condition). */
function tokenMap(scope: Scope): { sql: string; params: Record<string, unknown> } {
  const conditions = keyFilter('condition_id', scope.conditions, 'map_conditions');
  return { sql: tokenMapSql(conditions.sql), params: conditions.params };
}

/** Maker fills of the scope's window, up to its block (by token when the scope names tokens). */
function fills(scope: Scope, tokens: string): { sql: string; params: Record<string, unknown> } {
  const w = timeWindow('block_time', bucketsOf(scope, MINUTE), 'fills');
  return {
    sql: `chain_id = {chain:UInt32} AND role = 'maker' AND block_number <= {max_block:UInt64} AND ${w.sql}
          AND ${tokens}`,
    params: { ...w.params, chain: scope.chainId, max_block: scope.maxBlock },
  };
}

async function tokenMinutes(ch: ClickHouse, scope: Scope): Promise<void> {
  const tokens = keyFilter('token_id', scope.tokens, 'tokens');
  const where = fills(scope, tokens.sql);
  const w = timeWindow('bucket', bucketsOf(scope, MINUTE), 'cover');
  await replaceScope(ch, scope.version, {
    additive: scope.additive,
    label: 'analytics.candles.token_1m',
    table: 'alpha_token_candles_1m',
    key: ['token_id', 'bucket'],
    columns: TOKEN_COLUMNS,
    select: `SELECT token_id, toStartOfMinute(block_time) AS bucket,
        argMin(price, ${ORDER}) AS open, max(price) AS high, min(price) AS low,
        argMax(price, ${ORDER}) AS close,
        min(block_time) AS first_time, max(block_time) AS last_time, sum(usd) AS usd_sum, sum(shares) AS shares_sum,
        ${FLOW_FROM_FILLS}
      FROM alpha_fills WHERE ${where.sql}
      GROUP BY token_id, bucket`,
    covers: `${w.sql} AND ${tokens.sql}`,
    params: { ...where.params, ...tokens.params, ...w.params },
  });
}

async function conditionMinutes(ch: ClickHouse, scope: Scope): Promise<void> {
  const map = tokenMap(scope);
  const tokens = scope.conditions === null ? '1' : `token_id IN (SELECT token_id FROM ${map.sql})`;
  const where = fills(scope, tokens);
  const conditions = keyFilter('condition_id', scope.conditions, 'conditions');
  const w = timeWindow('bucket', bucketsOf(scope, MINUTE), 'cover');
  await replaceScope(ch, scope.version, {
    additive: scope.additive,
    label: 'analytics.candles.condition_1m',
    table: 'alpha_condition_candles_1m',
    key: ['condition_id', 'bucket'],
    columns: CONDITION_COLUMNS,
    select: `WITH if(m.outcome = 0 OR f.shares = 0, f.price, (toFloat64(f.shares) - toFloat64(f.usd)) / f.shares) AS yes_price
      SELECT m.condition_id AS condition_id, toStartOfMinute(f.block_time) AS bucket,
        argMin(yes_price, (f.block_number, f.log_index)) AS open, max(yes_price) AS high, min(yes_price) AS low,
        argMax(yes_price, (f.block_number, f.log_index)) AS close,
        min(f.block_time) AS first_time, max(f.block_time) AS last_time,
        sum(f.usd) AS usd_sum, sum(f.shares) AS shares_sum,
        sum(if(m.outcome = 0, toInt64(f.usd), toInt64(f.shares) - toInt64(f.usd))) AS yes_value,
        sumIf(f.usd, m.outcome = 0) AS yes_usd, sumIf(f.usd, m.outcome != 0) AS no_usd,
        count() AS trades, countIf(f.side = 'BUY') AS buys, countIf(f.side = 'SELL') AS sells,
        sumIf(f.usd, f.side = 'BUY') AS buy_usd, sumIf(f.usd, f.side = 'SELL') AS sell_usd
      FROM (SELECT token_id, block_number, log_index, block_time, usd, shares, price, side
            FROM alpha_fills WHERE ${where.sql}) AS f
      INNER JOIN ${map.sql} AS m ON m.token_id = f.token_id
      GROUP BY condition_id, bucket`,
    covers: `${w.sql} AND ${conditions.sql}`,
    params: { ...where.params, ...map.params, ...conditions.params, ...w.params },
  });
}

/** Rolls `from`'s buckets up into `to`'s (whole buckets of `step` seconds covering the scope). */
async function rollUp(
  ch: ClickHouse,
  scope: Scope,
  level: 'token' | 'condition',
  from: string,
  to: string,
  step: number,
  startOf: string,
): Promise<void> {
  const keyColumn = level === 'token' ? 'token_id' : 'condition_id';
  const keys = keyFilter(keyColumn, level === 'token' ? scope.tokens : scope.conditions, 'keys');
  const w = timeWindow('bucket', bucketsOf(scope, step), 'cover');
  const condition = level === 'condition';
  const columns = condition ? CONDITION_COLUMNS : TOKEN_COLUMNS;
  await replaceScope(ch, scope.version, {
    additive: scope.additive,
    label: `analytics.candles.${to}`,
    table: to,
    key: [keyColumn, 'bucket'],
    columns,
    select: `SELECT ${keyColumn}, ${startOf}(bucket) AS b,
        argMin(open, bucket), max(high), min(low), argMax(close, bucket),
        min(first_time), max(last_time), sum(usd), sum(shares),
        ${condition ? 'sum(yes_value), sum(yes_usd), sum(no_usd),' : ''}
        sum(trades), sum(buys), sum(sells), sum(buy_usd), sum(sell_usd)
      FROM ${from} FINAL WHERE ${w.sql} AND ${keys.sql}
      GROUP BY ${keyColumn}, b`,
    covers: `${w.sql} AND ${keys.sql}`,
    params: { ...w.params, ...keys.params },
  });
}

/** Recomputes every candle table over the scope: minutes from fills, then hours, then days. */
export async function recomputeCandles(ch: ClickHouse, scope: Scope): Promise<void> {
  await tokenMinutes(ch, scope);
  await conditionMinutes(ch, scope);
  for (const level of ['token', 'condition'] as const) {
    await rollUp(
      ch,
      scope,
      level,
      `alpha_${level}_candles_1m`,
      `alpha_${level}_candles_1h`,
      HOUR,
      'toStartOfHour',
    );
    await rollUp(
      ch,
      scope,
      level,
      `alpha_${level}_candles_1h`,
      `alpha_${level}_candles_1d`,
      DAY,
      'toStartOfDay',
    );
  }
}
