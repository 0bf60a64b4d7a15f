/**
 * Job metrics through a real BullMQ worker on the run's redis-server: a failing job raises
 * pmdata_job_failures_total{queue,job} once per failed attempt, and every attempt that ends (completed or
 * failed) is one observation of pmdata_job_duration_seconds{queue,job}, in the bucket of its time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermanentError } from '../core/errors.ts';
import { registry } from '../core/metrics.ts';
import { defineJob, type JobDefinition } from '../jobs/define.ts';
import { createBullConnection, createQueues, type Queues } from '../jobs/queues.ts';
import { createWorkers } from '../jobs/worker.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { sample } from './support/metrics.ts';

let deps: TestDeps;
let queues: Queues;
let connection: ReturnType<typeof createBullConnection>;
const prefix = `metrics-jobs-${process.pid}`;

beforeAll(async () => {
  deps = await createTestDeps('metrics_jobs', { migrate: false });
  connection = createBullConnection(deps.config.redisUrl);
  queues = createQueues({ connection, prefix });
});
afterAll(async () => {
  await queues?.close();
  connection?.disconnect();
  await deps?.close();
});

async function until(cond: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(50);
  }
}

const failures = (text: string, job: string) =>
  sample(text, 'pmdata_job_failures_total', { queue: 'venues', job });
const durations = (text: string, job: string, suffix: 'count' | 'sum') =>
  sample(text, `pmdata_job_duration_seconds_${suffix}`, { queue: 'venues', job });
const bucket = (text: string, job: string, le: string) =>
  sample(text, 'pmdata_job_duration_seconds_bucket', { queue: 'venues', job, le });

describe('job metrics', () => {
  it('counts failed attempts and times every attempt that ended', async () => {
    let flakyCalls = 0;
    const broken = defineJob<object, void>({
      name: 'test.metrics-broken',
      queue: 'venues',
      async process() {
        throw new PermanentError('bad payload');
      },
    });
    const flaky = defineJob<object, string>({
      name: 'test.metrics-flaky',
      queue: 'venues',
      async process() {
        flakyCalls++;
        if (flakyCalls < 2) throw Object.assign(new Error('reset'), { code: 'ECONNRESET' });
        return 'ok';
      },
    });
    const slow = defineJob<object, string>({
      name: 'test.metrics-slow',
      queue: 'venues',
      async process() {
        await sleep(150);
        return 'done';
      },
    });
    const before = await registry.metrics();
    const q = queues.get('venues');
    const opts = { attempts: 3, backoff: { type: 'fixed' as const, delay: 10 } };
    const b = await q.add(broken.name, {}, opts);
    const f = await q.add(flaky.name, {}, opts);
    const s = await q.add(slow.name, {}, opts);
    const workers = createWorkers({
      deps,
      jobs: [broken, flaky, slow] as JobDefinition<never, unknown>[],
      prefix,
    });
    try {
      await until(
        async () =>
          (await b.getState()) === 'failed' &&
          (await f.getState()) === 'completed' &&
          (await s.getState()) === 'completed',
      );
    } finally {
      await workers.close();
    }
    const after = await registry.metrics();

    // The permanent failure: one attempt, one failure.
    expect(failures(after, broken.name) - failures(before, broken.name)).toBe(1);
    expect(durations(after, broken.name, 'count') - durations(before, broken.name, 'count')).toBe(1);
    // The retryable one: failed once, then completed; both attempts timed.
    expect(failures(after, flaky.name) - failures(before, flaky.name)).toBe(1);
    expect(durations(after, flaky.name, 'count') - durations(before, flaky.name, 'count')).toBe(2);
    // The slow one: never failed; its one observation (a 150 ms sleep: a timer may fire up to a
    // millisecond before its delay as the worker's clock reads it) is ≥ 0.145 s, so above the 0.1 s bucket.
    expect(failures(after, slow.name)).toBe(failures(before, slow.name));
    expect(durations(after, slow.name, 'count') - durations(before, slow.name, 'count')).toBe(1);
    expect(durations(after, slow.name, 'sum') - durations(before, slow.name, 'sum')).toBeGreaterThanOrEqual(
      0.145,
    );
    expect(bucket(after, slow.name, '0.1') - bucket(before, slow.name, '0.1')).toBe(0);
    expect(bucket(after, slow.name, '+Inf') - bucket(before, slow.name, '+Inf')).toBe(1);
  });
});
