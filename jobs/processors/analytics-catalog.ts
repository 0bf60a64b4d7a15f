/**
 * `analytics.alpha-catalog-rollups` (queue `analytics`): rebuilds venue alpha's catalog lists
 * (analytics/catalog/; docs/catalog.md "Derived lists") under a Redis lease of its own. Enqueued after
 * every catalog sync (open and full), book sync and analytics run (market data, rolling) through
 * `enqueueCatalogRollups`, whose job id names a slot of ANALYTICS_CATALOG_COALESCE_S seconds (10): a burst
 * of triggers within a slot is one job (BullMQ ignores an add whose id exists); also every
 * ANALYTICS_CATALOG_INTERVAL_S as a safety net.
 *
 * Triggers that arrive while a build runs coalesce into one more build: a job first marks the lists
 * stale (a Redis flag), then takes the lease; the build clears the flag when it starts reading. A job that
 * finds the lease taken completes at once — the holder sees the flag after its build and builds again
 * (at most MAX_BUILDS_PER_JOB times per job; a flag left set is taken by the next trigger or schedule).
 */
import { buildAlphaCatalogLists, type CatalogBuildSummary } from '../../analytics/catalog/build.ts';
import { analyticsConfig } from '../../analytics/config.ts';
import { createDataVersions } from '../../core/data-version.ts';
import type { Deps } from '../../core/deps.ts';
import { withLease } from '../../core/lease.ts';
import { defineJob, type JobContext } from '../define.ts';
import type { Schedule } from '../schedules.ts';

export const ALPHA_CATALOG_ROLLUPS_LEASE = 'analytics:alpha-catalog:lease';
/** Set by a trigger, cleared by the build that starts after it. */
export const ALPHA_CATALOG_STALE = 'analytics:alpha-catalog:stale';
const MAX_BUILDS_PER_JOB = 3;

export interface CatalogRollupsPayload {
  /** What asked for the build. */
  reason: 'schedule' | 'catalog-sync' | 'book-sync' | 'analytics' | 'manual';
  /** The coalescing slot (Unix ms ÷ the slot's length) of a triggered build. */
  slot?: number;
}

export type CatalogRollupsResult = { ran: false } | ({ ran: true } & CatalogBuildSummary);

/** Rebuilds the lists under the lease (clearing the stale flag first); null when another build holds it. */
export function buildCatalogUnderLease(deps: Deps, log: Deps['log'] = deps.log) {
  return withLease(deps.redis, ALPHA_CATALOG_ROLLUPS_LEASE, 60_000, async () => {
    await deps.redis.del(ALPHA_CATALOG_STALE);
    return buildAlphaCatalogLists({
      clickhouse: deps.clickhouse,
      log,
      versions: createDataVersions({ redis: deps.redis }),
    });
  });
}

export const alphaCatalogRollupsJob = defineJob<CatalogRollupsPayload, CatalogRollupsResult>({
  name: 'analytics.alpha-catalog-rollups',
  queue: 'analytics',
  attempts: 3,
  jobId: (p) => `analytics:alpha-catalog-rollups:${p.slot ?? 'now'}`,
  async process({ deps, log }) {
    await deps.redis.set(ALPHA_CATALOG_STALE, '1');
    let last: CatalogBuildSummary | null = null;
    for (let builds = 0; builds < MAX_BUILDS_PER_JOB; builds++) {
      const summary = await buildCatalogUnderLease(deps, log);
      // Taken: the holder builds again once it finished (the flag is set).
      if (!summary) break;
      last = summary;
      if (!(await deps.redis.exists(ALPHA_CATALOG_STALE))) break;
    }
    return last ? { ran: true, ...last } : { ran: false };
  },
});

/** Asks for a rebuild of the catalog lists (coalesced with the other triggers of the same slot). */
export function enqueueCatalogRollups(
  ctx: Pick<JobContext<unknown>, 'enqueue' | 'deps'>,
  reason: CatalogRollupsPayload['reason'],
): Promise<string | undefined> {
  const slotMs = analyticsConfig.of(ctx.deps.config).catalogCoalesceS * 1000;
  return ctx.enqueue(alphaCatalogRollupsJob, { reason, slot: Math.floor(Date.now() / slotMs) });
}

export const CATALOG_ROLLUP_SCHEDULES: readonly Schedule[] = [
  {
    id: 'analytics:alpha-catalog-rollups',
    job: alphaCatalogRollupsJob as never,
    everyMs: (c) => analyticsConfig.of(c).catalogIntervalS * 1000,
    payload: { reason: 'schedule' },
  },
];
