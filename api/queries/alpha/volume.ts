/**
 * `GET /v2/alpha/volume-chart/{condition_id}` (interface-shapes §9): USD volume per hour, day or week
 * of a condition (both tokens, YES and NO apart), from alpha_condition_candles_1h / _1d FINAL; weeks roll
 * the daily rows up from Monday 00:00 UTC. The last period holds the volume up to end_time, to its second:
 * the condition's hours, minutes and maker fills of end_time's day (hour for `hour`) up to it. `GET /v2/alpha/markets/{token_id}/volume` (§10): the token's
 * cumulative volume at the end of each day, week, month or year, from alpha_token_candles_1d FINAL; the
 * last point (and `all`'s one point) holds the volume up to end_time (default now), to its second: the
 * hours, minutes and maker fills of end_time's day up to it, nothing after it.
 *
 * A period is in the answer when it overlaps [start_time, end_time] (its start lies in [start floored
 * to the period, end]); it counts whole from its start, the last up to end_time (above). Periods are
 * listed by their start.
 */
import type { ClickHouse } from '../../../core/clickhouse/index.ts';
import { columnOf, expression, fields, type RowOfSelection } from '../../../core/clickhouse/table.ts';
import { alphaNowSeconds } from '../../../core/now.ts';
import type {
  SeriesQuery,
  VolumeChartGranularity,
  VolumeChartQuery,
  VolumeChartResponse,
  VolumeResponse,
} from '../../../schemas/api/alpha-market-data.ts';
import { ALPHA_TOKEN_CANDLES_1D } from '../../../schemas/tables/alpha-analytics.ts';
import { ApiError } from '../../errors.ts';
import {
  at,
  checkStartBeforeEnd,
  clampSeconds,
  cumulative,
  DAY,
  HOUR,
  MINUTE,
  MONDAY_EPOCH,
  periodStart,
  requireSeen,
  total,
  usdOf,
  WEEK,
} from './market-data.ts';

/** Longest range (end − start, seconds) per granularity: 90 days, 1 year (365 days), 3 years. */
export const VOLUME_CHART_MAX_RANGE: Record<VolumeChartGranularity, number> = {
  hour: 90 * DAY,
  day: 365 * DAY,
  week: 3 * 365 * DAY,
};

const PERIOD_SQL: Record<VolumeChartGranularity, string> = {
  hour: `intDiv(t, ${HOUR}) * ${HOUR}`,
  day: `intDiv(t, ${DAY}) * ${DAY}`,
  week: `intDiv(t - ${MONDAY_EPOCH}, ${WEEK}) * ${WEEK} + ${MONDAY_EPOCH}`,
};

/**
 * A volume-chart period as read: its start (UInt64 or Int64 of the period arithmetic) and the sums of
 * USD (total, YES, NO) and trades (UInt64): all quoted, decimal strings.
 */
const chartPeriod = (g: VolumeChartGranularity) =>
  fields({
    period: expression<string>(`${PERIOD_SQL[g]} AS period`),
    usd: expression<string>('sum(usd)'),
    yes_usd: expression<string>('sum(yes_usd)'),
    no_usd: expression<string>('sum(no_usd)'),
    trades: expression<string>('sum(trades)'),
  });

const CHART_PERIOD = { hour: chartPeriod('hour'), day: chartPeriod('day'), week: chartPeriod('week') };

type ChartPeriodRow = RowOfSelection<ReturnType<typeof chartPeriod>>;

const CONDITION_CANDLE = (table: string, from: string, until: string) =>
  `SELECT toUnixTimestamp(bucket) AS t, usd, yes_usd, no_usd, trades FROM ${table} FINAL
   WHERE condition_id = {id:String} AND bucket >= ${at(from)} AND bucket < ${at(until)} AND deleted = 0`;

/**
 * Whole coarse candles from `from` to end's period, then (hour → day → week) the finer candles of end's
 * period before end's day, hour and minute, then the maker fills of end's minute up to the end of end's
 * second, each fill's token mapped to its condition and outcome through alpha_tokens as the condition
 * candles do (a fill's own condition_id is '' for early fills).
 */
