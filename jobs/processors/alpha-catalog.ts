/**
 * `alpha.catalog-sync` (queue `venues`): venue alpha's catalog from its metadata API, the streams
 * `catalog` and `markets` of its definition (ingest/venues/alpha/index.ts, run by ingest/rest/runner.ts). `open`: the open events with their markets every
 * ALPHA_CATALOG_INTERVAL_S, then the markets of conditions prepared on chain that the catalog does not
 * hold yet (by condition id), so a new market has its metadata within one interval; `full`: closed events,
 * tags, related tags and series too, at start and every ALPHA_CATALOG_FULL_INTERVAL_S. A Redis lease keeps
 * one sync at a time across processes: a run that finds it taken completes at once.
 */

import { withLease } from '../../core/lease.ts';
import { assignCanonical } from '../../ingest/canonical/assign.ts';
import { runStream, streamOf } from '../../ingest/rest/runner.ts';
import { ALPHA_CATALOG_LEASE, alpha, type CatalogSyncSummary } from '../../ingest/venues/alpha/index.ts';
import { defineJob, type Schedule, schedule } from '../define.ts';
import { enqueueAfterCommit } from '../products.ts';

/** Most conditions fetched by id per run (the rest come in the next runs). */
const MISSING_PER_RUN = 1_000;

export interface AlphaCatalogPayload {
  mode: 'full' | 'open';
}

export type AlphaCatalogResult =
  | { ran: false }
  | { ran: true; summary: CatalogSyncSummary; missingConditions: number };

export const alphaCatalogJob = defineJob<AlphaCatalogPayload, AlphaCatalogResult>({
  name: 'alpha.catalog-sync',
  queue: 'venues',
  attempts: 3,
  async process({ deps, job, log, enqueue }) {
    const started = Date.now();
    const run = await withLease(deps.redis, ALPHA_CATALOG_LEASE, 60_000, async () => {
      const summary = await runStream(alpha, 'catalog', { ...deps, log }, { mode: job.data.mode });
      // Conditions prepared on chain without metadata yet: fetched by id.
      const missing = await deps.clickhouse.query<{ condition_id: string }>(
        'alpha.catalog.missing',
        `SELECT DISTINCT condition_id FROM alpha_lifecycle
         WHERE kind = 'condition_prepared' AND condition_id NOT IN (SELECT condition_id FROM alpha_markets)
         LIMIT {limit:UInt32}`,
        { limit: MISSING_PER_RUN },
      );
      let missingWritten = 0;
      if (missing.length > 0) {
        const filled = await runStream(
          alpha,
          'markets',
          { ...deps, log },
          { mode: 'byId', options: { conditionIds: missing.map((r) => r.condition_id) } },
        );
        missingWritten = filled.written;
      }
      // Canonical ids of the outcomes the sync wrote, before the build that serves them.
      if (summary.markets.written + summary.events.written + missingWritten > 0) {
        await assignCanonical({ ...deps, log }, 'alpha');
      }
      log.info({ ...summary, missingConditions: missing.length }, 'Synced alpha catalog');
      return { ran: true as const, summary, missingConditions: missing.length };
    });
    // The catalog moved (the sync committed its `catalog` mark): the products that read it follow (the
    // catalog lists).
    if (run)
      await enqueueAfterCommit(
        { enqueue, deps },
        { source: alpha.source, stream: 'catalog', kind: 'head' },
        started,
      );
    return run ?? { ran: false };
  },
});

/** `alpha:catalog-open` and `alpha:catalog-full`: the `catalog` stream's schedules. */
export const CATALOG_SCHEDULES: readonly Schedule[] = streamOf(alpha, 'catalog').every.map((e) =>
  schedule(e.id, alphaCatalogJob, e.everyMs, { mode: e.mode as 'open' | 'full' }),
);
