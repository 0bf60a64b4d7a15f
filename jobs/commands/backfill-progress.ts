/**
 * Watching a backfill's range jobs: their states, results and reported progress (`updateProgress({done,
 * total, unit, logs})` from jobs/processors/alpha-backfill.ts, so ranges run by other workers count too),
 * fed to the progress reporter (core/progress.ts), and the totals of the final summary.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Job, JobState } from 'bullmq';
import type { Reporter } from '../../core/progress.ts';

export { createEta } from '../../core/progress.ts';

/** What the watcher reads of the queue (a BullMQ `Queue` is one). */
export interface RangeJobs {
  getJobState(id: string): Promise<JobState | 'unknown'>;
  getJob(id: string): Promise<Job | undefined>;
}

export interface RangeResult {
  logs: number;
  rows: number;
  quarantined: number;
  /** The range was done before (its checkpoint reached its end): nothing read. */
  skipped?: boolean;
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
      result: {
        logs: rv?.logs ?? 0,
        rows: rv?.rows ?? 0,
        quarantined: rv?.quarantined ?? 0,
        skipped: rv?.skipped === true,
      },
    };
  }
  if (state === 'failed') return { state, reason: job.failedReason };
  const p = (job.progress && typeof job.progress === 'object' ? job.progress : {}) as {
    done?: number;
    blocksDone?: number;
    logs?: number;
  };
  return { state, blocksDone: p.done ?? p.blocksDone ?? 0, logs: p.logs ?? 0 };
}

export interface WatchOptions {
  jobs: RangeJobs;
  /** The jobs' ids and their block ranges, in block order. */
  ranges: readonly { id: string; from: number; to: number }[];
  signal: AbortSignal;
  /** Told blocks and events done at every look (its phase: blocks, with their total). */
  reporter?: Reporter;
  /** Time between looks (ms, default 250). */
  lookEveryMs?: number;
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

/** Looks at the jobs until all completed, one failed, or `signal` stops the watch. */
export async function watchRangeJobs(opts: WatchOptions): Promise<WatchResult> {
  const { jobs, ranges, signal, reporter } = opts;
  const done = new Map<string, RangeResult>();
  const out: WatchResult = { done, blocksSeen: 0, logsSeen: 0 };
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
    reporter?.update(blocks, { counters: { events: logs }, extra: `jobs ${done.size}/${ranges.length}` });
    if (out.failed || done.size === ranges.length || signal.aborted) return out;
    await sleep(opts.lookEveryMs ?? 250, undefined, { signal }).catch(() => {});
  }
}

/** Sums of the completed jobs' results, and how many ranges were skipped (done before). */
export function totalsOf(done: Map<string, RangeResult>): Omit<RangeResult, 'skipped'> & { skipped: number } {
  const t = { logs: 0, rows: 0, quarantined: 0, skipped: 0 };
  for (const d of done.values()) {
    t.logs += d.logs;
    t.rows += d.rows;
    t.quarantined += d.quarantined;
    if (d.skipped) t.skipped++;
  }
  return t;
}
