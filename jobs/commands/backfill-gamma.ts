/**
 * `pmdata backfill gamma [--from DATE]` (dispatched by jobs/commands/backfill.ts): a full listing of venue
 * gamma now — the sync's `reconcile` mode (ingest/venues/gamma/sync.ts): every page of the active list,
 * checked against `/markets/active/slugs`, and every stored market not resolved that left the list read
 * by slug — under the markets lease the jobs take, with a progress line per step and a summary line.
 *
 * gamma's upstream lists active markets only and the ingestor keeps no trades stream for it, so there is
 * nothing older to reach: `--trades` is refused (exit code 2, nothing read), and `--from` (which bounds
 * trades) is ignored with a line saying so.
 */
import type { Deps } from '../../core/deps.ts';
import { withLease } from '../../ingest/chain/lease.ts';
import { syncGamma } from '../../ingest/venues/gamma/sync.ts';
import { GAMMA_LEASE } from '../processors/gamma.ts';
import { type BackfillVenueArgs, type CliIo, fmt } from './io.ts';

export type BackfillGammaDeps = Pick<Deps, 'config' | 'log' | 'clickhouse' | 'redis'> &
  Pick<Parameters<typeof syncGamma>[0], 'client'>;

/** Resolves to the process exit code: 0 done, 1 another sync holds the lease, 2 `--trades`. */
export async function backfillGamma(
  deps: BackfillGammaDeps,
  io: CliIo,
  args: BackfillVenueArgs,
): Promise<number> {
  if (args.trades) {
    io.out(
      'gamma has no trades stream (only its markets are ingested): --trades is for beta; nothing was read',
    );
    return 2;
  }
  if (args.from !== null) {
    io.out('gamma: --from bounds trades only; ignored (the listing holds what is active now)');
  }
  const summary = await withLease(deps.redis, GAMMA_LEASE, 60_000, () =>
    syncGamma(deps, {
      mode: 'reconcile',
      onProgress: (step, s) =>
        io.progress(
          `gamma: ${step} (${fmt(s.requests)} requests, ${fmt(s.quarantined)} quarantined)`,
          io.isTTY,
        ),
    }),
  );
  if (!summary) {
    io.out('Another gamma sync is running (lease held); try again when it finished');
    return 1;
  }
  io.out(
    `gamma done in ${(summary.ms / 1000).toFixed(1)} s: markets ${fmt(summary.read)} read, ` +
      `${fmt(summary.written)} written; groups ${fmt(summary.events.read)} read, ` +
      `${fmt(summary.events.written)} written; ${fmt(summary.filled + summary.reread)} read by slug; ` +
      `${fmt(summary.quarantined)} quarantined, ${fmt(summary.requests)} requests`,
  );
  return 0;
}
