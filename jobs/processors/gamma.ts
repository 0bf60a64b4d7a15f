/**
 * Venue gamma's job `gamma.markets` and its schedules, derived from its definition
 * (ingest/venues/gamma/index.ts; the job's shape: venue-streams.ts): `poll` every VENUE_MARKETS_POLL_S,
 * `reconcile` every VENUE_RECONCILE_S, under the lease `gamma:markets:lease` (a poll finding it held is
 * skipped, a reconciliation fails retryable).
 */
import { streamOf } from '../../ingest/rest/runner.ts';
import { type GammaSyncSummary, gamma } from '../../ingest/venues/gamma/index.ts';
import { type StreamPayload, type StreamResult, venueStreamJobs } from './venue-streams.ts';

export const GAMMA_LEASE = streamOf(gamma, 'markets').leases('poll', {})[0] as string;

export type GammaSyncPayload = StreamPayload & { mode: 'poll' | 'reconcile' };
export type GammaSyncResult = StreamResult<GammaSyncSummary>;

const markets = venueStreamJobs<GammaSyncSummary>(gamma, 'markets');

export const gammaSyncJob = markets.job;
export const GAMMA_JOBS = markets.jobs;
export const GAMMA_SCHEDULES = markets.schedules;
