/**
 * Where the market analytics stand against the chain tables (docs/analytics.md "Incremental runs"), both
 * read from the progress store (core/watermarks.ts):
 * - the chain's contiguous progress (analytics/shared/chain.ts `chainProgress`); rows above it may still
 *   be rewritten, so no run reads them;
 * - the analytics checkpoint (source `alpha-market-data`, stream `run`): the block a run computed up to,
 *   number and hash, always a block of `alpha_blocks` (a block that produced rows); a hash no longer
 *   there was orphaned by a reorg. Its `at` is the version of the run that committed it.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import { createWatermarks } from '../../core/watermarks.ts';
import { type BlockRef, commitRun, RUN_STREAM, runMark } from '../shared/chain.ts';

/** The market data's source in the progress store (the product's name). */
export const MARKET_DATA_SOURCE = 'alpha-market-data';

export interface AnalyticsCheckpoint extends BlockRef {
  /** The version of the run that wrote it. */
  version: number;
}

export function readAnalyticsCheckpoint(
  ch: ClickHouse,
  chainId: number,
): Promise<AnalyticsCheckpoint | null> {
  return runMark(ch, chainId, MARKET_DATA_SOURCE);
}

/**
 * Runs `write` (the rows up to `b`), then records that the analytics computed up to `b`; `version` (the
 * run's, Unix ms) orders checkpoints. With `range` (a backfilled range's recomputation, which leaves the
 * checkpoint where it is): the range's own mark instead, its block the last one recomputed.
 */
export async function writeAnalyticsCheckpoint(
  ch: ClickHouse,
  b: { number: number; hash: string },
  version: number,
  write?: () => Promise<void>,
  range?: { from: number; to: number },
): Promise<void> {
  await commitRun(
    ch,
    MARKET_DATA_SOURCE,
    {
      ...(range ? { kind: 'range', ...range } : { kind: 'head' }),
      block: b.number,
      hash: b.hash,
      at: version,
    },
    write,
  );
}

/** Forgets the analytics checkpoint (the next run recomputes everything). */
export async function forgetAnalyticsCheckpoint(ch: ClickHouse): Promise<void> {
  await createWatermarks(ch).forget(MARKET_DATA_SOURCE, RUN_STREAM);
}
