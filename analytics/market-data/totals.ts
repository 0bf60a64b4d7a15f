/**
 * All-time figures per token and per condition (`alpha_market_totals`; docs/analytics.md "Totals"):
 * volume, buy/sell volume, trades, buys, sells and first/last trade time from the daily candles, and the
 * current open interest (Σ of the hourly deltas; a token row carries its condition's). Recomputed for
 * the keys a run touched: those it wrote (or deleted) a daily candle or an open-interest bucket of.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import { ALPHA_MARKET_TOTALS } from '../../schemas/tables/alpha-analytics.ts';
import { computedColumns, replaceScope, tokenMapSql } from '../shared/scope.ts';

/** The SELECTs below return the table's columns in its order. */
const COLUMNS = computedColumns(ALPHA_MARKET_TOTALS);

const SUMS = `sum(usd) AS volume, sum(buy_usd) AS buy_volume, sum(sell_usd) AS sell_volume,
  sum(trades) AS trades, sum(buys) AS buys, sum(sells) AS sells,
  min(first_time) AS first_time, max(last_time) AS last_time`;

/** The keys an incremental step touched, complete: nothing is looked up from the derived tables. */
export interface TouchedKeys {
  /** Tokens whose candles changed, and the tokens of every condition in `conditions`. */
  tokens: readonly string[];
  /** The conditions of `tokens` (their open interest goes on the token rows). */
  tokenConditions: readonly string[];
  /** Conditions whose candles or open interest changed. */
  conditions: readonly string[];
}

/**
 * Recomputes the totals of every key whose daily candles or open interest this run (version) wrote, or,
 * given `keys` (an incremental step knows them), of those; `additive`: the run only added rows (no key
 * can have lost its figures).
 */
export async function recomputeTotals(
  ch: ClickHouse,
  chainId: number,
  version: number,
  o: { additive?: boolean; keys?: TouchedKeys } = {},
): Promise<void> {
  const additive = o.additive ?? false;
  const params: Record<string, unknown> = { run: version, chain: chainId };
  let tokenMap = tokenMapSql();
  let conditions: string;
  let tokens: string;
  let tokenConditions: string;
  if (o.keys) {
    // Constant sets: the engine prunes the sorting key with them (a subquery's set it did not).
    params.touched_tokens = o.keys.tokens;
    params.touched_conditions = o.keys.conditions;
    params.token_conditions = o.keys.tokenConditions;
    conditions = '{touched_conditions:Array(String)}';
    tokens = '{touched_tokens:Array(String)}';
    tokenConditions = '{token_conditions:Array(String)}';
    tokenMap = tokenMapSql('token_id IN {touched_tokens:Array(String)}');
  } else {
    // Conditions touched: their candles or their open interest changed in this run.
    conditions = `(SELECT condition_id FROM alpha_condition_candles_1d WHERE version = {run:UInt64}
      UNION DISTINCT SELECT condition_id FROM alpha_oi_deltas_1h WHERE version = {run:UInt64})`;
    // Tokens touched: their candles changed, or their condition's open interest did.
    tokens = `(SELECT token_id FROM alpha_token_candles_1d WHERE version = {run:UInt64}
      UNION DISTINCT SELECT token_id FROM ${tokenMap} WHERE condition_id IN ${conditions})`;
    tokenConditions = `(SELECT condition_id FROM ${tokenMap} WHERE token_id IN ${tokens})`;
  }
  const oi = (keys: string) => `(SELECT condition_id, sum(delta) AS oi FROM alpha_oi_deltas_1h FINAL
    WHERE condition_id IN ${keys} GROUP BY condition_id)`;

  // Every key of an incremental step has rows (its fills or supply events made them); otherwise the
  // conditions with candles or open interest.
  const keyed =
    o.keys && additive
      ? `(SELECT arrayJoin(${conditions}) AS condition_id)`
      : `(SELECT condition_id FROM alpha_condition_candles_1d FINAL WHERE condition_id IN ${conditions}
          UNION DISTINCT
          SELECT condition_id FROM alpha_oi_deltas_1h FINAL WHERE condition_id IN ${conditions})`;

  // Conditions first: a token row carries its condition's open interest, read from the row just written.
  await replaceScope(ch, version, {
    additive,
    label: 'analytics.totals.condition',
    table: 'alpha_market_totals',
    key: ['level', 'id'],
    columns: COLUMNS,
    select: `SELECT 'condition', k.condition_id, c.volume, c.buy_volume, c.sell_volume, c.trades, c.buys,
        c.sells, if(c.trades = 0, NULL, c.first_time), if(c.trades = 0, NULL, c.last_time), o.oi
      FROM ${keyed} AS k
      LEFT JOIN (SELECT condition_id, ${SUMS} FROM alpha_condition_candles_1d FINAL
                 WHERE condition_id IN ${conditions} GROUP BY condition_id) AS c ON c.condition_id = k.condition_id
      LEFT JOIN ${oi(conditions)} AS o ON o.condition_id = k.condition_id`,
    covers: `level = 'condition' AND id IN ${conditions}`,
    params,
  });

  await replaceScope(ch, version, {
    additive,
    label: 'analytics.totals.token',
    table: 'alpha_market_totals',
    key: ['level', 'id'],
    columns: COLUMNS,
    select: `SELECT 'token', t.token_id, t.volume, t.buy_volume, t.sell_volume, t.trades, t.buys, t.sells,
        t.first_time, t.last_time, o.oi
      FROM (SELECT token_id, ${SUMS} FROM alpha_token_candles_1d FINAL WHERE token_id IN ${tokens}
            GROUP BY token_id) AS t
      LEFT JOIN ${tokenMap} AS m ON m.token_id = t.token_id
      LEFT JOIN (SELECT id AS condition_id, open_interest AS oi FROM alpha_market_totals FINAL
                 WHERE level = 'condition' AND id IN ${tokenConditions}) AS o
        ON o.condition_id = m.condition_id`,
    covers: `level = 'token' AND id IN ${tokens}`,
    params,
  });
}
