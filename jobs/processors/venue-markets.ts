/**
 * The markets job of a REST venue whose upstream has one markets stream (gamma, delta, epsilon):
 * `<venue>.markets` (queue `venues`) with `poll` every VENUE_MARKETS_POLL_S and `reconcile` (a full listing)
 * every VENUE_RECONCILE_S, both under one Redis lease (`<venue>:markets:lease`, the same tables): a poll that
 * finds it held completes at once (the next comes within one interval); a reconciliation that finds it held
 * fails retryable, so the queue's backoff runs it after the poll instead of VENUE_RECONCILE_S later. A run
 * that wrote rows enqueues the venue's canonical ids (`venues.canonical`).
 */
import { RetryableError } from '../../core/errors.ts';
import { withLease } from '../../core/lease.ts';
import type { CanonicalVenue } from '../../ingest/canonical/served.ts';
import { venuesConfig } from '../../ingest/rest/config.ts';
import type { Schedule } from '../define.ts';
import { type AnyJob, defineJob, type JobContext, type JobDefinition } from '../define.ts';
import { enqueueCanonical } from './canonical.ts';

export type VenueSyncMode = 'poll' | 'reconcile';

export interface VenueSyncPayload {
  mode: VenueSyncMode;
}

/** What a venue's sync reports that the job needs. */
export interface VenueSyncCounts {
  written: number;
  events: { written: number };
}

export type VenueSyncResult<S> = { ran: false } | { ran: true; summary: S };

/** Lease time, renewed while the sync runs. */
const LEASE_MS = 60_000;

export const venueMarketsLease = (venue: string) => `${venue}:markets:lease`;

export function venueMarketsJobs<S extends VenueSyncCounts>(
  venue: CanonicalVenue,
  sync: (ctx: JobContext<VenueSyncPayload>, mode: VenueSyncMode) => Promise<S>,
): {
  job: JobDefinition<VenueSyncPayload, VenueSyncResult<S>>;
  jobs: AnyJob[];
  schedules: Schedule[];
} {
  const lease = venueMarketsLease(venue);
  const job = defineJob<VenueSyncPayload, VenueSyncResult<S>>({
    name: `${venue}.markets`,
    queue: 'venues',
    attempts: 5,
    async process(ctx) {
      const { deps, job: j, log, enqueue } = ctx;
      const summary = await withLease(deps.redis, lease, LEASE_MS, () => sync(ctx, j.data.mode));
      if (summary) {
        await enqueueCanonical(enqueue, venue, summary.written + summary.events.written);
        return { ran: true, summary };
      }
      if (j.data.mode === 'reconcile') {
        throw new RetryableError(
          `The ${venue} markets lease is held (a poll is running); the reconciliation retries`,
        );
      }
      log.info({ lease }, `The ${venue} markets lease is held; this poll is skipped`);
      return { ran: false };
    },
  });
  return {
    job,
    jobs: [job],
    schedules: [
      {
        id: `${venue}:markets-poll`,
        job,
        everyMs: (c) => venuesConfig.of(c).marketsPollS * 1000,
        payload: { mode: 'poll' } satisfies VenueSyncPayload,
      },
      {
        id: `${venue}:reconcile`,
        job,
        everyMs: (c) => venuesConfig.of(c).reconcileS * 1000,
        payload: { mode: 'reconcile' } satisfies VenueSyncPayload,
      },
    ],
  };
}
