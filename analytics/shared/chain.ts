/**
 * Venue alpha's chain as every product reads it: its contiguous progress and a product's run mark (the
 * progress store, core/watermarks.ts: every product run commits one, `commitRun`, after its writes; its
 * `at` is the freshness gauge, `lastRun`), and its blocks (`alpha_blocks`: a block that produced rows): the
 * block at or below / at or above a number, and whether a (number, hash) is still canonical (a reorg
 * deletes the blocks it orphans). Shared by the products; none reads another's internals for it.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import { createWatermarks, type Mark, type Watermark } from '../../core/watermarks.ts';

/** The chain's source in the progress store (ingest/chain/tables.ts `chainSource` of alpha's chain). */
export const ALPHA_CHAIN_SOURCE = 'alpha-chain';
/** A product's run stream in the progress store. */
export const RUN_STREAM = 'run';

/**
 * The chain's contiguous progress (number and hash), or null when nothing was ingested yet: `contiguous`
 * of source `alpha-chain` (the follower's mark, or the end of the finished backfill ranges that join up
 * from the lowest one, a range's partial mark extending it, whichever is higher).
 */
export async function chainProgress(ch: ClickHouse): Promise<{ number: number; hash: string } | null> {
  const p = await createWatermarks(ch).contiguous(ALPHA_CHAIN_SOURCE);
  return p ? { number: p.block, hash: p.hash } : null;
}

/**
 * A product's run mark (source: the product's name, stream `run`): the block it computed up to, that
 * block's time (0 when a reorg orphaned it) and the version (`at`) of the run that committed it.
 */
export async function runMark(
  ch: ClickHouse,
  chainId: number,
  product: string,
): Promise<(BlockRef & { version: number }) | null> {
  const m = await createWatermarks(ch).read(product, RUN_STREAM);
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

/**
 * Commits a product's run mark (source: the product's name, stream `run`): runs `write` (the run's
 * writes), then records the mark, so it is never visible before its data. A head mark for the product's
 * progress (`at`: the run's version where its rows carry one); a range mark (`from`/`to`) for the
 * recomputation of a backfilled range.
 */
export function commitRun(
  ch: ClickHouse,
  product: string,
  mark: Omit<Mark, 'source' | 'stream'>,
  write?: () => Promise<void>,
): Promise<Watermark> {
  return createWatermarks(ch).commit({ source: product, stream: RUN_STREAM, ...mark }, write);
}

/**
 * When a product's last run landed (Unix ms): the `at` of its head run mark (its run's version, or the
 * commit's wall clock), or null when it never ran. The freshness gauge is now − that.
 */
export async function lastRun(ch: ClickHouse, product: string): Promise<number | null> {
  return (await createWatermarks(ch).read(product, RUN_STREAM))?.at ?? null;
}

export interface BlockRef {
  number: number;
  hash: string;
  /** Unix ms. */
  time: number;
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
