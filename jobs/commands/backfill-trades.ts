/**
 * `pmdata backfill <venue> [--trades] [--from DATE]` of a venue with series and a trades stream (beta;
 * jobs/venues.ts `kind: 'series-trades'`, dispatched by jobs/commands/backfill.ts): a full listing of the
 * venue now — every series, market (all statuses) and event, rewriting what differs (the sync's
 * `reconcile` mode without its per-ticker trade check) — under the markets lease the jobs take; with
 * `--trades`, then the venue's trades newest first down to `--from` (every trade without it), the ids not
 * yet stored inserted, under the trades lease. A lease held by a scheduled poll is waited for (a note says
 * so): the backfill runs after it. Progress (core/progress.ts: requests and the current step) and a
 * summary, which ends with what is stored now (after a scheduled poll that ran first, this run itself
 * may have written nothing).
 */
import type { Deps } from '../../core/deps.ts';
import { withLeaseWaiting } from '../../core/lease.ts';
import { createProgress } from '../../core/progress.ts';
import type { VenueBackfill } from '../venues.ts';
import { type BackfillVenueArgs, type CliIo, fmt } from './io.ts';

const LEASE_MS = 60_000;

/** What the venue's tables hold now (FINAL: one row per id). */
async function stored(deps: Pick<Deps, 'clickhouse'>, venue: string) {
  const [r] = await deps.clickhouse.query<{
    markets: string;
    events: string;
    series: string;
    trades: string;
  }>(
    `backfill.${venue}.stored`,
    `SELECT (SELECT count() FROM ${venue}_markets FINAL) AS markets, (SELECT count() FROM ${venue}_events FINAL) AS events,
            (SELECT count() FROM ${venue}_series FINAL) AS series, (SELECT count() FROM ${venue}_trades) AS trades`,
  );
  return {
    markets: Number(r?.markets ?? 0),
    events: Number(r?.events ?? 0),
    series: Number(r?.series ?? 0),
    trades: Number(r?.trades ?? 0),
  };
}

/**
 * The backfill of `venue`; it resolves to the process exit code: 0 done, 1 stopped (`args.signal`) while
 * waiting for a lease.
 */
export function seriesTradesBackfill(
  venue: string,
  leases: { markets: string; trades: string },
  run: Extract<VenueBackfill, { kind: 'series-trades' }>,
): (deps: Deps, io: CliIo, args: BackfillVenueArgs) => Promise<number> {
  return async (deps, io, args) => {
    const progress = args.progress ?? createProgress({ label: venue, io });
    if (args.from !== null && !args.trades)
      progress.note(`${venue}: --from bounds trades only (with --trades); ignored`);
    progress.phase('requests', null);
    const summary = await withLeaseWaiting(
      deps.redis,
      leases.markets,
      LEASE_MS,
      () =>
        run.listing(deps, (step, s) =>
          progress.update(s.requests, { extra: `${step}, ${fmt(s.quarantined)} quarantined` }),
        ),
      {
        signal: args.signal,
        onWait: () =>
          progress.note(`${venue}: another ${venue} markets sync is running (lease held); waiting for it`),
      },
    );
    if (!summary) {
      progress.warn(
        `${venue}: stopped while waiting for the running ${venue} markets sync; nothing was read`,
      );
      return 1;
    }
    let records = summary.read + summary.events.read + summary.series.read;
    let written = summary.written + summary.events.written + summary.series.written;
    let quarantined = summary.quarantined;
    let requests = summary.requests;
    let tradesLine = '';
    let trades: { read: number; written: number } | null = null;
    if (args.trades) {
      progress.note(
        `${venue}: trades${args.from === null ? '' : ` down to ${new Date(args.from).toISOString()}`}`,
      );
      const t = await withLeaseWaiting(
        deps.redis,
        leases.trades,
        LEASE_MS,
        () => run.trades(deps, args.from),
        {
          signal: args.signal,
          onWait: () =>
            progress.note(`${venue}: another ${venue} trades poll is running (lease held); waiting for it`),
        },
      );
      if (!t) {
        progress.warn(
          `${venue}: stopped while waiting for the running ${venue} trades poll; its markets were listed`,
        );
        return 1;
      }
      trades = t;
      records += t.read;
      written += t.written;
      quarantined += t.quarantined;
      requests += t.requests;
      tradesLine = `; trades ${fmt(t.read)} read, ${fmt(t.written)} written`;
    }
    const now = await stored(deps, venue);
    progress.finish({
      status: 'done',
      done: { records, requests },
      failures: 0,
      quarantined,
      detail:
        `${fmt(records)} records, ${fmt(written)} written ` +
        `(markets ${fmt(summary.read)} read, ${fmt(summary.written)} written; events ${fmt(summary.events.read)} read, ` +
        `${fmt(summary.events.written)} written; series ${fmt(summary.series.read)} read, ` +
        `${fmt(summary.series.written)} written${tradesLine}); stored now ${fmt(now.markets)} markets, ` +
        `${fmt(now.events)} events, ${fmt(now.series)} series, ${fmt(now.trades)} trades`,
      fields: {
        written,
        stored: now,
        markets: { read: summary.read, written: summary.written },
        events: { read: summary.events.read, written: summary.events.written },
        series: { read: summary.series.read, written: summary.series.written },
        ...(trades ? { trades: { read: trades.read, written: trades.written } } : {}),
      },
    });
    return 0;
  };
}
