/**
 * The job of one stream of a REST venue, derived from its definition (ingest/rest/runner.ts
 * `defineVenue`): `<code>.<stream>` (or the stream's `job`) on queue `venues`, one schedule per entry of
 * the stream's `every` (payload `{mode}` unless the entry says otherwise), the run under the stream's
 * leases (`<code>:markets:lease`, …). A scheduled run that finds a lease held completes at once (the next
 * comes within one interval), or, in a mode the stream marks `retry` (a reconciliation), fails retryable,
 * so the queue's backoff runs it after the holder instead of a whole interval later. A run whose rows may
 * change canonical ids (the stream's `canonical`) enqueues the venue's assignment (`venues.canonical`).
 * Each watermark a run committed is a move of the venue's source: the products that read it (their
 * `inputs`) are enqueued (jobs/products.ts `enqueueDependents`, or the registry's the caller passes).
 */
import { RetryableError } from '../../core/errors.ts';
import type { Watermark } from '../../core/watermarks.ts';
import {
  type AnyStream,
  runStream,
  type StreamSummary,
  streamOf,
  type VenueDefinition,
} from '../../ingest/rest/runner.ts';
import type { CanonicalVenue } from '../../schemas/venues/index.ts';
import { type AnyJob, defineJob, type JobDefinition, type Schedule, schedule } from '../define.ts';
import { enqueueDependents, type ProductRegistry } from '../products.ts';
import { enqueueCanonical } from './canonical.ts';

export interface StreamPayload {
  /** The stream's mode (default its first). */
  mode?: string;
}

export type StreamResult<S = StreamSummary> = { ran: false } | { ran: true; summary: S };

export interface StreamJobs<S = StreamSummary> {
  job: JobDefinition<StreamPayload, StreamResult<S>>;
  jobs: AnyJob[];
  schedules: Schedule[];
}

/** The job and schedules of `venue`'s stream `name`. */
export function venueStreamJobs<S extends StreamSummary = StreamSummary>(
  venue: VenueDefinition,
  name: string,
  dependents: ProductRegistry['enqueueDependents'] = enqueueDependents,
): StreamJobs<S> {
  const stream: AnyStream = streamOf(venue, name);
  const job = defineJob<StreamPayload, StreamResult<S>>({
    name: stream.job ?? `${venue.code}.${name}`,
    queue: 'venues',
    attempts: stream.attempts ?? 5,
    async process({ deps, job: j, log, enqueue }) {
      const mode = j.data.mode ?? (stream.modes[0] as string);
      const marks: Watermark[] = [];
      const summary = (await runStream(
        venue,
        name,
        { ...deps, log },
        { mode, lease: 'skip', onCommit: (m) => marks.push(m) },
      )) as S | null;
      if (summary) {
        for (const m of marks) {
          await dependents({ deps, enqueue }, { source: m.source, stream: m.stream, kind: m.kind });
        }
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
  return {
    job,
    jobs: [job],
    schedules: stream.every.map((e) =>
      schedule<StreamPayload>(
        e.id,
        job,
        e.everyMs,
        (e.payload as StreamPayload | undefined) ?? { mode: e.mode },
      ),
    ),
  };
}
