/**
 * The backfill command's view of its range jobs, on a real queue and a real worker: a job's result
 * reaches the summary even when the job completes between the command's reads of it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Job, JobState } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDeps, type TestDeps } from '../../test/support/deps.ts';
import { defineJob } from '../define.ts';
import { createBullConnection, createQueues, type Queues } from '../queues.ts';
import { createWorkers } from '../worker.ts';
import { type RangeJobs, type RangeResult, totalsOf, watchRangeJobs } from './backfill-progress.ts';

let deps: TestDeps;
let queues: Queues;
let connection: ReturnType<typeof createBullConnection>;
const prefix = `backfill-progress-${process.pid}`;

beforeAll(async () => {
  deps = await createTestDeps('backfill_progress', { migrate: false });
  connection = createBullConnection(deps.config.redisUrl);
  queues = createQueues({ connection, prefix });
});
afterAll(async () => {
  await queues?.close();
  connection?.disconnect();
  await deps?.close();
});

/** What the hand-run backfill of 200,000 mostly bad logs returned. */
const RESULT: RangeResult = { logs: 200_000, rows: 96, quarantined: 199_904 };

/** A range job that runs until `release()` is called, then returns RESULT. */
function heldRangeJob(name: string) {
  let started!: () => void;
  let release!: () => void;
  const whenStarted = new Promise<void>((r) => {
    started = r;
  });
  const released = new Promise<void>((r) => {
    release = r;
  });
  const def = defineJob<{ from: number; to: number }, RangeResult>({
    name,
    queue: 'chain',
    async process() {
      started();
      await released;
      return RESULT;
    },
  });
  return { def, whenStarted, release };
}

async function waitForState(id: string, state: JobState) {
  const deadline = Date.now() + 15_000;
  while ((await queues.get('chain').getJobState(id)) !== state) {
    if (Date.now() > deadline) throw new Error(`job ${id} not ${state} in 15 s`);
    await sleep(20);
  }
}

/**
 * The queue, with the job completing right after the watcher's first read of it returns: whichever
 * read comes first sees the job running, the next one sees it completed.
 */
function completingAfterFirstRead(id: string, release: () => void): RangeJobs & { reads: string[] } {
  const queue = queues.get('chain');
  const reads: string[] = [];
  const afterRead = async (what: string) => {
    reads.push(what);
    if (reads.length === 1) {
      release();
      await waitForState(id, 'completed');
    }
  };
  return {
    reads,
    async getJobState(jobId: string) {
      const s = await queue.getJobState(jobId);
      await afterRead(`state:${s}`);
      return s;
    },
    async getJob(jobId: string): Promise<Job | undefined> {
      const j = await queue.getJob(jobId);
      await afterRead('job');
      return j;
    },
  };
}

describe('backfill summary', () => {
  it('a range job that completes between the command’s reads of it is counted with its real result', async () => {
    const held = heldRangeJob(`test.range-${process.pid}`);
    const id = `test-range-${process.pid}-1`;
    await queues.get('chain').add(held.def.name, { from: 1, to: 10 }, { jobId: id });
    const workers = createWorkers({ deps, jobs: [held.def], prefix, concurrency: 1 });
    try {
      await held.whenStarted;
      const jobs = completingAfterFirstRead(id, held.release);
      const watched = await watchRangeJobs({
        jobs,
        ranges: [{ id, from: 1, to: 10 }],
        signal: new AbortController().signal,
        lookEveryMs: 20,
      });
      expect(watched.failed).toBeUndefined();
      expect(watched.done.get(id)).toEqual({ ...RESULT, skipped: false });
      expect(totalsOf(watched.done)).toEqual({ ...RESULT, skipped: 0 });
      expect(watched.blocksSeen).toBe(10);
      expect(watched.logsSeen).toBe(200_000);
      // The first read saw the job running; the job completed before the next read.
      expect(jobs.reads[0]).toBe('state:active');
    } finally {
      held.release();
      await workers.close();
    }
  });

  it('sums the results of several completed range jobs and reports a failed one', async () => {
    const name = `test.sum-${process.pid}`;
    const def = defineJob<{ from: number; to: number; fail?: boolean }, RangeResult>({
      name,
      queue: 'chain',
      attempts: 1,
      async process({ job }) {
        if (job.data.fail) throw new Error('node refused the range');
        const blocks = job.data.to - job.data.from + 1;
        return { logs: blocks * 3, rows: blocks * 2, quarantined: blocks };
      },
    });
    const ranges = [
      { id: `test-sum-${process.pid}-a`, from: 1, to: 5 },
      { id: `test-sum-${process.pid}-b`, from: 6, to: 20 },
    ];
    const queue = queues.get('chain');
    for (const r of ranges) await queue.add(name, { from: r.from, to: r.to }, { jobId: r.id });
    const workers = createWorkers({ deps, jobs: [def], prefix, concurrency: 2 });
    try {
      const signal = new AbortController().signal;
      const opts = { signal, lookEveryMs: 20 };
      const watched = await watchRangeJobs({ ...opts, jobs: queue, ranges });
      expect(totalsOf(watched.done)).toEqual({ logs: 60, rows: 40, quarantined: 20, skipped: 0 });

      const bad = { id: `test-sum-${process.pid}-c`, from: 21, to: 30 };
      await queue.add(name, { from: bad.from, to: bad.to, fail: true }, { jobId: bad.id, attempts: 1 });
      const failed = await watchRangeJobs({ ...opts, jobs: queue, ranges: [...ranges, bad] });
      expect(failed.failed).toBe(`${bad.id}: node refused the range`);
    } finally {
      await workers.close();
    }
  });
});
