/**
 * Watching a backfill's range jobs: their states and results, the progress line (blocks/s, events/s,
 * ETA) and the totals of the final summary.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Job, JobState } from 'bullmq';
import { type CliIo, fmt, formatDuration } from './io.ts';

/**
 * The backfill's ETA: the blocks left divided by the rate of the last `windowMs` (30 s), not of the
 * whole run. A chain's density changes (the benchmark world's first 350 blocks hold 30,000 logs, its
 * last 220 the other 5M), and a stall longer than the window shows as an unknown ETA ("?") instead of
 * a shrinking one.
 */
export function createEta(totalBlocks: number, startMs: number, windowMs = 30_000) {
  const samples: { t: number; blocks: number }[] = [{ t: startMs, blocks: 0 }];
  return {
    /** Records `blocks` done at `nowMs`; returns the seconds left (Infinity when nothing moved). */
    update(nowMs: number, blocks: number): number {
      samples.push({ t: nowMs, blocks });
      while (samples.length > 2 && nowMs - samples[1]!.t >= windowMs) samples.shift();
      const since = samples[0]!;
      const rate = nowMs > since.t ? ((blocks - since.blocks) * 1000) / (nowMs - since.t) : 0;
      return rate > 0 ? (totalBlocks - blocks) / rate : Number.POSITIVE_INFINITY;
    },
  };
}

/** What the watcher reads of the queue (a BullMQ `Queue` is one). */
export interface RangeJobs {
  getJobState(id: string): Promise<JobState | 'unknown'>;
  getJob(id: string): Promise<Job | undefined>;
}

export interface RangeResult {
  logs: number;
  rows: number;
  quarantined: number;
}

export type RangeJobStatus =
  | { state: 'completed'; result: RangeResult }
  | { state: 'failed'; reason: string }
  | { state: 'active'; blocksDone: number; logs: number }
  | { state: 'pending' };

/**
 * One range job's status. The state is read before the job: a job that completes between the two
 * reads is then seen as active (and counted at the next look) — reading the job first and its state
 * second counted such a job as completed with the empty result of the earlier read.
 */
export async function readRangeJob(jobs: RangeJobs, id: string): Promise<RangeJobStatus> {
  const state = await jobs.getJobState(id);
  if (state !== 'completed' && state !== 'failed' && state !== 'active') return { state: 'pending' };
  const job = await jobs.getJob(id);
  if (!job) return { state: 'pending' };
  if (state === 'completed') {
    const rv = job.returnvalue as Partial<RangeResult> | null;
    return {
      state,
      result: { logs: rv?.logs ?? 0, rows: rv?.rows ?? 0, quarantined: rv?.quarantined ?? 0 },
    };
  }
  if (state === 'failed') return { state, reason: job.failedReason };
  const p = (job.progress && typeof job.progress === 'object' ? job.progress : {}) as {
    blocksDone?: number;
    logs?: number;
  };
  return { state, blocksDone: p.blocksDone ?? 0, logs: p.logs ?? 0 };
}

export interface WatchOptions {
  jobs: RangeJobs;
  /** The jobs' ids and their block ranges, in block order. */
  ranges: readonly { id: string; from: number; to: number }[];
  io: CliIo;
  signal: AbortSignal;
  /** Progress interval (ms); five times longer when the output is not a terminal. */
  progressEveryMs?: number;
  /** When the backfill started (performance.now()). */
  startedMs: number;
}

export interface WatchResult {
  /** Results of the jobs that completed. */
  done: Map<string, RangeResult>;
  /** The first failed job, `id: reason`. */
  failed?: string;
  /** Blocks and events done at the last look (finished jobs, and running ones' progress). */
  blocksSeen: number;
  logsSeen: number;
}

/**
 * Looks at the jobs until all completed, one failed, or `signal` stops the watch, printing a progress
 * line every `progressEveryMs`.
 */
export async function watchRangeJobs(opts: WatchOptions): Promise<WatchResult> {
  const { jobs, ranges, io, signal } = opts;
  const totalBlocks = ranges.reduce((a, r) => a + r.to - r.from + 1, 0);
  const done = new Map<string, RangeResult>();
  const out: WatchResult = { done, blocksSeen: 0, logsSeen: 0 };
  const progressEvery = opts.progressEveryMs ?? 1000;
  const eta = createEta(totalBlocks, performance.now());
  let lastLine = 0;
  for (;;) {
    let blocks = 0;
    let logs = 0;
    let examined = 0;
    for (const r of ranges) {
      if (done.has(r.id)) continue;
      // Jobs run roughly in order: looking at the first pending ones is enough for progress.
      if (++examined > 64) break;
      const s = await readRangeJob(jobs, r.id);
      if (s.state === 'completed') done.set(r.id, s.result);
      else if (s.state === 'failed') out.failed ??= `${r.id}: ${s.reason}`;
      else if (s.state === 'active') {
        blocks += s.blocksDone;
        logs += s.logs;
      }
    }
    for (const r of ranges) {
      const d = done.get(r.id);
      if (!d) continue;
      blocks += r.to - r.from + 1;
      logs += d.logs;
    }
    out.blocksSeen = blocks;
    out.logsSeen = logs;
    const now = performance.now();
    const seconds = (now - opts.startedMs) / 1000;
    const etaSeconds = eta.update(now, blocks);
    if (now - lastLine >= (io.isTTY ? progressEvery : progressEvery * 5) || done.size === ranges.length) {
      lastLine = now;
      io.progress(
        `alpha backfill ${fmt(blocks)}/${fmt(totalBlocks)} blocks (${((100 * blocks) / totalBlocks).toFixed(1)}%) ` +
          `${fmt(blocks / seconds)} blocks/s ${fmt(logs / seconds)} events/s ETA ${formatDuration(etaSeconds)} ` +
          `jobs ${done.size}/${ranges.length}`,
        io.isTTY,
      );
    }
    if (out.failed || done.size === ranges.length || signal.aborted) return out;
    await sleep(Math.min(250, progressEvery), undefined, { signal }).catch(() => {});
  }
}

/** Sums of the completed jobs' results. */
export function totalsOf(done: Map<string, RangeResult>): RangeResult {
  const t: RangeResult = { logs: 0, rows: 0, quarantined: 0 };
  for (const d of done.values()) {
    t.logs += d.logs;
    t.rows += d.rows;
    t.quarantined += d.quarantined;
  }
  return t;
}
