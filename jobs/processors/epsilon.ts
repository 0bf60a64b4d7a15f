/**
 * Venue epsilon's job `epsilon.markets` (ingest/venues/epsilon/sync.ts; the shape: venue-markets.ts): `poll`
 * the active markets and events, stopped markets by id, the books of open markets; `reconcile` everything.
 */
import { syncEpsilon } from '../../ingest/venues/epsilon/sync.ts';
import { venueMarketsJobs, venueMarketsLease } from './venue-markets.ts';

export const EPSILON_LEASE = venueMarketsLease('epsilon');

const epsilon = venueMarketsJobs('epsilon', ({ deps, log }, mode) => syncEpsilon({ ...deps, log }, { mode }));

export const epsilonSyncJob = epsilon.job;
export const EPSILON_JOBS = epsilon.jobs;
export const EPSILON_SCHEDULES = epsilon.schedules;
