/**
 * The blocks of venue alpha's chain as every product reads them (`alpha_blocks`: a block that produced
 * rows): the block at or below / at or above a number, and whether a (number, hash) is still canonical (a
 * reorg deletes the blocks it orphans). Shared by the products; none reads another's internals for it.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';

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
