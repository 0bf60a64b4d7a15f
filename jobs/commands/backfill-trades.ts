/**
 * `pmdata backfill <venue> [--trades] [--from DATE]` of a venue with series and a trades stream (beta;
 * jobs/venues.ts backfill kind `series-trades`, dispatched by jobs/commands/backfill.ts): a full listing of
 * the venue now — every series, market (all statuses) and event, rewriting what differs (the `markets`
 * stream's `reconcile` mode without its per-ticker trade check, `{trades: false}`) — under the markets
 * lease the jobs take; with `--trades`, then the `trades` stream's `backfill` mode, newest first down to
 * `--from` (every trade without it), the ids not yet stored inserted, under the trades lease. A lease held by a scheduled poll is waited for (a note says
 * so): the backfill runs after it. Progress (core/progress.ts: requests and the current step) and a
 * summary, which ends with what is stored now (after a scheduled poll that ran first, this run itself
 * may have written nothing).
 */
import type { Deps } from '../../core/deps.ts';
import { createProgress } from '../../core/progress.ts';
import { runStream, type VenueDefinition } from '../../ingest/rest/runner.ts';
import type { SeriesListingSummary, TradesBackfillSummary } from '../venues.ts';
import { type BackfillVenueArgs, type CliIo, fmt } from './io.ts';

/** The command's dependencies; `client` replaces the venue's upstream client (tests). */
export type SeriesTradesDeps = Pick<Deps, 'config' | 'log' | 'clickhouse' | 'redis'> & { client?: unknown };

/** What the venue's tables hold now (FINAL: one row per id). */
async function stored(deps: Pick<Deps, 'clickhouse'>, code: string) {
  const [r] = await deps.clickhouse.query<{
    markets: string;
    events: string;
    series: string;
    trades: string;
  }>(
    `backfill.${code}.stored`,
    `SELECT (SELECT count() FROM ${code}_markets FINAL) AS markets, (SELECT count() FROM ${code}_events FINAL) AS events,
            (SELECT count() FROM ${code}_series FINAL) AS series, (SELECT count() FROM ${code}_trades) AS trades`,
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
  venue: VenueDefinition,
): (deps: SeriesTradesDeps, io: CliIo, args: BackfillVenueArgs) => Promise<number> {
  const code = venue.code;
  return async (deps, io, args) => {
    const progress = args.progress ?? createProgress({ label: code, io });
    if (args.from !== null && !args.trades)
      progress.note(`${code}: --from bounds trades only (with --trades); ignored`);
    progress.phase('requests', null);
    const summary = (await runStream(venue, 'markets', deps, {
      mode: 'reconcile',
      options: { trades: false },
      onProgress: (step, s) =>
        progress.update(s.requests, { extra: `${step}, ${fmt(s.quarantined)} quarantined` }),
      lease: 'wait',
      wait: {
        signal: args.signal,
        onWait: () =>
          progress.note(`${code}: another ${code} markets sync is running (lease held); waiting for it`),
      },
    })) as SeriesListingSummary | null;
    if (!summary) {
      progress.warn(`${code}: stopped while waiting for the running ${code} markets sync; nothing was read`);
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
        `${code}: trades${args.from === null ? '' : ` down to ${new Date(args.from).toISOString()}`}`,
      );
      const t = (await runStream(venue, 'trades', deps, {
        mode: 'backfill',
        options: { from: args.from },
        lease: 'wait',
        wait: {
          signal: args.signal,
          onWait: () =>
            progress.note(`${code}: another ${code} trades poll is running (lease held); waiting for it`),
        },
      })) as TradesBackfillSummary | null;
      if (!t) {
        progress.warn(
          `${code}: stopped while waiting for the running ${code} trades poll; its markets were listed`,
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
    const now = await stored(deps, code);
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
