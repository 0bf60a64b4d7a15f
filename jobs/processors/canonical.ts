/**
 * `venues.canonical` (queue `venues`, payload {venue}): the canonical ids of a venue's stored outcomes
 * (ingest/canonical/assign.ts), enqueued after each markets poll of the venue. One run per venue at a
 * time (a Redis lease): a run that finds the lease held retries later, since the holder may have read
 * the markets before the poll that enqueued this run wrote.
 */
import { PermanentError, RetryableError } from '../../core/errors.ts';
import { withLease } from '../../core/lease.ts';
import { type AssignSummary, assignCanonical } from '../../ingest/canonical/assign.ts';
import { type CanonicalVenue, isCanonicalVenue } from '../../schemas/venues/index.ts';
import { type AnyJob, defineJob, type JobContext } from '../define.ts';

export const canonicalLease = (venue: CanonicalVenue) => `canonical:${venue}:lease`;
const LEASE_MS = 60_000;

export interface CanonicalPayload {
  venue: CanonicalVenue;
}

export const canonicalJob = defineJob<CanonicalPayload, AssignSummary>({
  name: 'venues.canonical',
  queue: 'venues',
  attempts: 5,
  async process({ deps, job, log }) {
    const venue = job.data.venue;
    if (!isCanonicalVenue(venue))
      throw new PermanentError(`Unknown venue for canonical ids: ${String(venue)}`);
    const summary = await withLease(deps.redis, canonicalLease(venue), LEASE_MS, () =>
      assignCanonical({ ...deps, log }, venue),
    );
    if (summary === null) {
      throw new RetryableError(`The canonical lease of ${venue} is held; this assignment retries`);
    }
    log.info(summary, 'Assigned canonical ids');
    return summary;
  },
});

export const CANONICAL_JOBS: readonly AnyJob[] = [canonicalJob];

/**
 * Enqueues `venue`'s canonical assignment after its markets sync wrote `written` rows (markets or
 * events: a new market, a changed title or label); a sync that wrote nothing changes no key.
 */
export async function enqueueCanonical(
  enqueue: JobContext<unknown>['enqueue'],
  venue: CanonicalVenue,
  written: number,
): Promise<void> {
  if (written > 0) await enqueue(canonicalJob, { venue });
}
