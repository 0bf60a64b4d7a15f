/**
 * Rolling metrics per token and per condition (`alpha_market_rolling`; SPEC MarketRollingMetrics;
 * docs/analytics.md "Rolling metrics"): volume, buy/sell volume, trades, buys, sells over the last 1, 7
 * and 30 days, and the open-interest change over each, at 1-minute resolution: a window of W ends with
 * the minute of `now` and holds the W/60 minutes up to it. now = computed_at = the newest block the
 * market data was computed up to (else the wall clock). Every key with a totals row gets a row (zeros
 * when quiet); a key that lost its totals row loses its rolling row.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import { ALPHA_MARKET_ROLLING } from '../../schemas/tables/alpha-analytics.ts';
import { oiEventsSql, oiParams } from '../shared/open-interest-events.ts';
import { computedColumns, DAY, floorTo, MINUTE, replaceScope, tokenMapSql } from '../shared/scope.ts';

export const WINDOWS = { '1d': DAY, '7d': 7 * DAY, '30d': 30 * DAY } as const;
type WindowName = keyof typeof WINDOWS;
const NAMES = Object.keys(WINDOWS) as WindowName[];

const FIGURES = [
  ['volume', 'usd'],
  ['buy_volume', 'buy_usd'],
  ['sell_volume', 'sell_usd'],
  ['trades', 'trades'],
  ['buys', 'buys'],
  ['sells', 'sells'],
] as const;

/** The SELECT below returns the table's columns in its order (FIGURES × WINDOWS, then oi_change_W). */
const COLUMNS = computedColumns(ALPHA_MARKET_ROLLING);

/** `sumIf(column, bucket >= start_w)` per window: the minutes (now − W, now] at 1-minute resolution. */
const windowSums = (time: string) =>
  FIGURES.flatMap(([name, column]) =>
    NAMES.map((w) => `sumIf(${column}, ${time} >= toDateTime({start_${w}:UInt32}, 'UTC')) AS ${name}_${w}`),
  ).join(',\n');

export interface RollingResult {
  /** Unix ms of `now`. */
  computedAt: number;
}

/** Recomputes every rolling row at `nowMs` (Unix ms) with run version `version`. */
export async function recomputeRolling(
  ch: ClickHouse,
  o: { chainId: number; usdcE: string; version: number; nowMs: number },
): Promise<RollingResult> {
  const nowMinute = floorTo(Math.floor(o.nowMs / 1000), MINUTE);
  const starts = Object.fromEntries(NAMES.map((w) => [`start_${w}`, nowMinute - WINDOWS[w] + MINUTE]));
  const end = nowMinute + MINUTE;
  const oiSums = NAMES.map(
    (w) => `sumIf(delta, block_time >= toDateTime({start_${w}:UInt32}, 'UTC')) AS oi_${w}`,
  ).join(', ');
  const tokenMap = tokenMapSql();
  const candles = (level: 'token' | 'condition') => {
    const key = level === 'token' ? 'token_id' : 'condition_id';
    return `SELECT '${level}' AS level, ${key} AS id, ${windowSums('bucket')}
      FROM alpha_${level}_candles_1m FINAL
      WHERE bucket >= toDateTime({start_30d:UInt32}, 'UTC') AND bucket < toDateTime({end:UInt32}, 'UTC')
      GROUP BY ${key}`;
  };
  const oiByCondition = `(SELECT condition_id, ${oiSums}
      FROM (${oiEventsSql("block_time >= toDateTime({start_30d:UInt32}, 'UTC') AND block_time < toDateTime({end:UInt32}, 'UTC')")})
      GROUP BY condition_id)`;
  const oiChanges = `SELECT 'condition' AS level, condition_id AS id, ${NAMES.map((w) => `oi_${w}`).join(', ')}
      FROM ${oiByCondition}
    UNION ALL
    SELECT 'token' AS level, m.token_id AS id, ${NAMES.map((w) => `o.oi_${w}`).join(', ')}
      FROM ${oiByCondition} AS o INNER JOIN ${tokenMap} AS m ON m.condition_id = o.condition_id`;

  await replaceScope(ch, o.version, {
    label: 'analytics.rolling',
    table: 'alpha_market_rolling',
    key: ['level', 'id'],
    columns: COLUMNS,
    select: `SELECT k.level, k.id,
        ${FIGURES.flatMap(([name]) => NAMES.map((w) => `v.${name}_${w}`)).join(', ')},
        ${NAMES.map((w) => `d.oi_${w}`).join(', ')},
        fromUnixTimestamp64Milli({now_ms:Int64}, 'UTC')
      FROM (SELECT toString(level) AS level, id FROM alpha_market_totals FINAL) AS k
      LEFT JOIN (${candles('token')} UNION ALL ${candles('condition')}) AS v ON v.level = k.level AND v.id = k.id
      LEFT JOIN (${oiChanges}) AS d ON d.level = k.level AND d.id = k.id`,
    covers: '1',
    params: { ...starts, ...oiParams(o.chainId, o.usdcE), end, now_ms: o.nowMs },
  });
  return { computedAt: o.nowMs };
}