function volumeChartSql(g: VolumeChartGranularity): string {
  const candles =
    g === 'hour'
      ? [CONDITION_CANDLE('alpha_condition_candles_1h', 'from', 'hour')]
      : [
          CONDITION_CANDLE('alpha_condition_candles_1d', 'from', 'day'),
          CONDITION_CANDLE('alpha_condition_candles_1h', 'day', 'hour'),
        ];
  const fills = `SELECT {minute:UInt32} AS t, sum(f.usd) AS usd, sumIf(f.usd, m.outcome = 0) AS yes_usd,
       sumIf(f.usd, m.outcome != 0) AS no_usd, count() AS trades
     FROM (SELECT token_id, usd FROM alpha_fills
           WHERE role = 'maker' AND block_time >= ${at('minute')}
             AND block_time < fromUnixTimestamp64Milli({until_ms:Int64}, 'UTC')
             AND token_id IN (SELECT token_id FROM alpha_tokens WHERE condition_id = {id:String})) AS f
     INNER JOIN (SELECT token_id, any(outcome_index) AS outcome FROM alpha_tokens
                 WHERE condition_id = {id:String} GROUP BY token_id) AS m ON m.token_id = f.token_id
     HAVING count() > 0`;
  const parts = [...candles, CONDITION_CANDLE('alpha_condition_candles_1m', 'hour', 'minute'), fills];
  return `SELECT ${CHART_PERIOD[g].sql}
    FROM (${parts.join('\n    UNION ALL\n    ')})
    GROUP BY period ORDER BY period`;
}

/** A period of the volume chart as served. */
export function toVolumeChartPoint(r: ChartPeriodRow): VolumeChartResponse['data'][number] {
  return {
    timestamp: Number(r.period),
    total_volume: usdOf(r.usd),
    yes_volume: usdOf(r.yes_usd),
    no_volume: usdOf(r.no_usd),
    trades_count: Number(r.trades),
  };
}

export async function alphaVolumeChart(
  ch: ClickHouse,
  conditionId: string,
  q: VolumeChartQuery,
): Promise<VolumeChartResponse> {
  const g = q.granularity ?? 'hour';
  const { start_time: start, end_time: end } = q;
  checkStartBeforeEnd(start, end);
  const max = VOLUME_CHART_MAX_RANGE[g];
  if (end - start > max) {
    throw new ApiError(
      400,
      `start_time (${start}) to end_time (${end}) spans more than granularity=${g} allows (${max / DAY} days)`,
    );
  }
  const period = g === 'hour' ? 'hour' : g === 'day' ? 'day' : 'week';
  // end's day and hour never start before `from` (start's period ≤ end's).
  const from = clampSeconds(periodStart(start, period));
  const raw = await ch.read(`api.alpha.volume_chart.${g}`, volumeChartSql(g), {
    id: conditionId,
    from,
    day: clampSeconds(periodStart(end, 'day')),
    hour: clampSeconds(periodStart(end, 'hour')),
    minute: clampSeconds(end - (end % MINUTE)),
    until_ms: (clampSeconds(end) + 1) * 1000,
  });
  if (raw.length === 0) await requireSeen(ch, { level: 'condition', id: conditionId });
  const { zip } = CHART_PERIOD[g];
  const data = raw.map((v) => toVolumeChartPoint(zip(v)));
  return {
    condition_id: conditionId,
    granularity: g,
    start_time: data[0]?.timestamp ?? start,
    end_time: data[data.length - 1]?.timestamp ?? end,
    data,
  };
}

/**
 * The resolved end of a series: end_time, else now, and never after now (a period after now has no
 * value yet); start_time ≥ end_time (both given) → 400.
 */
export function seriesEnd(q: SeriesQuery, now: number): number {
  checkStartBeforeEnd(q.start_time, q.end_time);
  return Math.min(q.end_time ?? now, now);
}

