/**
 * Venue epsilon's job `epsilon.markets` and its schedules, derived from its definition
 * (ingest/venues/epsilon/index.ts; the job's shape: venue-streams.ts): `poll` the active markets and
 * events, stopped markets by id, the books of open markets; `reconcile` everything.
 */
import { streamOf } from '../../ingest/rest/runner.ts';
import { type EpsilonSyncSummary, epsilon } from '../../ingest/venues/epsilon/index.ts';
import { venueStreamJobs } from './venue-streams.ts';

export const EPSILON_LEASE = streamOf(epsilon, 'markets').leases('poll', {})[0] as string;

const markets = venueStreamJobs<EpsilonSyncSummary>(epsilon, 'markets');

export const epsilonSyncJob = markets.job;
export const EPSILON_JOBS = markets.jobs;
export const EPSILON_SCHEDULES = markets.schedules;
