/**
 * `analytics.alpha-catalog-rollups` (queue `analytics`): rebuilds venue alpha's catalog lists
 * (analytics/catalog/; docs/catalog.md "Derived lists") under a Redis lease of its own. Enqueued after
 * every catalog sync (open and full), book sync and analytics run (market data, rolling) through
 * `enqueueCatalogRollups`, whose job id names a 10-second slot: a burst of triggers within a slot is one
 * job (BullMQ ignores an add whose id exists). A triggered build that finds the lease taken retries
 * later, so a change made during a build is built after it; the safety schedule (every
 * ANALYTICS_CATALOG_INTERVAL_S) completes at once instead.
 */
import { buildAlphaCatalogLists, type CatalogBuildSummary } from '../../analytics/catalog/build.ts';
import { analyticsConfig } from '../../analytics/config.ts';
import { createDataVersions } from '../../core/data-version.ts';
import type { Deps } from '../../core/deps.ts';
import { RetryableError } from '../../core/errors.ts';
import { withLease } from '../../ingest/chain/lease.ts';
import { defineJob, type JobContext } from '../define.ts';
import type { Schedule } from '../schedules.ts';

export const ALPHA_CATALOG_ROLLUPS_LEASE = 'analytics:alpha-catalog:lease';
/** Triggers within one slot of this many ms coalesce into one build. */
export const ROLLUPS_COALESCE_MS = 10_000;

export interface CatalogRollupsPayload {
  /** What asked for the build. */
  reason: 'schedule' | 'catalog-sync' | 'book-sync' | 'analytics' | 'manual';
  /** The coalescing slot (Unix ms ÷ ROLLUPS_COALESCE_MS) of a triggered build. */
  slot?: number;
}

export type CatalogRollupsResult = { ran: false } | ({ ran: true } & CatalogBuildSummary);

/** Rebuilds the lists under the lease; null when another build holds it. */
export function buildCatalogUnderLease(deps: Deps, log: Deps['log'] = deps.log) {
  return withLease(deps.redis, ALPHA_CATALOG_ROLLUPS_LEASE, 60_000, () =>
    buildAlphaCatalogLists({
      clickhouse: deps.clickhouse,
      log,
      versions: createDataVersions({ redis: deps.redis }),
    }),
  );
}

export const alphaCatalogRollupsJob = defineJob<CatalogRollupsPayload, CatalogRollupsResult>({
  name: 'analytics.alpha-catalog-rollups',
  queue: 'analytics',
  attempts: 8,
  jobId: (p) => `analytics:alpha-catalog-rollups:${p.slot ?? 'now'}`,
  async process({ deps, job, log }) {
    const summary = await buildCatalogUnderLease(deps, log);
    if (summary) return { ran: true, ...summary };
    if (job.data.reason === 'schedule') return { ran: false };
    throw new RetryableError('Another catalog build holds the lease; building again after it');
  },
});

/** Asks for a rebuild of the catalog lists (coalesced with the other triggers of the same slot). */
export function enqueueCatalogRollups(
  enqueue: JobContext<unknown>['enqueue'],
  reason: CatalogRollupsPayload['reason'],
): Promise<string | undefined> {
  return enqueue(alphaCatalogRollupsJob, { reason, slot: Math.floor(Date.now() / ROLLUPS_COALESCE_MS) });
}

export const CATALOG_ROLLUP_SCHEDULES: readonly Schedule[] = [
  {
    id: 'analytics:alpha-catalog-rollups',
    job: alphaCatalogRollupsJob as never,
    everyMs: (c) => analyticsConfig.of(c).catalogIntervalS * 1000,
    payload: { reason: 'schedule' },
  },
];
