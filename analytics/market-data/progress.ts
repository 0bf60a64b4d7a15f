/**
 * Where the market analytics stand against the chain tables (docs/analytics.md "Incremental runs"):
 * - the chain's contiguous progress: the follower's checkpoint, or the end of the finished backfill
 *   ranges that join up from the lowest one (a range's partial checkpoint extends it), whichever is
 *   higher; rows above it may still be rewritten, so no run reads them;
 * - the analytics checkpoint (`alpha_checkpoints`, pipeline `analytics:market-data`): the block a run
 *   computed up to, number and hash, always a block of `alpha_blocks` (a block that produced rows);
 *   a hash no longer there was orphaned by a reorg.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { BlockRef } from '../shared/chain.ts';

export const ANALYTICS_PIPELINE = 'analytics:market-data';

/** The chain's contiguous progress (number and hash), or null when nothing was ingested yet. */
export async function chainProgress(
  ch: ClickHouse,
  chainId: number,
): Promise<{ number: number; hash: string } | null> {
  const rows = await ch.query<{ pipeline: string; n: string; h: string }>(
    'analytics.progress',
    `SELECT pipeline, argMax(block_number, updated_at) AS n, argMax(block_hash, updated_at) AS h
     FROM alpha_checkpoints
     WHERE chain_id = {chain:UInt32} AND (pipeline = 'follow' OR startsWith(pipeline, 'backfill:'))
     GROUP BY pipeline`,
    { chain: chainId },
  );
  let best: { number: number; hash: string } | null = null;
  const follow = rows.find((r) => r.pipeline === 'follow');
  if (follow) best = { number: Number(follow.n), hash: follow.h };
  const ranges = rows
    .filter((r) => r.pipeline.startsWith('backfill:'))
    .map((r) => {
      const [from, to] = r.pipeline.slice('backfill:'.length).split('-').map(Number) as [number, number];
      return { from, to, at: Number(r.n), hash: r.h };
    })
    .filter((r) => r.at >= r.from)
    .sort((a, b) => a.from - b.from);
  let end: { number: number; hash: string } | null = null;
  for (const r of ranges) {
    if (end !== null && r.from > end.number + 1) break;
    if (end === null || r.at > end.number) end = { number: r.at, hash: r.hash };
    if (r.at < r.to) break; // an unfinished range: nothing above it joins up yet
  }
  if (end && (!best || end.number > best.number)) best = end;
  return best;
}

export interface AnalyticsCheckpoint extends BlockRef {
  /** The version of the run that wrote it. */
  version: number;
}

export async function readAnalyticsCheckpoint(
  ch: ClickHouse,
  chainId: number,
): Promise<AnalyticsCheckpoint | null> {
  const rows = await ch.query<{ n: string; h: string; v: string }>(
    'analytics.checkpoint.read',
    `SELECT argMax(block_number, updated_at) AS n, argMax(block_hash, updated_at) AS h,
       toUnixTimestamp64Milli(max(updated_at)) AS v
     FROM alpha_checkpoints WHERE chain_id = {chain:UInt32} AND pipeline = {p:String} GROUP BY pipeline`,
    { chain: chainId, p: ANALYTICS_PIPELINE },
  );
  const r = rows[0];
  if (!r) return null;
  const block = await ch.query<{ t: string }>(
    'analytics.checkpoint.time',
    `SELECT toUnixTimestamp64Milli(any(timestamp)) AS t FROM alpha_blocks
     WHERE chain_id = {chain:UInt32} AND number = {n:UInt64} AND hash = {h:String}`,
    { chain: chainId, n: r.n, h: r.h },
  );
  return { number: Number(r.n), hash: r.h, time: Number(block[0]?.t ?? 0), version: Number(r.v) };
}

/** Records that the analytics computed up to `b`; `version` (the run's, Unix ms) orders checkpoints. */
export async function writeAnalyticsCheckpoint(
  ch: ClickHouse,
  chainId: number,
  b: { number: number; hash: string },
  version: number,
): Promise<void> {
  await ch.insert('analytics.checkpoint.write', 'alpha_checkpoints', [
    {
      chain_id: chainId,
      pipeline: ANALYTICS_PIPELINE,
      block_number: b.number,
      block_hash: b.hash,
      updated_at: version,
    },
  ]);
}

/** Forgets the analytics checkpoint (the next run recomputes everything). */
export async function forgetAnalyticsCheckpoint(ch: ClickHouse, chainId: number): Promise<void> {
  await ch.command(
    'analytics.checkpoint.forget',
    'DELETE FROM alpha_checkpoints WHERE chain_id = {chain:UInt32} AND pipeline = {p:String}',
    { chain: chainId, p: ANALYTICS_PIPELINE },
  );
}
