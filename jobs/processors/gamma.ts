/**
 * Venue gamma's job `gamma.markets` (ingest/venues/gamma/sync.ts; the shape, lease and schedules:
 * venue-markets.ts): `poll` every VENUE_MARKETS_POLL_S the active list, the entries it missed, and the
 * stored markets that left it, read by slug until resolved; `reconcile` every VENUE_RECONCILE_S the same,
 * always checking the active list against `/markets/active/slugs`. Both under the lease
 * `gamma:markets:lease`: a poll finding it held is skipped, a reconciliation fails retryable.
 */
import { type GammaSyncSummary, syncGamma } from '../../ingest/venues/gamma/sync.ts';
import {
  type VenueSyncPayload,
  type VenueSyncResult,
  venueMarketsJobs,
  venueMarketsLease,
} from './venue-markets.ts';

export const GAMMA_LEASE = venueMarketsLease('gamma');

export type GammaSyncPayload = VenueSyncPayload;
export type GammaSyncResult = VenueSyncResult<GammaSyncSummary>;

const gamma = venueMarketsJobs('gamma', ({ deps, log }, mode) => syncGamma({ ...deps, log }, { mode }));

export const gammaSyncJob = gamma.job;
export const GAMMA_JOBS = gamma.jobs;
export const GAMMA_SCHEDULES = gamma.schedules;
