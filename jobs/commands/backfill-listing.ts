/**
 * `pmdata backfill <delta|epsilon>` (dispatched by jobs/commands/backfill.ts): a full listing of the venue
 * now — its sync's `reconcile` mode — under the markets lease the jobs take, a progress line per step and
 * a summary line. These venues have no trades stream: `--trades` is refused (exit code 2, nothing read) and
 * `--from`, which bounds trades, is ignored with a line saying so. Exit code 1: another sync holds the lease.
 */
import type { Deps } from '../../core/deps.ts';
import { withLease } from '../../ingest/chain/lease.ts';
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

export function listingBackfill<S extends ListingSummary>(
  venue: string,
  lease: string,
  sync: ListingSync<S>,
): (deps: Deps, io: CliIo, args: BackfillVenueArgs) => Promise<number> {
  return async (deps, io, args) => {
    if (args.trades) {
      io.out(
        `${venue} has no trades stream (only its markets are ingested): --trades is for beta; nothing was read`,
      );
      return 2;
    }
    if (args.from !== null) io.out(`${venue}: --from bounds trades only; ignored`);
    const summary = await withLease(deps.redis, lease, 60_000, () =>
      sync(deps, {
        mode: 'reconcile',
        onProgress: (step, s) =>
          io.progress(
            `${venue}: ${step} (${fmt(s.requests)} requests, ${fmt(s.quarantined)} quarantined)`,
            io.isTTY,
          ),
      }),
    );
    if (!summary) {
      io.out(`Another ${venue} sync is running (lease held); try again when it finished`);
      return 1;
    }
    io.out(
      `${venue} done in ${(summary.ms / 1000).toFixed(1)} s: markets ${fmt(summary.read)} read, ` +
        `${fmt(summary.written)} written; events ${fmt(summary.events.read)} read, ` +
        `${fmt(summary.events.written)} written; ${fmt(summary.quarantined)} quarantined, ` +
        `${fmt(summary.requests)} requests`,
    );
    return 0;
  };
}
