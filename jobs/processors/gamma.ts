/**
 * `gamma.markets` (queue `venues`): venue gamma's markets and groups (ingest/venues/gamma/sync.ts).
 * `poll` every VENUE_MARKETS_POLL_S: the active list, the entries it missed, and the stored markets that
 * left it, read by slug until resolved; `reconcile` every VENUE_RECONCILE_S: the same, always checking the
 * active list against `/markets/active/slugs`.
 *
 * Both modes write the same tables and take one Redis lease (`gamma:markets:lease`): a poll that finds it
 * taken completes at once (the next poll comes within one interval); a reconciliation that finds it taken
 * fails retryable, so it runs once the poll is done (the job's backoff), instead of waiting a whole
 * VENUE_RECONCILE_S. The lead wires `GAMMA_JOBS` and `GAMMA_SCHEDULES` into jobs/registry.ts and
 * jobs/schedules.ts.
 */
import { RetryableError } from '../../core/errors.ts';
import { withLease } from '../../ingest/chain/lease.ts';
import { venuesConfig } from '../../ingest/rest/config.ts';
import { type GammaSyncMode, type GammaSyncSummary, syncGamma } from '../../ingest/venues/gamma/sync.ts';
import { defineJob, type JobDefinition } from '../define.ts';
import type { Schedule } from '../schedules.ts';
import { enqueueCanonical } from './canonical.ts';

export const GAMMA_LEASE = 'gamma:markets:lease';
/** Lease time, renewed while the sync runs. */
const LEASE_MS = 60_000;

export interface GammaSyncPayload {
  mode: GammaSyncMode;
}

export type GammaSyncResult = { ran: false } | { ran: true; summary: GammaSyncSummary };

export const gammaSyncJob = defineJob<GammaSyncPayload, GammaSyncResult>({
  name: 'gamma.markets',
  queue: 'venues',
  attempts: 5,
  async process({ deps, job, log, enqueue }) {
    const summary = await withLease(deps.redis, GAMMA_LEASE, LEASE_MS, () =>
      syncGamma({ ...deps, log }, { mode: job.data.mode }),
    );
    if (summary) {
      await enqueueCanonical(enqueue, 'gamma', summary.written + summary.events.written);
      return { ran: true, summary };
    }
    if (job.data.mode === 'reconcile') {
      throw new RetryableError(
        'The gamma markets lease is held (a poll is running); the reconciliation retries',
      );
    }
    log.info({ lease: GAMMA_LEASE }, 'The gamma markets lease is held; this poll is skipped');
    return { ran: false };
  },
});

export const GAMMA_JOBS: readonly JobDefinition<never, unknown>[] = [
  gammaSyncJob as JobDefinition<never, unknown>,
];

export const GAMMA_SCHEDULES: readonly Schedule[] = [
  {
    id: 'gamma:markets-poll',
    job: gammaSyncJob as JobDefinition<never, unknown>,
    everyMs: (c) => venuesConfig.of(c).marketsPollS * 1000,
    payload: { mode: 'poll' } satisfies GammaSyncPayload,
  },
  {
    id: 'gamma:reconcile',
    job: gammaSyncJob as JobDefinition<never, unknown>,
    everyMs: (c) => venuesConfig.of(c).reconcileS * 1000,
    payload: { mode: 'reconcile' } satisfies GammaSyncPayload,
  },
];
