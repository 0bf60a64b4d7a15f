/**
 * The live follower: a small state machine over the unfinalized blocks, linked by parent hash.
 *
 *   idle ──head moved──▶ extend: fetch headers tip+1..to in batches
 *     extend ──parent hashes link──▶ ingest (rows pending/confirmed by depth) ──▶ checkpoint ──▶ finalize
 *     extend ──first parent ≠ tip──▶ reorg: common ancestor (memory, then the blocks table) ──▶ delete rows
 *                                     above it ──▶ checkpoint(ancestor) ──▶ next tick rescans
 *   finalize: rows at or below head − depth become confirmed (published again as confirmed)
 *
 * Invariants: the checkpoint (the head mark 'follow' of the chain's source in the progress store,
 * core/watermarks.ts: number and hash) is committed only after the rows of the blocks it covers are
 * inserted; a failed tick deletes whatever it may have written above the checkpoint, so a restart (or
 * the next tick) rescans from the checkpoint with nothing to duplicate. A restart whose checkpoint hash
 * is no longer canonical runs the reorg path first.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import { PermanentError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { BACKFILL_STREAM, createWatermarks, FOLLOW_STREAM } from '../../core/watermarks.ts';
import type { IngestOptions, RangeResult } from './pipeline.ts';
import { ReorgDetectedError } from './rpc-errors.ts';
import type { LogSource } from './source.ts';
import type { ChainTables } from './tables.ts';
import type { BlockHeader } from './types.ts';
import type { ChainWriter, RowSink } from './writer.ts';

export type TickOutcome =
  | { kind: 'idle'; head: number }
  | { kind: 'ingested'; from: number; to: number; head: number; logs: number; rows: number }
  | { kind: 'reorg'; ancestor: number; depth: number; removed: number; head: number };

/** Rows by event table (what a tick collected, or read back for a removal or a confirmation). */
export type RowsByTable<T extends string> = { [K in T]?: readonly object[] };

/** Where the follower's rows are published (the streaming service's feed). */
export interface RowPublisher<T extends string> {
  /** The event tables whose rows it publishes. */
  readonly tables: readonly T[];
  /** Publishes rows; `status` overrides each row's own (confirmed, or removed by a reorg). */
  publish(rows: RowsByTable<T>, status?: 'confirmed' | 'removed'): Promise<number>;
}

/** What the follower needs of a chain. */
export interface FollowTarget<T extends string> {
  source: Pick<LogSource, 'chainId' | 'headNumber' | 'getHeaders'>;
  writer: ChainWriter<T>;
  tables: ChainTables<T>;
  settings: {
    chainId: number;
    finalityDepth: number;
    /** First block on an empty database without a finished backfill. */
    startBlock: number;
    pollIntervalMs: number;
    followMaxBlocksPerTick: number;
  };
  ingestRange(from: number, to: number, opts: IngestOptions<T>): Promise<RangeResult>;
  /** A sink wrapper that keeps every row of one tick (rows written column by column included). */
  collector(): { tee(sink: RowSink<T>): RowSink<T>; rows(): RowsByTable<T> };
}

export interface FollowerOptions<T extends string> {
  chain: FollowTarget<T>;
  clickhouse: ClickHouse;
  log: Logger;
  publisher?: RowPublisher<T>;
  /** First block on an empty database (default: settings.startBlock). */
  fromBlock?: number;
}

export interface Follower {
  /** One step of the state machine. */
  tick(): Promise<TickOutcome>;
  /** Ticks until `signal` aborts, sleeping the poll interval when idle. */
  run(signal: AbortSignal, onTick?: (o: TickOutcome) => void): Promise<void>;
  /** The last block ingested (number and hash). */
  tip(): BlockHeader | undefined;
}

