/**
 * The jobs and schedules of a venue's streams (jobs/venues.ts declares the venues and their streams): one
 * job `<venue>.<stream>` (queue `venues`) per stream, with the stream's attempts, run under the stream's
 * Redis lease (a reconciliation also under `reconcileLeases`, the tables it writes besides). A stream with
 * several modes takes `{mode}` as its payload (`poll` every VENUE_MARKETS_POLL_S, `reconcile`, a full
 * listing, every VENUE_RECONCILE_S), a stream with one mode `{}`. A poll that finds a lease held completes
 * at once (`{ran: false}`; the next comes within one interval); a reconciliation that finds one held fails
 * retryable, so the queue's backoff runs it after the poll instead of VENUE_RECONCILE_S later. A run whose
 * stream feeds the canonical ids and that wrote such rows enqueues the venue's canonical ids
 * (`venues.canonical`, canonical.ts). Schedule ids: `<venue>:<stream>-<mode>`, a reconciliation
 * `<venue>:reconcile`.
 */
import type { Config } from '../../core/config.ts';
import type { Deps } from '../../core/deps.ts';
import { RetryableError } from '../../core/errors.ts';
import type { CanonicalVenue } from '../../ingest/canonical/served.ts';
import { withLease } from '../../ingest/chain/lease.ts';
import { defineJob, type JobDefinition } from '../define.ts';
import type { Schedule } from '../schedules.ts';
import { enqueueCanonical } from './canonical.ts';

export type VenueSyncMode = 'poll' | 'reconcile';

export interface VenueSyncPayload {
  mode: VenueSyncMode;
}

export type VenueSyncResult<S> = { ran: false } | { ran: true; summary: S };

/** A job as the worker and the scheduler take it, whatever its payload and result. */
export type VenueJob = JobDefinition<never, unknown>;

/** A stream's job: its payload `{mode}` (`{}` for a stream with one mode), its result the run's summary. */
export type StreamJob<S = unknown> = JobDefinition<Partial<VenueSyncPayload>, VenueSyncResult<S>>;

/** One stream of a venue: what its job runs, under which leases, how often. */
export interface VenueStream<S = unknown> {
  /** The stream's name: the job is `<venue>.<name>`, its lease `<venue>:<name>:lease`. */
  name: string;
  /** Its modes: the first is the poll's; more than one: the payload says which. */
  modes: readonly VenueSyncMode[];
  /** Attempts for retryable failures. */
  attempts: number;
  /** Leases a reconciliation holds besides the stream's own (the tables it writes that another stream owns). */
  reconcileLeases?: readonly string[];
  /** Seconds between two runs of each mode. */
  every: readonly { mode: VenueSyncMode; everyMs(config: Config): number }[];
  /** One run of the stream. */
  run(deps: Deps, mode: VenueSyncMode): Promise<S>;
  /** Rows written that the canonical ids derive from (markets, events); none: the stream feeds no ids. */
  canonicalWrites?(summary: S): number;
}

/** A stream's lease: `<venue>:<stream>:lease`. */
export const venueStreamLease = (venue: string, stream: string) => `${venue}:${stream}:lease`;

/** Lease time, renewed while the sync runs. */
const LEASE_MS = 60_000;

/** The job of `venue`'s stream. */
export function venueStreamJob<S>(venue: CanonicalVenue, stream: VenueStream<S>): StreamJob<S> {
  const lease = venueStreamLease(venue, stream.name);
  return defineJob<Partial<VenueSyncPayload>, VenueSyncResult<S>>({
    name: `${venue}.${stream.name}`,
    queue: 'venues',
    attempts: stream.attempts,
    async process({ deps, job, log, enqueue }) {
      const mode = stream.modes.length > 1 ? (job.data.mode ?? stream.modes[0]!) : stream.modes[0]!;
      const leases = [lease, ...(mode === 'reconcile' ? (stream.reconcileLeases ?? []) : [])];
      const run = () => stream.run({ ...deps, log }, mode);
      const held = (i: number): Promise<S | null> =>
        i === leases.length - 1
          ? withLease(deps.redis, leases[i]!, LEASE_MS, run)
          : withLease(deps.redis, leases[i]!, LEASE_MS, async () => await held(i + 1)).then((r) => r ?? null);
      const summary = await held(0);
      if (summary) {
        if (stream.canonicalWrites) await enqueueCanonical(enqueue, venue, stream.canonicalWrites(summary));
        return { ran: true, summary };
      }
      if (mode === 'reconcile') {
        throw new RetryableError(
          leases.length > 1
            ? `A ${venue} lease is held (a poll is running); the reconciliation retries`
            : `The ${venue} ${stream.name} lease is held (a poll is running); the reconciliation retries`,
        );
      }
      log.info({ lease }, `The ${venue} ${stream.name} lease is held; this poll is skipped`);
      return { ran: false };
    },
  });
}

/** The schedules of `venue`'s stream, one per mode, on `job` (venueStreamJob's). */
export function venueStreamSchedules(venue: string, stream: VenueStream<unknown>, job: VenueJob): Schedule[] {
  return stream.every.map((e) => ({
    id: e.mode === 'reconcile' ? `${venue}:reconcile` : `${venue}:${stream.name}-${e.mode}`,
    job,
    everyMs: e.everyMs,
    payload: stream.modes.length > 1 ? ({ mode: e.mode } satisfies VenueSyncPayload) : {},
  }));
}
