/**
 * `GET /v2/alpha/markets/{condition_id}/open_interest` (interface-shapes §11): a condition's open
 * interest (USD) at the end of each day, week, month or year, from the hourly changes of
 * alpha_oi_deltas_1h FINAL (OI at T = Σ delta of the hours that start at or before T: the hour is the
 * resolution). One point per period from the period of the first change, carried forward through periods
 * without one, the last one holding the OI at end_time (default now), not at its period's end; `all`: one
 * point at end_time with the OI at it. `market_id`: the
 * condition's market in alpha's catalog (alpha_markets, through the app's market resolver,
 * api/markets.ts), null when the catalog does not know it.
 */
import type { ClickHouse } from '../../../core/clickhouse/index.ts';
import { expression, fields } from '../../../core/clickhouse/table.ts';
import { alphaNowSeconds } from '../../../core/now.ts';
import type { OpenInterestResponse, SeriesQuery } from '../../../schemas/api/alpha-market-data.ts';
import type { MarketSlugResolver } from '../../markets.ts';
import {
  at,
  clampSeconds,
  cumulative,
  DAY,
  HOUR,
  periodStart,
  requireSeen,
  total,
  usdOf,
} from './market-data.ts';
import { seriesEnd } from './volume.ts';

/** A day's OI change as read: its start (UInt64 of the arithmetic) and Σ delta (Int64): decimal strings. */
const DAY_DELTA = fields({
  day: expression<string>(`intDiv(toUnixTimestamp(bucket), ${DAY}) * ${DAY} AS day`),
  delta: expression<string>('sum(delta)'),
});

export async function alphaOpenInterest(
  ch: ClickHouse,
  markets: Pick<MarketSlugResolver, 'marketId'>,
  conditionId: string,
  q: SeriesQuery,
): Promise<OpenInterestResponse> {
  const g = q.granularity ?? 'day';
  const end = seriesEnd(q, await alphaNowSeconds(ch));
  // Nothing after end's hour (the finest OI rows are hourly): the last point holds the OI at end, as `all`.
  const until = clampSeconds(periodStart(end, 'hour') + HOUR);
  // Summed per day in the engine (a busy condition has an hourly row for most hours of its life).
  const raw = await ch.read(
    'api.alpha.open_interest',
    `SELECT ${DAY_DELTA.sql}
     FROM (SELECT bucket, delta FROM alpha_oi_deltas_1h FINAL
           WHERE condition_id = {id:String} AND bucket < ${at('until')} AND deleted = 0)
     GROUP BY day ORDER BY day`,
    { id: conditionId, until },
  );
  if (raw.length === 0) await requireSeen(ch, { level: 'condition', id: conditionId });
  const deltas = raw.map((v) => {
    const r = DAY_DELTA.zip(v);
    return [Number(r.day), Number(r.delta)] as const;
  });
  const points =
    g === 'all' ? total(deltas, end) : cumulative(deltas, { period: g, start: q.start_time, end });
  const open_interest_over_time = points.map(({ timestamp, sums: [oi] }) => ({
    timestamp,
    open_interest_usd: usdOf(oi!),
  }));
  return {
    condition_id: conditionId,
    market_id: (await markets.marketId?.(conditionId)) ?? null,
    granularity: g,
    start_time: open_interest_over_time[0]?.timestamp ?? q.start_time ?? end,
    end_time: open_interest_over_time[open_interest_over_time.length - 1]?.timestamp ?? end,
    open_interest_over_time,
  };
}
