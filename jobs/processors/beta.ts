/**
 * Venue beta's jobs (queue `venues`; ingest/venues/beta/sync.ts):
 * - `beta.markets` `poll` every VENUE_MARKETS_POLL_S: series, the markets changed since the checkpoint
 *   (`min_updated_ts`), their events not stored yet; `reconcile` every VENUE_RECONCILE_S: every series,
 *   market and event, and beta's trades per ticker against the markets' volume (mismatch → rescan);
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
import { RetryableError } from '../../core/errors.ts';
import { withLease } from '../../core/lease.ts';
import { venuesConfig } from '../../ingest/rest/config.ts';
import { betaConfig } from '../../ingest/venues/beta/config.ts';
import {
  type BetaSyncMode,
  type BetaSyncSummary,
  type BetaTradesSummary,
  pollBetaTrades,
  syncBeta,
} from '../../ingest/venues/beta/sync.ts';
import type { Schedule } from '../define.ts';
import { type AnyJob, defineJob } from '../define.ts';
import { enqueueCanonical } from './canonical.ts';

export const BETA_MARKETS_LEASE = 'beta:markets:lease';
export const BETA_TRADES_LEASE = 'beta:trades:lease';
/** Lease time, renewed while the sync runs. */
const LEASE_MS = 60_000;

export interface BetaSyncPayload {
  mode: BetaSyncMode;
}

export type BetaSyncResult = { ran: false } | { ran: true; summary: BetaSyncSummary };
export type BetaTradesResult = { ran: false } | { ran: true; summary: BetaTradesSummary };

export const betaMarketsJob = defineJob<BetaSyncPayload, BetaSyncResult>({
  name: 'beta.markets',
  queue: 'venues',
  attempts: 5,
  async process({ deps, job, log, enqueue }) {
    const { mode } = job.data;
    const run = () => syncBeta({ ...deps, log }, { mode });
    const summary = await withLease(deps.redis, BETA_MARKETS_LEASE, LEASE_MS, async () =>
      mode === 'reconcile'
        ? // The reconciliation inserts trades too: it holds the trades lease as well.
          await withLease(deps.redis, BETA_TRADES_LEASE, LEASE_MS, run)
        : await run(),
    );
    if (summary) {
      await enqueueCanonical(enqueue, 'beta', summary.written + summary.events.written);
      return { ran: true, summary };
    }
    if (mode === 'reconcile') {
      throw new RetryableError('A beta lease is held (a poll is running); the reconciliation retries');
    }
    log.info({ lease: BETA_MARKETS_LEASE }, 'The beta markets lease is held; this poll is skipped');
    return { ran: false };
  },
});

export const betaTradesJob = defineJob<Record<string, never>, BetaTradesResult>({
  name: 'beta.trades',
  queue: 'venues',
  attempts: 3,
  async process({ deps, log }) {
    const summary = await withLease(deps.redis, BETA_TRADES_LEASE, LEASE_MS, () =>
      pollBetaTrades({ ...deps, log }),
    );
    if (summary) return { ran: true, summary };
    log.info({ lease: BETA_TRADES_LEASE }, 'The beta trades lease is held; this poll is skipped');
    return { ran: false };
  },
});

export const BETA_JOBS: readonly AnyJob[] = [betaMarketsJob, betaTradesJob];

export const BETA_SCHEDULES: readonly Schedule[] = [
  {
    id: 'beta:markets-poll',
    job: betaMarketsJob,
    everyMs: (c) => venuesConfig.of(c).marketsPollS * 1000,
    payload: { mode: 'poll' } satisfies BetaSyncPayload,
  },
  {
    id: 'beta:trades-poll',
    job: betaTradesJob,
    everyMs: (c) => betaConfig.of(c).tradesPollS * 1000,
    payload: {},
  },
  {
    id: 'beta:reconcile',
    job: betaMarketsJob,
    everyMs: (c) => venuesConfig.of(c).reconcileS * 1000,
    payload: { mode: 'reconcile' } satisfies BetaSyncPayload,
  },
];
