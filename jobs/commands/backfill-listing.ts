/**
 * `pmdata backfill <gamma|delta|epsilon>` (dispatched by jobs/commands/backfill.ts): a full listing of the
 * venue now — its sync's `reconcile` mode — under the markets lease the jobs take, with the progress
 * reporter (core/progress.ts: requests done and the current step) and a summary. These venues have no
 * trades stream: `--trades` is refused (exit code 2, nothing read) and `--from`, which bounds trades, is
 * ignored with a line saying so. A lease held by a scheduled sync is waited for (a note says so); the
 * summary ends with what is stored now. Exit code 1: stopped (`args.signal`) while waiting for the lease.
 *
 * gamma's sync (ingest/venues/gamma/sync.ts) also checks the list against `/markets/active/slugs` and
 * reads by slug every stored market not resolved that left it; its events are "groups".
 */
import type { Deps } from '../../core/deps.ts';
import { withLeaseWaiting } from '../../core/lease.ts';
import { createProgress } from '../../core/progress.ts';
import { type GammaSyncSummary, syncGamma } from '../../ingest/venues/gamma/sync.ts';
import { GAMMA_LEASE } from '../processors/gamma.ts';
import { type BackfillVenueArgs, type CliIo, fmt } from './io.ts';

interface ListingSummary {
  read: number;
  written: number;
  events: { read: number; written: number };
  quarantined: number;
  requests: number;
  ms: number;
}

type ListingSync<S> = (
  deps: Deps,
  opts: { mode: 'reconcile'; onProgress: (step: string, s: S) => void },
) => Promise<S>;

export interface ListingOptions<S> {
  /** What the venue calls its events (default `events`). */
  eventsWord?: string;
  /** More figures of the summary, after the events'. */
  more?: (s: S) => string;
}

export function listingBackfill<S extends ListingSummary>(
  venue: string,
  lease: string,
  sync: ListingSync<S>,
  o: ListingOptions<S> = {},
): (deps: Deps, io: CliIo, args: BackfillVenueArgs) => Promise<number> {
  return async (deps, io, args) => {
    const progress = args.progress ?? createProgress({ label: venue, io });
    if (args.trades) {
      progress.warn(
        `${venue} has no trades stream (only its markets are ingested): --trades is for beta; nothing was read`,
      );
      return 2;
    }
    if (args.from !== null) progress.note(`${venue}: --from bounds trades only; ignored`);
    progress.phase('requests', null);
    const summary = await withLeaseWaiting(
      deps.redis,
      lease,
      60_000,
      () =>
        sync(deps, {
          mode: 'reconcile',
          onProgress: (step, s) =>
            progress.update(s.requests, { extra: `${step}, ${fmt(s.quarantined)} quarantined` }),
        }),
      {
        signal: args.signal,
        onWait: () =>
          progress.note(`${venue}: another ${venue} sync is running (lease held); waiting for it`),
      },
    );
    if (!summary) {
      progress.warn(`${venue}: stopped while waiting for the running ${venue} sync; nothing was read`);
      return 1;
    }
    const events = o.eventsWord ?? 'events';
    const more = o.more?.(summary);
    const [stored] = await deps.clickhouse.query<{ markets: string; events: string }>(
      `backfill.${venue}.stored`,
      `SELECT (SELECT count() FROM ${venue}_markets FINAL) AS markets, (SELECT count() FROM ${venue}_events FINAL) AS events`,
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

/** `pmdata backfill gamma`: its listing, checked against the active slugs (what left read by slug). */
export const backfillGamma = listingBackfill<GammaSyncSummary>('gamma', GAMMA_LEASE, syncGamma, {
  eventsWord: 'groups',
  more: (s) => `${fmt(s.filled + s.reread)} read by slug`,
});
