/**
 * Where the market analytics stand against the chain tables (docs/analytics.md "Incremental runs"), both
 * read from the progress store (core/watermarks.ts):
 * - the chain's contiguous progress (`contiguous` of source `alpha-chain`: the follower's mark, or the
 *   end of the finished backfill ranges that join up from the lowest one, a range's partial mark
 *   extending it, whichever is higher); rows above it may still be rewritten, so no run reads them;
 * - the analytics checkpoint (source `alpha-market-data`, stream `run`): the block a run computed up to,
 *   number and hash, always a block of `alpha_blocks` (a block that produced rows); a hash no longer
 *   there was orphaned by a reorg. Its `at` is the version of the run that committed it.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import { createWatermarks } from '../../core/watermarks.ts';

/** The chain's source in the progress store (ingest/chain/tables.ts `chainSource` of alpha's chain). */
export const ALPHA_CHAIN_SOURCE = 'alpha-chain';
/** The market data's source in the progress store (the product's name) and its run's stream. */
export const MARKET_DATA_SOURCE = 'alpha-market-data';
export const RUN_STREAM = 'run';

export interface BlockRef {
  number: number;
  hash: string;
  /** Unix ms. */
  time: number;
}

/** The chain's contiguous progress (number and hash), or null when nothing was ingested yet. */
export async function chainProgress(ch: ClickHouse): Promise<{ number: number; hash: string } | null> {
  const p = await createWatermarks(ch).contiguous(ALPHA_CHAIN_SOURCE);
  return p ? { number: p.block, hash: p.hash } : null;
}

/** The highest block of `alpha_blocks` at or below `number` (a block that produced rows). */
export async function blockAtOrBelow(
  ch: ClickHouse,
  chainId: number,
  number: number,
): Promise<BlockRef | null> {
  const rows = await ch.query<{ number: string; hash: string; t: string }>(
    'analytics.block_below',
    `SELECT number, hash, toUnixTimestamp64Milli(timestamp) AS t FROM alpha_blocks
     WHERE chain_id = {chain:UInt32} AND number <= {n:UInt64} ORDER BY number DESC LIMIT 1`,
    { chain: chainId, n: number },
  );
  const r = rows[0];
  return r ? { number: Number(r.number), hash: r.hash, time: Number(r.t) } : null;
}

/** The lowest block of `alpha_blocks` at or above `number`. */
export async function blockAtOrAbove(
  ch: ClickHouse,
  chainId: number,
  number: number,
): Promise<BlockRef | null> {
  const rows = await ch.query<{ number: string; hash: string; t: string }>(
    'analytics.block_above',
    `SELECT number, hash, toUnixTimestamp64Milli(timestamp) AS t FROM alpha_blocks
     WHERE chain_id = {chain:UInt32} AND number >= {n:UInt64} ORDER BY number ASC LIMIT 1`,
    { chain: chainId, n: number },
  );
  const r = rows[0];
  return r ? { number: Number(r.number), hash: r.hash, time: Number(r.t) } : null;
}

/** Whether (number, hash) is still a block of `alpha_blocks` (a reorg deletes the blocks it orphans). */
export async function isCanonical(ch: ClickHouse, chainId: number, b: { number: number; hash: string }) {
  const rows = await ch.query<{ n: string }>(
    'analytics.canonical',
    `SELECT count() AS n FROM alpha_blocks
     WHERE chain_id = {chain:UInt32} AND number = {n:UInt64} AND hash = {h:String}`,
    { chain: chainId, n: b.number, h: b.hash },
  );
  return Number(rows[0]?.n ?? 0) > 0;
}

export interface AnalyticsCheckpoint extends BlockRef {
  /** The version of the run that wrote it. */
  version: number;
}

export async function readAnalyticsCheckpoint(
  ch: ClickHouse,
  chainId: number,
): Promise<AnalyticsCheckpoint | null> {
  const m = await createWatermarks(ch).read(MARKET_DATA_SOURCE, RUN_STREAM);
  if (m?.block === undefined) return null;
  const r = { n: m.block, h: m.hash ?? '' };
  const block = await ch.query<{ t: string }>(
    'analytics.checkpoint.time',
    `SELECT toUnixTimestamp64Milli(any(timestamp)) AS t FROM alpha_blocks
     WHERE chain_id = {chain:UInt32} AND number = {n:UInt64} AND hash = {h:String}`,
    { chain: chainId, n: r.n, h: r.h },
  );
  return { number: r.n, hash: r.h, time: Number(block[0]?.t ?? 0), version: m.at };
}

/** Records that the analytics computed up to `b`; `version` (the run's, Unix ms) orders checkpoints. */
export async function writeAnalyticsCheckpoint(
  ch: ClickHouse,
  b: { number: number; hash: string },
  version: number,
): Promise<void> {
  await createWatermarks(ch).commit({
    source: MARKET_DATA_SOURCE,
    stream: RUN_STREAM,
    kind: 'head',
    block: b.number,
    hash: b.hash,
    at: version,
  });
}

/** Forgets the analytics checkpoint (the next run recomputes everything). */
export async function forgetAnalyticsCheckpoint(ch: ClickHouse): Promise<void> {
  await createWatermarks(ch).forget(MARKET_DATA_SOURCE, RUN_STREAM);
}
