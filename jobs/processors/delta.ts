/**
 * Venue delta's job `delta.markets` (ingest/venues/delta/sync.ts; the shape: venue-markets.ts): `poll` the
 * activated markets, stopped ones by id until resolved, prices of markets whose volume moved; `reconcile`
 * every status.
 */
import { syncDelta } from '../../ingest/venues/delta/sync.ts';
import { venueMarketsJobs, venueMarketsLease } from './venue-markets.ts';

export const DELTA_LEASE = venueMarketsLease('delta');

const delta = venueMarketsJobs('delta', ({ deps, log }, mode) => syncDelta({ ...deps, log }, { mode }));

export const deltaSyncJob = delta.job;
export const DELTA_JOBS = delta.jobs;
export const DELTA_SCHEDULES = delta.schedules;
