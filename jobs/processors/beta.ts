/**
 * Venue beta's jobs and schedules, derived from its definition (ingest/venues/beta/index.ts; the jobs'
 * shape: venue-streams.ts):
 * - `beta.markets` `poll` every VENUE_MARKETS_POLL_S: series, the markets changed since the `markets`
 *   mark (`min_updated_ts`), their events not stored yet; `reconcile` every VENUE_RECONCILE_S: every
 *   series, market and event, and beta's trades per ticker against the markets' volume (mismatch → rescan);
 * - `beta.trades` every BETA_TRADES_POLL_S: trades newest first down to the newest stored one (minus an
 *   overlap), ids not stored inserted.
 *
 * Redis leases keep one writer per stream across processes: `beta:markets:lease` (markets, events,
 * series) and `beta:trades:lease` (trade inserts; the reconciliation's rescans take it too). A poll that
 * finds its lease taken completes at once (the next poll comes within one interval); a reconciliation that
 * finds either lease taken fails retryable, so it runs once the poll is done (the job's backoff) instead of
 * waiting a whole VENUE_RECONCILE_S. A markets run that wrote rows enqueues beta's canonical ids
 * (`venues.canonical`, jobs/processors/canonical.ts).
 */
import {
  type BetaSyncMode,
  type BetaSyncSummary,
  type BetaTradesSummary,
  beta,
} from '../../ingest/venues/beta/index.ts';
import type { JobDefinition } from '../define.ts';
import type { Schedule } from '../schedules.ts';
import { type StreamResult, venueStreamJobs } from './venue-streams.ts';

export interface BetaSyncPayload {
  mode: BetaSyncMode;
}

export type BetaSyncResult = StreamResult<BetaSyncSummary>;
export type BetaTradesResult = StreamResult<BetaTradesSummary>;

const markets = venueStreamJobs<BetaSyncSummary>(beta, 'markets');
const trades = venueStreamJobs<BetaTradesSummary>(beta, 'trades');

export const betaMarketsJob = markets.job;
export const betaTradesJob = trades.job;

export const BETA_JOBS: readonly JobDefinition<never, unknown>[] = [...markets.jobs, ...trades.jobs];

export const BETA_SCHEDULES: readonly Schedule[] = [
  markets.schedules[0] as Schedule,
  ...trades.schedules,
  markets.schedules[1] as Schedule,
];
