/**
 * Backfill of block ranges. A backfill is planned as range jobs of a fixed number of blocks, aligned to
 * multiples of that size so overlapping backfills share job ids (a job id is derived from its range:
 * enqueueing the same range twice is harmless); a venue may run a reference pass over the whole range
 * first (alpha: its tokens, so every job knows every token's condition whatever order jobs run in).
 *
 * A range job is idempotent and resumable: it keeps its range's mark (stream 'backfill', kind 'range' with
 * the range's bounds, in the progress store: number and hash, committed after the data: ChainWriter.commit)
 * every few pages; on a restart it deletes whatever the crashed attempt wrote above its mark and goes on
 * from there. A finished range is skipped.
 */

import { BACKFILL_STREAM } from '../../core/watermarks.ts';
import type { LogSource } from './source.ts';
import type { BlockHeader, MapStats, Status } from './types.ts';
import type { ChainWriter } from './writer.ts';

export interface BlockRange {
  from: number;
  to: number;
}

/** BullMQ job id of a venue's range (no ':' — BullMQ reserves it). */
export function backfillJobId(venue: string, chainId: number, r: BlockRange): string {
  return `${venue}-backfill-${chainId}-${r.from}-${r.to}`;
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
  /** Logs handled by page workers, when the range was spread over them. */
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
  /** Minimum blocks between intermediate marks. */
  checkpointEveryBlocks?: number;
  onProgress?(p: RangeProgress): void;
  signal?: AbortSignal;
}

/** How a venue walks the blocks of one range job (in this thread, or spread over page workers). */
export type RangeWalk = (
  from: number,
  to: number,
  o: {
    statusOf(block: number): Status;
    /** Blocks at or below are confirmed (what `statusOf` says, for threads that cannot share it). */
    confirmedUpTo: number;
    signal?: AbortSignal;
    /** Each page handed to the writer, in any order. */
    onPage(p: { logs: number; rows: number; stats: MapStats }): void;
    /**
     * Every block up to `to` is handed to the writer, one call at a time; `handOver` (page workers)
     * makes every thread hand over the rows it still holds.
     */
    onFrontier(f: { to: number; endHeader: BlockHeader }, handOver?: () => Promise<void>): Promise<void>;
  },
) => Promise<{
  endHeader: BlockHeader | undefined;
  waitFetchMs: number;
  waitHeadersMs: number;
  workerLogs?: number;
}>;

/** What a range job needs of a chain. */
export interface RangeTarget<T extends string> {
  source: Pick<LogSource, 'getHeaders' | 'headNumber'>;
  writer: ChainWriter<T>;
  finalityDepth: number;
  /** Tables a range job rewrites (the reference pass's are left alone). */
  rangeTables: readonly T[];
  walk: RangeWalk;
}

/** One range job: resume from its mark, rewrite what lies above it, commit marks as it goes. */
export async function runBackfillRange<T extends string>(
  chain: RangeTarget<T>,
  range: BlockRange,
  opts: RangeJobOptions = {},
): Promise<BackfillRangeResult> {
  const { writer, source } = chain;
  const span = { from: range.from, to: range.to };
  const cp = await writer.readMark(BACKFILL_STREAM, span);
  if (cp && cp.blockNumber >= range.to) {
    return { skipped: true, resumedFrom: range.to + 1, logs: 0, rows: 0, quarantined: 0 };
  }
  let resumeFrom = range.from;
  if (cp && cp.blockNumber >= range.from) {
    const h = (await source.getHeaders([cp.blockNumber])).get(cp.blockNumber);
    // A mark whose block is no longer canonical (a range inside the unfinalized zone) restarts.
    resumeFrom = h && h.hash === cp.blockHash ? cp.blockNumber + 1 : range.from;
  }
  // Whatever an interrupted attempt wrote above its mark is rewritten.
  if (await writer.hasRows(resumeFrom, range.to, chain.rangeTables)) {
    await writer.deleteRange(resumeFrom, range.to, chain.rangeTables);
  }

  const head = opts.head ?? (await source.headNumber());
  const confirmedUpTo = head - chain.finalityDepth;
  const statusOf = (b: number): Status => (b <= confirmedUpTo ? 'confirmed' : 'pending');
  const every = opts.checkpointEveryBlocks ?? Math.max(1, Math.floor((range.to - range.from + 1) / 4));
  let lastCheckpoint = resumeFrom - 1;
  let frontier = resumeFrom - 1;
  const insertWaitBefore = writer.waitedMs;
  let logs = 0;
  let rows = 0;
  let quarantined = 0;
  const result = await chain.walk(resumeFrom, range.to, {
    statusOf,
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
      if (f.to - lastCheckpoint >= every && f.to < range.to) {
        await handOver?.();
        await writer.commit({
          stream: BACKFILL_STREAM,
          range: span,
          blockNumber: f.to,
          blockHash: f.endHeader.hash,
        });
        lastCheckpoint = f.to;
      }
      opts.onProgress?.({ blocksDone: f.to - range.from + 1, logs, rows });
    },
  });
  if (result.endHeader) {
    await writer.commit({
      stream: BACKFILL_STREAM,
      range: span,
      blockNumber: range.to,
      blockHash: result.endHeader.hash,
    });
  } else await writer.flush();
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

/** The in-thread walk: `ingest` over [from, to], each page's end a frontier. */
export function pageWalk(
  ingest: (
    from: number,
    to: number,
    o: {
      statusOf(block: number): Status;
      onPage(p: {
        to: number;
        endHeader: BlockHeader;
        logs: number;
        rows: number;
        stats: MapStats;
      }): Promise<void>;
    },
  ) => Promise<{ endHeader: BlockHeader | undefined; waitFetchMs: number; waitHeadersMs: number }>,
): RangeWalk {
  return (from, to, o) =>
    ingest(from, to, {
      statusOf: o.statusOf,
      onPage: async (page) => {
        o.onPage(page);
        await o.onFrontier({ to: page.to, endHeader: page.endHeader });
        if (o.signal?.aborted) throw o.signal.reason ?? new Error('aborted');
      },
    });
}