/**
 * A token's volume as read: a candle's start (UInt32) or the minute of end_time's fills, and its USD,
 * buy and sell USD (UInt64, as the candle columns; the fills' sums too).
 */
const TOKEN_VOLUME = fields({
  t: expression<number>('t'),
  usd: columnOf(ALPHA_TOKEN_CANDLES_1D, 'usd'),
  buy_usd: columnOf(ALPHA_TOKEN_CANDLES_1D, 'buy_usd'),
  sell_usd: columnOf(ALPHA_TOKEN_CANDLES_1D, 'sell_usd'),
});

export async function alphaTokenVolume(
  ch: ClickHouse,
  tokenId: string,
  q: SeriesQuery,
): Promise<VolumeResponse> {
  const g = q.granularity ?? 'day';
  const end = seriesEnd(q, await alphaNowSeconds(ch));
  // Nothing after end (to its second): whole days before end's day, whole hours of that day before end's
  // hour, whole minutes of that hour before end's minute, then the maker fills of that minute up to the end
  // of end's second (block times carry milliseconds).
  const day = periodStart(end, 'day');
  const hour = periodStart(end, 'hour');
  const minute = end - (end % MINUTE);
  const raw = await ch.read(
    'api.alpha.token_volume',
    `SELECT ${TOKEN_VOLUME.sql} FROM (
       SELECT toUnixTimestamp(bucket) AS t, usd, buy_usd, sell_usd FROM alpha_token_candles_1d FINAL
       WHERE token_id = {id:String} AND bucket < ${at('day')} AND deleted = 0
       UNION ALL
       SELECT toUnixTimestamp(bucket) AS t, usd, buy_usd, sell_usd FROM alpha_token_candles_1h FINAL
       WHERE token_id = {id:String} AND bucket >= ${at('day')} AND bucket < ${at('hour')} AND deleted = 0
       UNION ALL
       SELECT toUnixTimestamp(bucket) AS t, usd, buy_usd, sell_usd FROM alpha_token_candles_1m FINAL
       WHERE token_id = {id:String} AND bucket >= ${at('hour')} AND bucket < ${at('minute')} AND deleted = 0
       UNION ALL
       SELECT {minute:UInt32} AS t, sum(fill_usd) AS usd, sumIf(fill_usd, side = 'BUY') AS buy_usd,
         sumIf(fill_usd, side = 'SELL') AS sell_usd
       FROM (SELECT usd AS fill_usd, side FROM alpha_fills
             WHERE token_id = {id:String} AND role = 'maker' AND block_time >= ${at('minute')}
               AND block_time < fromUnixTimestamp64Milli({until_ms:Int64}, 'UTC'))
       HAVING count() > 0
     ) ORDER BY t`,
    {
      id: tokenId,
      day: clampSeconds(day),
      hour: clampSeconds(hour),
      minute: clampSeconds(minute),
      until_ms: (clampSeconds(end) + 1) * 1000,
    },
  );
  if (raw.length === 0) await requireSeen(ch, { level: 'token', id: tokenId });
  const amounts = raw.map((v) => {
    const r = TOKEN_VOLUME.zip(v);
    return [r.t, Number(r.usd), Number(r.buy_usd), Number(r.sell_usd)] as const;
  });
  const points =
    g === 'all' ? total(amounts, end) : cumulative(amounts, { period: g, start: q.start_time, end });
  const volume_over_time = points.map(({ timestamp, sums: [usd, buy, sell] }) => ({
    timestamp,
    volume: usdOf(usd!),
    buy_volume: usdOf(buy!),
    sell_volume: usdOf(sell!),
  }));
  return {
    token_id: tokenId,
    granularity: g,
    start_time: volume_over_time[0]?.timestamp ?? q.start_time ?? end,
    end_time: volume_over_time[volume_over_time.length - 1]?.timestamp ?? end,
    volume_over_time,
  };
}
