/**
 * The job of a venue's long-running feed (ingest/feed.ts), derived from its declaration in the venue's
 * unit (`defineVenue`'s `feeds`): `<code>.<name>` on queue `venues`, one attempt, enqueued every
 * `everyMs` by the schedule `<code>:<name>`. A run takes the feed's lease (renewed while it runs): when
 * another process holds it the run completes at once (`{ran: false}`); else it reads until the worker
 * shuts down (the feed flushes what it read and the run completes: the next scheduled run resumes it on
 * whichever worker is up) or the lease is lost (the feed stops at once and writes nothing more: another
 * holder may be writing), then releases the lease. A crashed holder's lease expires after FEED_LEASE_MS and
 * the next scheduled run takes over: at most one reader across processes, a gap of at most one interval.
 */
import { acquireLease } from '../../core/lease.ts';
import type { FeedDefinition } from '../../ingest/feed.ts';
import type { VenueDefinition } from '../../ingest/rest/runner.ts';
import { defineJob, type JobDefinition, type Schedule, schedule } from '../define.ts';

/** The feed's lease time, renewed every third of it while the run holds it. */
export const FEED_LEASE_MS = 30_000;

export interface FeedPayload {
  /** Stops the run after this long (ms; tests). Absent: until shutdown or the lease is lost. */
  maxRunMs?: number;
}

export type FeedResult<S = unknown> = { ran: false } | { ran: true; lost: boolean; summary: S };

export interface FeedJobs<S = unknown> {
  job: JobDefinition<FeedPayload, FeedResult<S>>;
  schedules: Schedule[];
}

export function venueFeedJobs<S>(venue: VenueDefinition, feed: FeedDefinition<S>): FeedJobs<S> {
  const job = defineJob<FeedPayload, FeedResult<S>>({
    name: `${venue.code}.${feed.name}`,
    queue: 'venues',
    attempts: 1,
    async process({ deps, job: j, log, signal }) {
      const lostLease = new AbortController();
      const lease = await acquireLease(deps.redis, feed.lease, FEED_LEASE_MS, () => lostLease.abort());
      if (!lease.held) return { ran: false };
      const stop = AbortSignal.any([signal, lostLease.signal]);
      try {
        const summary = await feed.run(
          { ...deps, log },
          {
            signal: stop,
            leaseLost: () => lostLease.signal.aborted,
            ...(j.data.maxRunMs === undefined ? {} : { maxRunMs: j.data.maxRunMs }),
          },
        );
        const lost = lostLease.signal.aborted;
        log[lost ? 'warn' : 'info'](
          { lease: feed.lease, summary },
          lost
            ? `Stopped the ${venue.code} ${feed.name}: its lease was lost`
            : `Stopped the ${venue.code} ${feed.name}`,
        );
        return { ran: true, lost, summary };
      } finally {
        await lease.release();
      }
    },
  });
  return {
    job,
    schedules: [schedule<FeedPayload>(`${venue.code}:${feed.name}`, job, (c) => feed.everyMs(c), {})],
  };
}
