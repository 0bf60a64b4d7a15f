/**
 * The job of one stream of a REST venue, derived from its definition (ingest/rest/runner.ts
 * `defineVenue`): `<code>.<stream>` (or the stream's `job`) on queue `venues`, one schedule per entry of
 * the stream's `every` (payload `{mode}` unless the entry says otherwise), the run under the stream's
 * leases (`<code>:markets:lease`, …). A scheduled run that finds a lease held completes at once (the next
 * comes within one interval), or, in a mode the stream marks `retry` (a reconciliation), fails retryable,
 * so the queue's backoff runs it after the holder instead of a whole interval later. A run whose rows may
 * change canonical ids (the stream's `canonical`) enqueues the venue's assignment (`venues.canonical`).
 * The list of venues (jobs/venues.ts) makes every venue's jobs and schedules with it.
 *
 * Until venue beta is declared for the runner, its streams run its sync.ts functions through
 * `syncStreamJob` (below), the same job shape: `VenueSyncStream` states what `defineStream` would.
 */
import type { Config } from '../../core/config.ts';
import type { Deps } from '../../core/deps.ts';
import { RetryableError } from '../../core/errors.ts';
import { withLease } from '../../core/lease.ts';
import {
  type AnyStream,
  runStream,
  type StreamSummary,
  streamOf,
  type VenueDefinition,
} from '../../ingest/rest/runner.ts';
import type { CanonicalVenue } from '../../schemas/venues/index.ts';
import { defineJob, type JobDefinition } from '../define.ts';
import type { Schedule } from '../schedules.ts';
import { enqueueCanonical } from './canonical.ts';

export interface StreamPayload {
  /** The stream's mode (default its first). */
  mode?: string;
}

export type StreamResult<S = StreamSummary> = { ran: false } | { ran: true; summary: S };

export interface StreamJobs<S = StreamSummary> {
  job: JobDefinition<StreamPayload, StreamResult<S>>;
  jobs: JobDefinition<never, unknown>[];
  schedules: Schedule[];
}

/** The job and schedules of `venue`'s stream `name`. */
export function venueStreamJobs<S extends StreamSummary = StreamSummary>(
  venue: VenueDefinition,
  name: string,
): StreamJobs<S> {
  const stream: AnyStream = streamOf(venue, name);
  const job = defineJob<StreamPayload, StreamResult<S>>({
    name: stream.job ?? `${venue.code}.${name}`,
    queue: 'venues',
    attempts: stream.attempts ?? 5,
    async process({ deps, job: j, log, enqueue }) {
      const mode = j.data.mode ?? (stream.modes[0] as string);
      const summary = (await runStream(venue, name, { ...deps, log }, { mode, lease: 'skip' })) as S | null;
      if (summary) {
        const changed = stream.canonical?.(summary) ?? 0;
        if (stream.canonical) await enqueueCanonical(enqueue, venue.code as CanonicalVenue, changed);
        return { ran: true, summary };
      }
      const leases = stream.leases(mode, {});
      if (stream.whenHeld?.[mode] === 'retry') {
        throw new RetryableError(
          leases.length > 1
            ? `A ${venue.code} lease is held (a poll is running); the reconciliation retries`
            : `The ${venue.code} ${name} lease is held (a poll is running); the reconciliation retries`,
        );
      }
      log.info({ lease: leases[0] }, `The ${venue.code} ${name} lease is held; this poll is skipped`);
      return { ran: false };
    },
  });
  const asJob: JobDefinition<never, unknown> = job;
  return {
    job,
    jobs: [asJob],
    schedules: stream.every.map((e) => ({
      id: e.id,
      job: asJob,
      everyMs: e.everyMs,
      payload: e.payload ?? { mode: e.mode },
    })),
  };
}

export type VenueSyncMode = 'poll' | 'reconcile';

/** One stream of a venue run by its sync function (beta until it is declared for the runner). */
export interface VenueSyncStream<S = unknown> {
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

/** The job and schedules of `venue`'s stream run by its sync function (the shape of `venueStreamJobs`). */
export function syncStreamJobs<S>(venue: CanonicalVenue, stream: VenueSyncStream<S>): StreamJobs<S> {
  const lease = venueStreamLease(venue, stream.name);
  const job = defineJob<StreamPayload, StreamResult<S>>({
    name: `${venue}.${stream.name}`,
    queue: 'venues',
    attempts: stream.attempts,
    async process({ deps, job, log, enqueue }) {
      const mode = stream.modes.find((m) => m === job.data.mode) ?? stream.modes[0]!;
      const leases = [lease, ...(mode === 'reconcile' ? (stream.reconcileLeases ?? []) : [])];
      const run = () => stream.run({ ...deps, log }, mode);
      const held = async (i: number): Promise<S | null> =>
        i === leases.length ? run() : await withLease(deps.redis, leases[i]!, LEASE_MS, () => held(i + 1));
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
  const asJob: JobDefinition<never, unknown> = job;
  return {
    job,
    jobs: [asJob],
    schedules: stream.every.map((e) => ({
      id: e.mode === 'reconcile' ? `${venue}:reconcile` : `${venue}:${stream.name}-${e.mode}`,
      job: asJob,
      everyMs: e.everyMs,
      payload: stream.modes.length > 1 ? { mode: e.mode } : {},
    })),
  };
}
