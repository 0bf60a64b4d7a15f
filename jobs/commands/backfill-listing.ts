/**
 * `pmdata backfill <venue>` of a venue with markets and events only (jobs/venues.ts, backfill kind
 * `listing`; dispatched by jobs/commands/backfill.ts): a full listing of the venue now — its `markets`
 * stream's `reconcile` mode (ingest/rest/runner.ts) — under the markets lease the jobs take, with the
 * progress reporter (core/progress.ts: requests done and the current step) and a summary. These venues have
 * no trades stream: `--trades` is refused (exit code 2, nothing read) and `--from`, which bounds trades, is
 * ignored with a line saying so. A lease held by a scheduled sync is waited for (a note says so); the
 * summary ends with what is stored now (`<venue>_markets`, `<venue>_events`). Exit code 1: stopped
 * (`args.signal`) while waiting for the lease. What a venue calls its events and a further figure of its
 * summary come from the list of venues (`eventsWord`, `more`).
 */
import type { Deps } from '../../core/deps.ts';
import { createProgress } from '../../core/progress.ts';
import { runStream, type StreamSummary, type VenueDefinition } from '../../ingest/rest/runner.ts';
import { type BackfillVenueArgs, type CliIo, fmt } from './io.ts';

interface ListingSummary extends StreamSummary {
  read: number;
  written: number;
  events: { read: number; written: number };
}

export interface ListingOptions<S> {
  /** The venues `--trades` is for (named when it is refused). */
  tradesFor: string;
  /** What the venue calls its events (default `events`). */
  eventsWord?: string;
  /** A further figure of the summary, after the events' (`<n> <label>`). */
  more?: (s: S) => { n: number; label: string };
}

/** The command's dependencies; `client` replaces the venue's upstream client (tests). */
export type ListingDeps = Deps & { client?: unknown };

/** The backfill of a venue whose `markets` stream has a `reconcile` mode (a full listing). */
export function listingBackfill<S extends ListingSummary>(
  venue: VenueDefinition,
  o: ListingOptions<S>,
): (deps: ListingDeps, io: CliIo, args: BackfillVenueArgs) => Promise<number> {
  const code = venue.code;
  return async (deps, io, args) => {
    const progress = args.progress ?? createProgress({ label: code, io });
    if (args.trades) {
      progress.warn(
        `${code} has no trades stream (only its markets are ingested): --trades is for ${o.tradesFor}; nothing was read`,
      );
      return 2;
    }
    if (args.from !== null) progress.note(`${code}: --from bounds trades only; ignored`);
    progress.phase('requests', null);
    const summary = (await runStream(venue, 'markets', deps, {
      mode: 'reconcile',
      onProgress: (step, s) =>
        progress.update(s.requests, { extra: `${step}, ${fmt(s.quarantined)} quarantined` }),
      lease: 'wait',
      wait: {
        signal: args.signal,
        onWait: () => progress.note(`${code}: another ${code} sync is running (lease held); waiting for it`),
      },
    })) as S | null;
    if (!summary) {
      progress.warn(`${code}: stopped while waiting for the running ${code} sync; nothing was read`);
      return 1;
    }
    const events = o.eventsWord ?? 'events';
    const figure = o.more?.(summary);
    const more = figure && `${fmt(figure.n)} ${figure.label}`;
    const [stored] = await deps.clickhouse.query<{ markets: string; events: string }>(
      `backfill.${code}.stored`,
      `SELECT (SELECT count() FROM ${code}_markets FINAL) AS markets, (SELECT count() FROM ${code}_events FINAL) AS events`,
    );
    progress.finish({
      status: 'done',
      done: { records: summary.read + summary.events.read, requests: summary.requests },
      failures: 0,
      quarantined: summary.quarantined,
      detail:
        `markets ${fmt(summary.read)} read, ${fmt(summary.written)} written; ${events} ${fmt(summary.events.read)} read, ` +
        `${fmt(summary.events.written)} written${more ? `; ${more}` : ''}; stored now ` +
        `${fmt(Number(stored?.markets ?? 0))} markets, ${fmt(Number(stored?.events ?? 0))} ${events}`,
      fields: {
        stored: { markets: Number(stored?.markets ?? 0), [events]: Number(stored?.events ?? 0) },
        markets: { read: summary.read, written: summary.written },
        [events]: { read: summary.events.read, written: summary.events.written },
      },
    });
    return 0;
  };
}