export function createFollower<T extends string>(o: FollowerOptions<T>): Follower {
  const { chain, log } = o;
  const { writer, source, settings, tables } = chain;
  const venue = tables.venue;
  const ENV = venue.toUpperCase();
  const blocksTable = tables.blocks.name;
  const depth = settings.finalityDepth;
  /** Unfinalized headers, ascending and contiguous, ending at the tip. */
  let chainHeaders: BlockHeader[] = [];
  let tipHeader: BlockHeader | undefined;
  /** The finalized block the last finalize handled (finalize does nothing until the head moves). */
  let finalizedDone = -1;
  let initialized = false;
  /** A finalize running behind the live ticks (run()): one at a time, its failure raised by the next tick. */
  let finalizing: Promise<void> | undefined;
  let finalizeError: unknown;

  async function canonical(numbers: number[]): Promise<Map<number, BlockHeader>> {
    return source.getHeaders(numbers);
  }

  async function init(): Promise<void> {
    const id = await source.chainId();
    if (id !== settings.chainId) {
      throw new PermanentError(`The RPC serves chain ${id}, but ${ENV}_CHAIN_ID is ${settings.chainId}`);
    }
    const cp = await writer.readMark(FOLLOW_STREAM);
    if (!cp) {
      const start = o.fromBlock ?? (await firstUnbackfilledBlock());
      if (start > 0) {
        const h = (await canonical([start - 1])).get(start - 1);
        if (!h) {
          const head = await source.headNumber();
          throw new PermanentError(
            start - 1 > head
              ? `The follower would start at block ${start} (${o.fromBlock !== undefined ? '--from-block' : `${ENV}_START_BLOCK, no finished backfill`}), above the node's head ${head}: pass --from-block or set ${ENV}_START_BLOCK`
              : `Block ${start - 1} is not available from the node`,
          );
        }
        tipHeader = h;
        chainHeaders = [h];
      } else {
        // Before genesis: block 0's parent hash is the zero hash.
        tipHeader = { number: -1, hash: `0x${'0'.repeat(64)}`, parentHash: '', timestampMs: 0 };
        chainHeaders = [];
      }
      // Rows above the start can only be a first tick that never reached its checkpoint: clear them.
      await writer.deleteRange(start);
      log.info({ start }, `Starting ${venue} follower without a checkpoint`);
    } else {
      const h = (await canonical([cp.blockNumber])).get(cp.blockNumber);
      tipHeader = { number: cp.blockNumber, hash: cp.blockHash, parentHash: '', timestampMs: 0 };
      chainHeaders = [];
      // Anything above the checkpoint was written by a tick that did not finish.
      await writer.deleteRange(cp.blockNumber + 1);
      if (!h || h.hash !== cp.blockHash) {
        log.warn({ block: cp.blockNumber }, 'Detected reorg while stopped');
        await rollback(await findAncestor());
      } else {
        tipHeader = h;
        chainHeaders = [h];
      }
    }
    initialized = true;
    log.info({ tip: tipHeader?.number }, `Started ${venue} follower`);
  }

  /**
   * Where a follower without a checkpoint starts: after the last finished backfill range (so `pmdata
   * backfill alpha` then `pmdata follow alpha` continues where the backfill stopped, also when the
   * backfill was given blocks below the start block), else at the start block.
   */
  async function firstUnbackfilledBlock(): Promise<number> {
    const ranges = await createWatermarks(o.clickhouse).list(writer.source, BACKFILL_STREAM);
    let afterBackfill: number | undefined;
    for (const r of ranges) {
      if (r.kind === 'range' && r.to !== undefined && (r.block ?? -1) >= r.to) {
        afterBackfill = Math.max(afterBackfill ?? 0, r.to + 1);
      }
    }
    return afterBackfill ?? settings.startBlock;
  }

  /**
   * The highest block we hold whose hash is still canonical. Looks at the in-memory chain first, then
   * at the blocks table (blocks that produced rows), never below the finality depth.
   */
  async function findAncestor(): Promise<BlockHeader> {
    const tip = tipHeader!;
    const floor = Math.max(0, tip.number - depth - 1);
    const known = new Map<number, string>();
    for (const h of chainHeaders) known.set(h.number, h.hash);
    known.set(tip.number, tip.hash);
    const stored = await o.clickhouse.query<{ number: string; hash: string }>(
      `${venue}.follow.stored_blocks`,
      `SELECT number, hash FROM ${blocksTable} FINAL WHERE chain_id = {chain:UInt32} AND number BETWEEN {lo:UInt64} AND {hi:UInt64}`,
      { chain: settings.chainId, lo: floor, hi: tip.number },
    );
    for (const s of stored) if (!known.has(Number(s.number))) known.set(Number(s.number), s.hash);
    const numbers = [...known.keys()].sort((a, b) => b - a);
    for (let i = 0; i < numbers.length; i += 100) {
      const chunk = numbers.slice(i, i + 100);
      const canon = await canonical(chunk);
      for (const n of chunk) {
        const c = canon.get(n);
        if (c && c.hash === known.get(n)) return c;
      }
    }
    // Nothing we hold is canonical any more: restart from the finality floor.
    const h = (await canonical([floor])).get(floor);
    if (!h)
      throw new PermanentError(`Reorg below block ${floor} (deeper than ${ENV}_FINALITY_DEPTH=${depth})`);
    log.error({ floor }, 'Detected reorg at the finality depth');
    return h;
  }

  async function readRowsAbove(block: number): Promise<RowsByTable<T>> {
    const out: { [K in T]?: object[] } = {};
    for (const table of o.publisher?.tables ?? []) {
      const rows = await o.clickhouse.query(
        `${venue}.follow.read.${table}`,
        `SELECT * FROM ${table} WHERE chain_id = {chain:UInt32} AND block_number > {b:UInt64} ORDER BY block_number, log_index`,
        { chain: settings.chainId, b: block },
      );
      out[table] = rows as object[];
    }
    return out;
  }

  async function rollback(ancestor: BlockHeader): Promise<number> {
    const removed = o.publisher ? await readRowsAbove(ancestor.number) : undefined;
    await writer.deleteRange(ancestor.number + 1);
    await writer.commit({ stream: FOLLOW_STREAM, blockNumber: ancestor.number, blockHash: ancestor.hash });
    await writer.markTip(ancestor);
    chainHeaders = chainHeaders.filter((h) => h.number < ancestor.number);
    chainHeaders.push(ancestor);
    tipHeader = ancestor;
    let n = 0;
    if (removed && o.publisher) n = await o.publisher.publish(removed, 'removed');
    return n;
  }

  /**
   * Confirms pending rows at or below head − depth, whoever wrote them (this follower, or a backfill job
   * that ran near the head). One cheap probe decides whether any mutation is needed.
   */
  async function finalize(head: number): Promise<void> {
    const finalized = head - depth;
    if (finalized <= finalizedDone) return;
    const probe = await o.clickhouse.query<{ t: string }>(
      `${venue}.follow.pending_probe`,
      tables.status
        .map(
          (t) =>
            `SELECT '${t}' AS t FROM (SELECT 1 FROM ${t} WHERE chain_id = {chain:UInt32} AND status = 'pending' AND block_number <= {b:UInt64} LIMIT 1)`,
        )
        .join(' UNION ALL '),
      { chain: settings.chainId, b: finalized },
    );
    const pending = probe.map((r) => r.t as T);
    if (pending.length > 0) {
      const confirmed = o.publisher ? await readPending(finalized, pending) : undefined;
      await writer.confirmUpTo(finalized, pending);
      if (confirmed && o.publisher) await o.publisher.publish(confirmed, 'confirmed');
    }
    finalizedDone = finalized;
    chainHeaders = chainHeaders.filter((h) => h.number >= finalized);
  }

  async function readPending(upTo: number, pending: T[]): Promise<RowsByTable<T>> {
    const out: { [K in T]?: object[] } = {};
    for (const table of o.publisher?.tables ?? []) {
      if (!pending.includes(table)) continue;
      out[table] = await o.clickhouse.query<object>(
        `${venue}.follow.pending.${table}`,
        `SELECT * FROM ${table} WHERE chain_id = {chain:UInt32} AND status = 'pending' AND block_number <= {b:UInt64} ORDER BY block_number, log_index`,
        { chain: settings.chainId, b: upTo },
      );
    }
    return out;
  }

  /**
   * Confirmation is an engine mutation per table (seconds on the embedded engine), so the live loop
   * runs it behind the ticks: the next block's pending rows are ingested and published while the
   * previous confirmation runs, instead of waiting for it. One runs at a time; a tick that finds one
   * running leaves its own to a later tick.
   */
  function finalizeBehind(head: number): void {
    if (finalizing) return;
    finalizing = finalize(head)
      .catch((err) => {
        finalizeError = err;
      })
      .finally(() => {
        finalizing = undefined;
      });
  }

  async function settleFinalize(): Promise<void> {
    await finalizing;
    if (finalizeError !== undefined) {
      const err = finalizeError;
      finalizeError = undefined;
      throw err;
    }
  }

  async function step(behind: boolean): Promise<TickOutcome> {
    if (finalizeError !== undefined || !behind) await settleFinalize();
    const confirm = async (head: number) => (behind ? finalizeBehind(head) : finalize(head));
    if (!initialized) await init();
    const head = await source.headNumber();
    const tip = tipHeader!;
    if (head <= tip.number) {
      // The head may have moved back (a reorg onto a shorter chain): is our tip still canonical?
      const c = (await canonical([tip.number])).get(tip.number);
      if (!c || c.hash !== tip.hash) return reorg(head);
      await confirm(head);
      return { kind: 'idle', head };
    }
    const to = Math.min(head, tip.number + settings.followMaxBlocksPerTick);
    const numbers: number[] = [];
    for (let n = tip.number + 1; n <= to; n++) numbers.push(n);
    const fetched = await canonical(numbers);
    const next: BlockHeader[] = [];
    let parent = tip;
    for (const n of numbers) {
      const h = fetched.get(n);
      if (!h || h.parentHash !== parent.hash) break;
      next.push(h);
      parent = h;
    }
    if (next.length === 0) {
      const first = fetched.get(tip.number + 1);
      if (first && first.parentHash !== tip.hash) return reorg(head);
      return { kind: 'idle', head };
    }
    const end = next[next.length - 1]!;
    const known = new Map(next.map((h) => [h.number, h]));
    const statusOf = (b: number) => (b <= head - depth ? 'confirmed' : 'pending');
    const collector = o.publisher ? chain.collector() : undefined;
    let result: RangeResult;
    try {
      result = await chain.ingestRange(tip.number + 1, end.number, {
        statusOf,
        knownHeaders: known,
        tee: collector?.tee,
      });
      await writer.flush();
    } catch (err) {
      // Leave nothing above the checkpoint: the next tick rescans this range.
      await writer.flush().catch(() => {});
      await writer.deleteRange(tip.number + 1);
      if (err instanceof ReorgDetectedError) {
        log.info({ block: err.blockNumber }, 'Detected chain change during ingestion');
        return { kind: 'idle', head };
      }
      throw err;
    }
    // Published once the rows are in ClickHouse (a client's REST catch-up finds them), before the
    // checkpoint: its insert can wait behind a running confirmation. A crash before the checkpoint
    // publishes the range again after the restart (the same rows, pending again).
    if (collector && o.publisher) await o.publisher.publish(collector.rows());
    await writer.commit({ stream: FOLLOW_STREAM, blockNumber: end.number, blockHash: end.hash });
    await writer.markTip(end);
    for (const h of next) chainHeaders.push(h);
    tipHeader = end;
    await confirm(head);
    return {
      kind: 'ingested',
      from: tip.number + 1,
      to: end.number,
      head,
      logs: result.logs,
      rows: result.rows,
    };
  }

  async function reorg(head: number): Promise<TickOutcome> {
    await settleFinalize();
    const tip = tipHeader!;
    const ancestor = await findAncestor();
    const removed = await rollback(ancestor);
    log.warn({ ancestor: ancestor.number, depth: tip.number - ancestor.number, removed }, 'Detected reorg');
    return { kind: 'reorg', ancestor: ancestor.number, depth: tip.number - ancestor.number, removed, head };
  }

  return {
    tick: () => step(false),
    tip: () => tipHeader,
    async run(signal, onTick) {
      try {
        while (!signal.aborted) {
          const outcome = await step(true);
          onTick?.(outcome);
          if (outcome.kind === 'idle') {
            await sleep(settings.pollIntervalMs, undefined, { signal }).catch(() => {});
          }
        }
      } finally {
        await finalizing;
      }
    },
  };
}
