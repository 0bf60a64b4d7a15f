/**
 * Venue alpha's market analytics jobs (analytics/; docs/analytics.md), queue `analytics`:
 * - `analytics.alpha-market-data`, every ANALYTICS_INTERVAL_S: the incremental run (candles, open
 *   interest, totals) up to the chain's contiguous progress; with a `range` payload (enqueued by a
 *   finished backfill range) a recompute of that range's buckets, also below the checkpoint.
 * - `analytics.alpha-rolling`, every ANALYTICS_ROLLING_INTERVAL_S and after the market data caught up.
 * Range recomputes carry no job id: a range backfilled again (`backfill --force`) is recomputed again,
 * and a duplicate only repeats idempotent work. One Redis lease keeps every analytics run of alpha to one at a time across processes: a scheduled run
 * that finds it taken completes at once (the next one comes within an interval); a range recompute
 * retries later.
 */
import { analyticsConfig } from '../../analytics/config.ts';
import { type MarketDataRun, recomputeMarketData, runMarketData } from '../../analytics/market-data/run.ts';
import { runRolling } from '../../analytics/rolling-metrics/run.ts';
import type { AlphaAnalyticsSettings } from '../../analytics/shared/settings.ts';
import type { Config } from '../../core/config.ts';
import { createDataVersions } from '../../core/data-version.ts';
import type { Deps } from '../../core/deps.ts';
import { RetryableError } from '../../core/errors.ts';
import { withLease } from '../../core/lease.ts';
import { alphaChainSettings } from '../../ingest/venues/alpha/chain/settings.ts';
import { defineJob } from '../define.ts';
import type { Schedule } from '../schedules.ts';
import { enqueueCatalogRollups } from './analytics-catalog.ts';

export const ALPHA_ANALYTICS_LEASE = 'analytics:alpha:lease';

/** What the analytics need of alpha's chain settings. */
export function alphaAnalyticsSettings(config: Config): AlphaAnalyticsSettings {
  const chain = alphaChainSettings(config);
  return {
    chainId: chain.chainId,
    usdcE: chain.roles.usdcE.toLowerCase(),
    finalityDepth: chain.finalityDepth,
  };
}

/** Runs `fn` under the analytics lease; null when another process holds it. */
export function withAnalyticsLease<T>(deps: Deps, fn: () => Promise<T>): Promise<T | null> {
  return withLease(deps.redis, ALPHA_ANALYTICS_LEASE, 60_000, fn);
}

/** What the analytics runs take: the engine, a logger, and the data versions they bump. */
export const analyticsDeps = (deps: Deps, log: Deps['log'] = deps.log) => ({
  clickhouse: deps.clickhouse,
  log,
  versions: createDataVersions({ redis: deps.redis }),
});

export interface AlphaRollingPayload {
  reason?: 'schedule' | 'catch-up';
}

export const alphaRollingJob = defineJob<AlphaRollingPayload, { ran: boolean; computedAt?: string }>({
  name: 'analytics.alpha-rolling',
  queue: 'analytics',
  attempts: 3,
  async process({ deps, log, enqueue }) {
    const result = await withAnalyticsLease(deps, () =>
      runRolling(analyticsDeps(deps, log), alphaAnalyticsSettings(deps.config)),
    );
    if (result) await enqueueCatalogRollups({ enqueue, deps }, 'analytics');
    return result ? { ran: true, computedAt: new Date(result.computedAt).toISOString() } : { ran: false };
  },
});

export interface AlphaMarketDataPayload {
  /** A backfilled block range whose buckets are recomputed (absent: the incremental run). */
  range?: { from: number; to: number };
}

/** A run that covered more than one step (or recomputed a span) caught up: the rolling metrics follow. */
const caughtUp = (run: MarketDataRun) => run.mode !== 'idle' && (run.mode !== 'incremental' || run.steps > 1);

export const alphaMarketDataJob = defineJob<AlphaMarketDataPayload, MarketDataRun | { ran: false }>({
  name: 'analytics.alpha-market-data',
  queue: 'analytics',
  attempts: 10,
  async process({ deps, job, log, enqueue }) {
    const settings = alphaAnalyticsSettings(deps.config);
    const { range } = job.data;
    const run = await withAnalyticsLease(deps, () =>
      range
        ? recomputeMarketData(analyticsDeps(deps, log), settings, {
            fromBlock: range.from,
            toBlock: range.to,
          })
        : runMarketData(analyticsDeps(deps, log), settings),
    );
    if (!run) {
      // A range must not be lost: try again once the running analytics finished.
      if (range) throw new RetryableError('Another analytics run holds the lease; retrying the range later');
      return { ran: false };
    }
    if (caughtUp(run)) await enqueue(alphaRollingJob, { reason: 'catch-up' });
    if (!range && run.mode !== 'idle') await enqueueCatalogRollups({ enqueue, deps }, 'analytics');
    return run;
  },
});

export const ANALYTICS_SCHEDULES: readonly Schedule[] = [
  {
    id: 'analytics:alpha-market-data',
    job: alphaMarketDataJob as never,
    everyMs: (c) => analyticsConfig.of(c).intervalS * 1000,
    payload: {},
  },
  {
    id: 'analytics:alpha-rolling',
    job: alphaRollingJob as never,
    everyMs: (c) => analyticsConfig.of(c).rollingIntervalS * 1000,
    payload: { reason: 'schedule' },
  },
];
