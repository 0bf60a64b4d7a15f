/**
 * `pmdata backfill beta [--trades] [--from DATE]` (dispatched by jobs/commands/backfill.ts): a full listing
 * of venue beta now — every series, market (all statuses) and event, rewriting what differs (the sync's
 * `reconcile` mode without its per-ticker trade check) — under the markets lease the jobs take; with
 * `--trades`, then beta's trades newest first down to `--from` (every trade without it), the ids not yet
 * stored inserted, under the trades lease. A progress line per step and a summary line.
 */
import type { Deps } from '../../core/deps.ts';
import { withLease } from '../../ingest/chain/lease.ts';
import { pollBetaTrades, syncBeta } from '../../ingest/venues/beta/sync.ts';
import { BETA_MARKETS_LEASE, BETA_TRADES_LEASE } from '../processors/beta.ts';
import { type BackfillVenueArgs, type CliIo, fmt } from './io.ts';

export type BackfillBetaDeps = Pick<Deps, 'config' | 'log' | 'clickhouse' | 'redis'> &
  Pick<Parameters<typeof syncBeta>[0], 'client'>;

const LEASE_MS = 60_000;

/** Resolves to the process exit code: 0 done, 1 another sync holds a lease. */
export async function backfillBeta(
  deps: BackfillBetaDeps,
  io: CliIo,
  args: BackfillVenueArgs,
): Promise<number> {
  const t0 = performance.now();
  if (args.from !== null && !args.trades) io.out('beta: --from bounds trades only (with --trades); ignored');
  const summary = await withLease(deps.redis, BETA_MARKETS_LEASE, LEASE_MS, () =>
    syncBeta(deps, {
      mode: 'reconcile',
      trades: false,
      onProgress: (step, s) =>
        io.progress(
          `beta: ${step} (${fmt(s.requests)} requests, ${fmt(s.quarantined)} quarantined)`,
          io.isTTY,
        ),
    }),
  );
  if (!summary) {
    io.out('Another beta markets sync is running (lease held); try again when it finished');
    return 1;
  }
  let records = summary.read + summary.events.read + summary.series.read;
  let written = summary.written + summary.events.written + summary.series.written;
  let quarantined = summary.quarantined;
  let requests = summary.requests;
  let tradesLine = '';
  if (args.trades) {
    io.progress(
      `beta: trades${args.from === null ? '' : ` down to ${new Date(args.from).toISOString()}`}`,
      io.isTTY,
    );
    const trades = await withLease(deps.redis, BETA_TRADES_LEASE, LEASE_MS, () =>
      pollBetaTrades(deps, { mode: 'backfill', from: args.from }),
    );
    if (!trades) {
      io.out('Another beta trades poll is running (lease held); try again when it finished');
      return 1;
    }
    records += trades.read;
    written += trades.written;
    quarantined += trades.quarantined;
    requests += trades.requests;
    tradesLine = `; trades ${fmt(trades.read)} read, ${fmt(trades.written)} written`;
  }
  if (io.isTTY) io.progress('', false);
  const seconds = (performance.now() - t0) / 1000;
  io.out(
    `beta done in ${seconds.toFixed(1)} s: ${fmt(records)} records, ${fmt(written)} written ` +
      `(markets ${fmt(summary.read)} read, ${fmt(summary.written)} written; events ${fmt(summary.events.read)} read, ` +
      `${fmt(summary.events.written)} written; series ${fmt(summary.series.read)} read, ` +
      `${fmt(summary.series.written)} written${tradesLine}); ${fmt(quarantined)} quarantined, ` +
      `${fmt(requests)} requests`,
  );
  return 0;
}
