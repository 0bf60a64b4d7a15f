/**
 * Venue delta's job `delta.markets` and its schedules, derived from its definition
 * (ingest/venues/delta/index.ts; the job's shape: venue-streams.ts): `poll` the activated markets,
 * stopped ones by id until resolved, prices of markets whose volume moved; `reconcile` every status.
 */
import { streamOf } from '../../ingest/rest/runner.ts';
import { type DeltaSyncSummary, delta } from '../../ingest/venues/delta/index.ts';
import { venueStreamJobs } from './venue-streams.ts';

export const DELTA_LEASE = streamOf(delta, 'markets').leases('poll', {})[0] as string;

const markets = venueStreamJobs<DeltaSyncSummary>(delta, 'markets');

export const deltaSyncJob = markets.job;
export const DELTA_JOBS = markets.jobs;
export const DELTA_SCHEDULES = markets.schedules;
