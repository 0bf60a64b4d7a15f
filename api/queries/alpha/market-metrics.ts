/**
 * Rolling metrics and all-time totals of alpha markets by id list, for the catalog's market and event
 * lists: `marketMetrics(ch, { tokenIds, conditionIds })` → id → { rolling, totals }, from
 * alpha_market_rolling and alpha_market_totals FINAL (two reads, whatever the number of ids). Every id
 * asked for is in the map: one the tables do not hold gets zeros (computed_at null, trade times null).
 * Token ids (decimal) and condition ids (0x hex) never collide, so one map holds both.
 */
import type { ClickHouse } from '../../../core/clickhouse/index.ts';
import { expression, type ReadRow, selectList } from '../../../core/clickhouse/table.ts';
import type { MarketRollingMetrics } from '../../../schemas/api/alpha-market-data.ts';
import { ALPHA_MARKET_ROLLING, ALPHA_MARKET_TOTALS } from '../../../schemas/tables/alpha-analytics.ts';
import { usdOf } from './market-data.ts';

export interface MarketTotals {
  volume_usd: number;
  buy_volume_usd: number;
  sell_volume_usd: number;
  trades: number;
  buys: number;
  sells: number;
  /** Unix seconds; null without trades. */
  first_trade_ts: number | null;
  last_trade_ts: number | null;
  /** The condition's (a token's: its condition's). */
  open_interest_usd: number;
}

export interface MarketMetrics {
  rolling: MarketRollingMetrics;
  totals: MarketTotals;
}

const WINDOWS = ['1d', '7d', '30d'] as const;
/** Fields in USD (base units in the table); the others are counts. */
const USD_FIELDS = ['volume', 'buy_volume', 'sell_volume', 'oi_change'] as const;

/** The rolling columns in MarketRollingMetrics' order (computed_at last). */
const ROLLING_FIELDS = [
  ...['volume', 'buy_volume', 'sell_volume', 'trades', 'buys', 'sells', 'oi_change'].flatMap((f) =>
    WINDOWS.map((w) => `${f}_${w}` as const),
  ),
] as (keyof typeof ALPHA_MARKET_ROLLING.columns & keyof MarketRollingMetrics)[];
const USD_ROLLING = new Set<string>(USD_FIELDS.flatMap((f) => WINDOWS.map((w) => `${f}_${w}`)));

const ROLLING_SELECTED = [
  'id',
  ...ROLLING_FIELDS,
  expression<string>('toUnixTimestamp64Milli(computed_at)'),
] as const;

const TOTALS_SELECTED = [
  'id',
  'volume',
  'buy_volume',
  'sell_volume',
  'trades',
  'buys',
  'sells',
  expression<number | null>('toUnixTimestamp(first_trade_time)'),
  expression<number | null>('toUnixTimestamp(last_trade_time)'),
  'open_interest',
] as const;
type TotalsRow = ReadRow<typeof ALPHA_MARKET_TOTALS, typeof TOTALS_SELECTED>;

/** Rolling metrics of a market the table does not hold: zeros, never computed. */
export function emptyRolling(): MarketRollingMetrics {
  const r = { computed_at: null } as Record<string, number | null>;
  for (const f of ROLLING_FIELDS) r[f] = 0;
  return r as unknown as MarketRollingMetrics;
}

export function emptyTotals(): MarketTotals {
  return {
    volume_usd: 0,
    buy_volume_usd: 0,
    sell_volume_usd: 0,
    trades: 0,
    buys: 0,
    sells: 0,
    first_trade_ts: null,
    last_trade_ts: null,
    open_interest_usd: 0,
  };
}

const KEYS = `(level = 'token' AND id IN {tokens:Array(String)})
  OR (level = 'condition' AND id IN {conditions:Array(String)})`;

export async function marketMetrics(
  ch: ClickHouse,
  ids: { tokenIds?: readonly string[]; conditionIds?: readonly string[] },
): Promise<Map<string, MarketMetrics>> {
  const tokens = [...new Set(ids.tokenIds ?? [])];
  const conditions = [...new Set(ids.conditionIds ?? [])];
  const out = new Map<string, MarketMetrics>();
  for (const id of [...tokens, ...conditions])
    out.set(id, { rolling: emptyRolling(), totals: emptyTotals() });
  if (out.size === 0) return out;
  const params = { tokens, conditions };
  const [rolling, totals] = await Promise.all([
    ch.read<unknown[]>(
      'api.alpha.market_metrics.rolling',
      `SELECT ${selectList(ALPHA_MARKET_ROLLING, ROLLING_SELECTED).join(', ')}
       FROM alpha_market_rolling FINAL WHERE (${KEYS}) AND deleted = 0`,
      params,
    ),
    ch.read<TotalsRow>(
      'api.alpha.market_metrics.totals',
      `SELECT ${selectList(ALPHA_MARKET_TOTALS, TOTALS_SELECTED).join(', ')}
       FROM alpha_market_totals FINAL WHERE (${KEYS}) AND deleted = 0`,
      params,
    ),
  ]);
  for (const row of rolling) {
    const entry = out.get(row[0] as string);
    if (!entry) continue;
    const r = entry.rolling as unknown as Record<string, number | string | null>;
    ROLLING_FIELDS.forEach((f, i) => {
      const v = row[i + 1] as string | number;
      r[f] = USD_ROLLING.has(f) ? usdOf(v) : Number(v);
    });
    r.computed_at = new Date(Number(row[ROLLING_FIELDS.length + 1])).toISOString();
  }
  for (const [id, volume, buy, sell, trades, buys, sells, first, last, oi] of totals) {
    const entry = out.get(id);
    if (!entry) continue;
    entry.totals = {
      volume_usd: usdOf(volume),
      buy_volume_usd: usdOf(buy),
      sell_volume_usd: usdOf(sell),
      trades: Number(trades),
      buys: Number(buys),
      sells: Number(sells),
      first_trade_ts: first === null ? null : Number(first),
      last_trade_ts: last === null ? null : Number(last),
      open_interest_usd: usdOf(oi),
    };
  }
  return out;
}
