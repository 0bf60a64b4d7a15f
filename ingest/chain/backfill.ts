/**
 * Backfill of block ranges. A backfill is planned as a token pass over the whole range (so every job
 * knows every token's condition, whatever order jobs run in) and then range jobs of
 * `backfillJobBlocks` blocks, aligned to multiples of that size so overlapping backfills share job
 * ids. A job id is derived from its range: enqueueing the same range twice is harmless.
 *
 * A range job is idempotent and resumable: it keeps a checkpoint (number and hash, written after the
 * data) every few pages; on a restart it deletes whatever the crashed attempt wrote above its
 * checkpoint and goes on from there. A finished range is skipped.
 */

import { ingestRangeOnWorkers, usesPageWorkers } from './page-workers.ts';
import type { AlphaChain } from '../venues/alpha/chain/pipeline.ts';
import type { BlockHeader } from './types.ts';
import type { Status } from '../venues/alpha/chain/rows.ts';

export interface BlockRange {
  from: number;
  to: number;
}

export function backfillPipeline(r: BlockRange): string {
  return `backfill:${r.from}-${r.to}`;
}

/** BullMQ job id of a range (no ':' — BullMQ reserves it). */
export function backfillJobId(chainId: number, r: BlockRange): string {
  return `alpha-backfill-${chainId}-${r.from}-${r.to}`;
}

/** Splits [from, to] into ranges aligned to multiples of `size`. */
export function planBackfillRanges(from: number, to: number, size: number): BlockRange[] {
  const out: BlockRange[] = [];
  let start = from;
  while (start <= to) {
    const end = Math.min(to, (Math.floor(start / size) + 1) * size - 1);
    out.push({ from: start, to: end });
    start = end + 1;
  }
  return out;
}

export interface RangeProgress {
  /** Blocks of the range done so far (including earlier attempts). */
  blocksDone: number;
  logs: number;
  rows: number;
}

export interface BackfillRangeResult {
  skipped: boolean;
  /** Logs handled by page workers (page-workers.ts), when the range was spread over them. */
  workerLogs?: number;
  /** Where the time went (ms): waiting for log pages, for headers, for a free insert slot. */
  waits?: { fetchMs: number; headersMs: number; insertMs: number };
  resumedFrom: number;
  logs: number;
  rows: number;
  quarantined: number;
}

export interface RangeJobOptions {
  /** Chain head for pending/confirmed status (default: asked from the node). */
  head?: number;
  /** Minimum blocks between intermediate checkpoints. */
  checkpointEveryBlocks?: number;
  onProgress?(p: RangeProgress): void;
  signal?: AbortSignal;
}

export async function runBackfillRange(
  chain: AlphaChain,
  range: BlockRange,
  opts: RangeJobOptions = {},
): Promise<BackfillRangeResult> {
  const { writer, source, settings } = chain;
  const pipeline = backfillPipeline(range);
  const cp = await writer.readCheckpoint(pipeline);
  if (cp && cp.blockNumber >= range.to) {
    return { skipped: true, resumedFrom: range.to + 1, logs: 0, rows: 0, quarantined: 0 };
  }
  let resumeFrom = range.from;
  if (cp && cp.blockNumber >= range.from) {
    const h = (await source.getHeaders([cp.blockNumber])).get(cp.blockNumber);
    // A checkpoint whose block is no longer canonical (a range inside the unfinalized zone) restarts.
    resumeFrom = h && h.hash === cp.blockHash ? cp.blockNumber + 1 : range.from;
  }
  // Whatever an interrupted attempt wrote above its checkpoint is rewritten.
  if (await writer.hasRows(resumeFrom, range.to, chain.rangeTables)) {
    await writer.deleteRange(resumeFrom, range.to, chain.rangeTables);
  }

  const head = opts.head ?? (await source.headNumber());
  const confirmedUpTo = head - settings.finalityDepth;
  const statusOf = (b: number): Status => (b <= confirmedUpTo ? 'confirmed' : 'pending');
  const every = opts.checkpointEveryBlocks ?? Math.max(1, Math.floor((range.to - range.from + 1) / 4));
  let lastCheckpoint = resumeFrom - 1;
  const insertWaitBefore = writer.waitedMs;
  let logs = 0;
  let rows = 0;
  let quarantined = 0;
  const checkpoint = async (to: number, endHeader: BlockHeader, handOver?: () => Promise<void>) => {
    if (to - lastCheckpoint < every || to >= range.to) return;
    await handOver?.();
    await writer.flush();
    await writer.writeCheckpoint({ pipeline, blockNumber: to, blockHash: endHeader.hash });
    lastCheckpoint = to;
  };
  let result: {
    endHeader: BlockHeader | undefined;
    waitFetchMs: number;
    waitHeadersMs: number;
    workerLogs?: number;
  };
  if (usesPageWorkers(chain, resumeFrom, range.to)) {
    // Chunks finish out of order: progress counts every page, checkpoints follow the frontier.
    let frontier = resumeFrom - 1;
    result = await ingestRangeOnWorkers(chain, resumeFrom, range.to, {
      confirmedUpTo,
      signal: opts.signal,
      onPage: (p) => {
        logs += p.logs;
        rows += p.rows;
        quarantined += p.stats.quarantined;
        opts.onProgress?.({ blocksDone: frontier - range.from + 1, logs, rows });
      },
      onFrontier: async (f, handOver) => {
        frontier = f.to;
        await checkpoint(f.to, f.endHeader, handOver);
        opts.onProgress?.({ blocksDone: f.to - range.from + 1, logs, rows });
      },
    });
  } else {
    result = await chain.ingestRange(resumeFrom, range.to, {
      statusOf,
      writeTokens: false,
      onPage: async (page) => {
        logs += page.logs;
        rows += page.rows;
        quarantined += page.stats.quarantined;
        await checkpoint(page.to, page.endHeader);
        opts.onProgress?.({ blocksDone: page.to - range.from + 1, logs, rows });
        if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
      },
    });
  }
  await writer.flush();
  if (result.endHeader) {
    await writer.writeCheckpoint({ pipeline, blockNumber: range.to, blockHash: result.endHeader.hash });
  }
  return {
    skipped: false,
    resumedFrom: resumeFrom,
    logs,
    rows,
    quarantined,
    ...(result.workerLogs !== undefined ? { workerLogs: result.workerLogs } : {}),
    waits: {
      fetchMs: Math.round(result.waitFetchMs),
      headersMs: Math.round(result.waitHeadersMs),
      insertMs: Math.round(writer.waitedMs - insertWaitBefore),
    },
  };
}
