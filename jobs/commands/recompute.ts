/**
 * `pmdata recompute positions`: rebuilds venue alpha's positions (docs/positions.md) in this process:
 * every change row and position again from the first block up to the chain's contiguous progress, then
 * the current prices. Takes the positions lease, so it never runs beside a scheduled run; the
 * incremental runs go on from where it ends.
 */
import { recomputePositions } from '../../analytics/positions/run.ts';
import type { Deps } from '../../core/deps.ts';
import { PermanentError } from '../../core/errors.ts';
import { alphaPositionsSettings, positionsDeps, withPositionsLease } from '../processors/alpha-positions.ts';
import { type CliOptions, defaultIo, fmt } from './io.ts';

export const RECOMPUTE_USAGE = 'Usage: pmdata recompute positions';

export async function runRecomputeCommand(
  argv: string[],
  deps: Deps,
  options: CliOptions = {},
): Promise<number> {
  const io = options.io ?? defaultIo;
  const [what] = argv.filter((a) => !a.startsWith('-'));
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(RECOMPUTE_USAGE);
    return 0;
  }
  if (what !== 'positions')
    throw new PermanentError(`recompute: unknown product "${what ?? ''}" (expected positions)`);
  const run = await withPositionsLease(deps, () =>
    recomputePositions(positionsDeps(deps), alphaPositionsSettings(deps.config)),
  );
  if (!run) {
    io.out('Another positions run holds the lease; try again when it finished');
    return 1;
  }
  io.out(
    `alpha positions: recomputed up to block ${fmt(run.to ?? 0)} in ${run.batches} batch(es), ` +
      `${fmt(run.events)} events, ${fmt(run.changes)} changes, ${fmt(run.positions)} position writes, ` +
      `${fmt(run.prices)} prices, ${(run.ms / 1000).toFixed(1)} s`,
  );
  return 0;
}
