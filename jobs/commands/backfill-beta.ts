/**
 * `pmdata backfill beta [--trades] [--from DATE]` (dispatched by jobs/commands/backfill.ts): a full listing
 * of venue beta now — every series, market (all statuses) and event, rewriting what differs (the sync's
 * `reconcile` mode without its per-ticker trade check) — under the markets lease the jobs take; with
 * `--trades`, then beta's trades newest first down to `--from` (every trade without it), the ids not yet
 * stored inserted, under the trades lease. A lease held by a scheduled poll is waited for (a note says
 * so): the backfill runs after it. Progress (core/progress.ts: requests and the current step) and a
 * summary, which ends with what is stored now (after a scheduled poll that ran first, this run itself
 * may have written nothing).
 */
import type { Deps } from '../../core/deps.ts';
import { withLeaseWaiting } from '../../core/lease.ts';
import { createProgress } from '../../core/progress.ts';
import { pollBetaTrades, syncBeta } from '../../ingest/venues/beta/sync.ts';
import { BETA_MARKETS_LEASE, BETA_TRADES_LEASE } from '../processors/beta.ts';
import { type BackfillVenueArgs, type CliIo, fmt } from './io.ts';

export type BackfillBetaDeps = Pick<Deps, 'config' | 'log' | 'clickhouse' | 'redis'> &
  Pick<Parameters<typeof syncBeta>[0], 'client'>;

const LEASE_MS = 60_000;

/** What beta's tables hold now (FINAL: one row per id). */
async function storedBeta(deps: Pick<Deps, 'clickhouse'>) {
  const [r] = await deps.clickhouse.query<{
    markets: string;
    events: string;
    series: string;
    trades: string;
  }>(
    'backfill.beta.stored',
    `SELECT (SELECT count() FROM beta_markets FINAL) AS markets, (SELECT count() FROM beta_events FINAL) AS events,
            (SELECT count() FROM beta_series FINAL) AS series, (SELECT count() FROM beta_trades) AS trades`,
  );
  return {
    markets: Number(r?.markets ?? 0),
    events: Number(r?.events ?? 0),
    series: Number(r?.series ?? 0),
    trades: Number(r?.trades ?? 0),
  };
}

/** Resolves to the process exit code: 0 done, 1 stopped (`args.signal`) while waiting for a lease. */
export async function backfillBeta(
  deps: BackfillBetaDeps,
  io: CliIo,
  args: BackfillVenueArgs,
): Promise<number> {
  const progress = args.progress ?? createProgress({ label: 'beta', io });
  if (args.from !== null && !args.trades)
    progress.note('beta: --from bounds trades only (with --trades); ignored');
  progress.phase('requests', null);
  const summary = await withLeaseWaiting(
    deps.redis,
    BETA_MARKETS_LEASE,
    LEASE_MS,
    () =>
      syncBeta(deps, {
        mode: 'reconcile',
        trades: false,
        onProgress: (step, s) =>
          progress.update(s.requests, { extra: `${step}, ${fmt(s.quarantined)} quarantined` }),
      }),
    {
      signal: args.signal,
      onWait: () => progress.note('beta: another beta markets sync is running (lease held); waiting for it'),
    },
  );
  if (!summary) {
    progress.warn('beta: stopped while waiting for the running beta markets sync; nothing was read');
    return 1;
  }
  let records = summary.read + summary.events.read + summary.series.read;
  let written = summary.written + summary.events.written + summary.series.written;
  let quarantined = summary.quarantined;
  let requests = summary.requests;
  let tradesLine = '';
  let trades: { read: number; written: number } | null = null;
  if (args.trades) {
    progress.note(`beta: trades${args.from === null ? '' : ` down to ${new Date(args.from).toISOString()}`}`);
    const t = await withLeaseWaiting(
      deps.redis,
      BETA_TRADES_LEASE,
      LEASE_MS,
      () => pollBetaTrades(deps, { mode: 'backfill', from: args.from }),
      {
        signal: args.signal,
        onWait: () => progress.note('beta: another beta trades poll is running (lease held); waiting for it'),
      },
    );
    if (!t) {
      progress.warn('beta: stopped while waiting for the running beta trades poll; its markets were listed');
      return 1;
    }
    trades = t;
    records += t.read;
    written += t.written;
    quarantined += t.quarantined;
    requests += t.requests;
    tradesLine = `; trades ${fmt(t.read)} read, ${fmt(t.written)} written`;
  }
  const stored = await storedBeta(deps);
  progress.finish({
    status: 'done',
    done: { records, requests },
    failures: 0,
    quarantined,
    detail:
      `${fmt(records)} records, ${fmt(written)} written ` +
      `(markets ${fmt(summary.read)} read, ${fmt(summary.written)} written; events ${fmt(summary.events.read)} read, ` +
      `${fmt(summary.events.written)} written; series ${fmt(summary.series.read)} read, ` +
      `${fmt(summary.series.written)} written${tradesLine}); stored now ${fmt(stored.markets)} markets, ` +
      `${fmt(stored.events)} events, ${fmt(stored.series)} series, ${fmt(stored.trades)} trades`,
    fields: {
      written,
      stored,
      markets: { read: summary.read, written: summary.written },
      events: { read: summary.events.read, written: summary.events.written },
      series: { read: summary.series.read, written: summary.series.written },
      ...(trades ? { trades: { read: trades.read, written: trades.written } } : {}),
    },
  });
  return 0;
}
