import { setTimeout as sleep } from 'node:timers/promises';
import { QueueEvents } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRODUCTS } from '../analytics/products.ts';
import { dependencyOrder, type ProductDefinition } from '../analytics/shared/product.ts';
import { createWatermarks } from '../core/watermarks.ts';
import { PRODUCT_SOURCES } from '../schemas/products.ts';
import { createTestDeps, type TestDeps } from '../test/support/deps.ts';
import { defineJob } from './define.ts';
import { maintenanceJob } from './processors/maintenance.ts';
import {
  enqueueAfterCommit,
  enqueueDependents,
  PRODUCT_JOBS,
  PRODUCT_SCHEDULES,
  productJobOf,
} from './products.ts';
import { createBullConnection, createQueues, type Queues } from './queues.ts';
import { ALL_JOBS } from './registry.ts';
import { applySchedules, SCHEDULES } from './schedules.ts';
import { createWorkers } from './worker.ts';

let deps: TestDeps;
let queues: Queues;
const prefix = `jobs-test-${process.pid}`;

beforeAll(async () => {
  deps = await createTestDeps('jobs');
  queues = createQueues({ connection: createBullConnection(deps.config.redisUrl), prefix });
});
afterAll(async () => {
  await queues?.close();
  await deps?.close();
});

async function waitFor<T>(fn: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(50);
  }
}

describe('jobs', () => {
  it('maintenance job records one size row per pmdata table, end to end through a worker', async () => {
    const at = Date.UTC(2026, 0, 1);
    const def = { ...maintenanceJob, jobId: (p: { at?: number }) => `maintenance:${p.at}` };
    const id1 = await queues.enqueue(def, { at });
    const id2 = await queues.enqueue(def, { at });
    expect(id1).toBe(id2);
    expect(await queues.get('maintenance').getJobCountByTypes('waiting', 'active', 'completed')).toBe(1);

    const workers = createWorkers({ deps, jobs: [maintenanceJob], prefix });
    const rows = await waitFor(async () => {
      const r = await deps.clickhouse.query<{ table: string; rows: string }>(
        'test.sizes',
        'SELECT table, rows FROM table_sizes FINAL ORDER BY table',
      );
      return r.length > 0 ? r : undefined;
    });
    await workers.close();
    const tables = rows.map((r) => r.table);
    expect(tables).toContain('schema_migrations');
    expect(tables).toContain('table_sizes');
    expect(Number(rows.find((r) => r.table === 'schema_migrations')!.rows)).toBeGreaterThan(0);
  });

  it('applying schedules twice keeps one scheduler per id', async () => {
    // Without the work enqueued at start (a catalog sweep no worker of this file runs).
    await applySchedules(queues, deps.config, SCHEDULES, []);
    await applySchedules(queues, deps.config, SCHEDULES, []);
    const keys: string[] = [];
    for (const queue of new Set(SCHEDULES.map((s) => s.job.queue))) {
      keys.push(...(await queues.get(queue).getJobSchedulers()).map((s) => s.key));
    }
    expect(keys.sort()).toEqual(SCHEDULES.map((s) => s.id).sort());
    // The schedulers' first jobs would otherwise wait in the queues the next tests' workers take from.
    for (const queue of new Set(SCHEDULES.map((s) => s.job.queue))) {
      const q = queues.get(queue);
      for (const s of await q.getJobSchedulers()) await q.removeJobScheduler(s.key);
      await q.drain(true);
    }
  });

  it('close lets an active job finish instead of abandoning it', async () => {
    const finished: string[] = [];
    const slow = defineJob<{ n: number }, number>({
      name: 'test.slow',
      queue: 'analytics',
      async process({ job }) {
        await sleep(700);
        finished.push(`job-${job.data.n}`);
        return job.data.n;
      },
    });
    const events = new QueueEvents('analytics', {
      connection: createBullConnection(deps.config.redisUrl),
      prefix,
    });
    await events.waitUntilReady();
    const workers = createWorkers({
      deps,
      jobs: [slow],
      prefix,
      concurrency: 1,
    });
    await queues.enqueue(slow, { n: 1 });
    await waitFor(async () =>
      (await queues.get('analytics').getActive()).some((j) => j.name === 'test.slow') ? true : undefined,
    );
    await workers.close();
    expect(finished).toEqual(['job-1']);
    expect(await queues.get('analytics').getCompletedCount()).toBe(1);
    await events.close();
  });

  it('a permanent failure is not retried; a retryable one is', async () => {
    let permanentCalls = 0;
    let retryableCalls = 0;
    const permanent = defineJob<object, void>({
      name: 'test.permanent',
      queue: 'venues',
      attempts: 3,
      async process() {
        permanentCalls++;
        throw new Error('bad payload');
      },
    });
    const flaky = defineJob<object, string>({
      name: 'test.flaky',
      queue: 'venues',
      attempts: 3,
      async process() {
        retryableCalls++;
        if (retryableCalls < 2) throw Object.assign(new Error('reset'), { code: 'ECONNRESET' });
        return 'ok';
      },
    });
    const q = queues.get('venues');
    const p = await q.add(permanent.name, {}, { attempts: 3, backoff: { type: 'fixed', delay: 10 } });
    const f = await q.add(flaky.name, {}, { attempts: 3, backoff: { type: 'fixed', delay: 10 } });
    const workers = createWorkers({
      deps,
      jobs: [permanent, flaky],
      prefix,
    });
    // By the jobs' own states: the queue also holds the venues' scheduled syncs of the test above.
    await waitFor(async () =>
      (await p.getState()) === 'failed' && (await f.getState()) === 'completed' ? true : undefined,
    );
    await workers.close();
    expect(permanentCalls).toBe(1);
    expect(retryableCalls).toBe(2);
  });
});

describe('analytics products (analytics/products.ts) and what jobs/ derives from them', () => {
  it('orders the products by their inputs, whatever the order of the list; a cycle is refused', () => {
    const names = (list: readonly ProductDefinition[]) => list.map((p) => p.name);
    expect(names(PRODUCTS)).toEqual([
      'alpha-market-data',
      'alpha-rolling-metrics',
      'alpha-positions',
      'alpha-profiles',
      'alpha-catalog-lists',
    ]);
    const reversed = dependencyOrder([...PRODUCTS].reverse());
    for (const p of reversed) {
      for (const input of p.inputs.filter((i) => PRODUCTS.some((q) => q.name === i))) {
        expect(names(reversed).indexOf(input)).toBeLessThan(names(reversed).indexOf(p.name));
      }
    }
    expect(names(reversed)).toEqual([
      'alpha-positions',
      'alpha-profiles',
      'alpha-market-data',
      'alpha-rolling-metrics',
      'alpha-catalog-lists',
    ]);
    const a = { ...PRODUCTS[0]!, name: 'a', inputs: ['b'] };
    const b = { ...PRODUCTS[0]!, name: 'b', inputs: ['a'] };
    expect(() => dependencyOrder([a, b])).toThrow(/cycle: a, b/);
  });

  it('derives one registered, scheduled job per product, with its data source from the contract', () => {
    expect(PRODUCT_JOBS.map((j) => [j.name, j.queue, j.attempts])).toEqual([
      ['analytics.alpha-market-data', 'analytics', 10],
      ['analytics.alpha-rolling', 'analytics', 3],
      ['alpha.positions', 'analytics', 10],
      ['alpha.profiles', 'analytics', 3],
      ['analytics.alpha-catalog-rollups', 'analytics', 3],
    ]);
    for (const j of PRODUCT_JOBS) expect(ALL_JOBS).toContain(j);
    expect(PRODUCT_SCHEDULES.map((s) => [s.id, s.job.name, s.everyMs(deps.config), s.payload])).toEqual([
      ['analytics:alpha-market-data', 'analytics.alpha-market-data', 30_000, {}],
      ['analytics:alpha-rolling', 'analytics.alpha-rolling', 3_600_000, { reason: 'schedule' }],
      ['analytics:alpha-positions', 'alpha.positions', 10_000, {}],
      ['alpha:profiles', 'alpha.profiles', 300_000, {}],
      ['analytics:alpha-catalog-rollups', 'analytics.alpha-catalog-rollups', 300_000, { reason: 'schedule' }],
    ]);
    for (const s of PRODUCT_SCHEDULES) expect(SCHEDULES).toContain(s);
    expect(Object.fromEntries(PRODUCTS.map((p) => [p.name, p.source]))).toEqual(PRODUCT_SOURCES);
  });

  it('enqueues the products that read a moved source, with the payloads the chains used', async () => {
    const sent: [string, unknown][] = [];
    const ctx = {
      deps,
      enqueue: async <Q>(def: { name: string }, payload: Q) => {
        sent.push([def.name, payload]);
        return undefined;
      },
    };
    const moved = async (m: Parameters<typeof enqueueDependents>[1]) => {
      sent.length = 0;
      await enqueueDependents(ctx, m);
      return [...sent];
    };
    const slot = expect.any(Number);
    expect(
      await moved({ source: 'alpha-chain', stream: 'backfill', kind: 'range', from: 100, to: 199 }),
    ).toEqual([
      ['analytics.alpha-market-data', { range: { from: 100, to: 199 } }],
      ['alpha.positions', { rewindTo: 99 }],
    ]);
    expect(await moved({ source: 'alpha-chain', stream: 'follow', kind: 'head' })).toEqual([]);
    expect(await moved({ source: 'alpha-catalog', stream: 'catalog', kind: 'head' })).toEqual([
      ['analytics.alpha-catalog-rollups', { reason: 'catalog-sync', slot }],
    ]);
    expect(await moved({ source: 'alpha-book', stream: 'books', kind: 'head' })).toEqual([
      ['analytics.alpha-catalog-rollups', { reason: 'book-sync', slot }],
    ]);
    // The market data: an incremental step → the lists; a catch-up → the rolling metrics too; a range → the rolling only.
    expect(
      await moved({ source: 'alpha-market-data', stream: 'run', kind: 'head', caughtUp: false }),
    ).toEqual([['analytics.alpha-catalog-rollups', { reason: 'analytics', slot }]]);
    expect(await moved({ source: 'alpha-market-data', stream: 'run', kind: 'head', caughtUp: true })).toEqual(
      [
        ['analytics.alpha-rolling', { reason: 'catch-up' }],
        ['analytics.alpha-catalog-rollups', { reason: 'analytics', slot }],
      ],
    );
    expect(
      await moved({ source: 'alpha-market-data', stream: 'run', kind: 'range', caughtUp: true }),
    ).toEqual([['analytics.alpha-rolling', { reason: 'catch-up' }]]);
    expect(await moved({ source: 'alpha-rolling-metrics', stream: 'run', kind: 'head' })).toEqual([
      ['analytics.alpha-catalog-rollups', { reason: 'analytics', slot }],
    ]);
    expect(await moved({ source: 'alpha-positions', stream: 'run', kind: 'head' })).toEqual([]);
    expect(productJobOf('alpha-catalog-lists').jobId?.({ reason: 'analytics', slot: 7 })).toBe(
      'analytics:alpha-catalog-rollups:7',
    );
  });

  it('after a run, follows the mark it committed, read back from the store; none committed, none enqueued', async () => {
    const sent: [string, unknown][] = [];
    const ctx = {
      deps,
      enqueue: async <Q>(def: { name: string }, payload: Q) => {
        sent.push([def.name, payload]);
        return undefined;
      },
    };
    const store = createWatermarks(deps.clickhouse);
    const range = { source: 'alpha-chain', stream: 'backfill', kind: 'range', from: 500, to: 599 } as const;
    // No mark of that range at all, then one committed before the run started: not this run's.
    expect(await enqueueAfterCommit(ctx, range, Date.now())).toEqual([]);
    await store.commit({ ...range, block: 599, hash: '0x1' });
    expect(await enqueueAfterCommit(ctx, range, Date.now() + 60_000)).toEqual([]);
    expect(sent).toEqual([]);
    // Committed by the run: its dependents follow, with the payloads of the chains.
    const started = Date.now();
    await store.commit({ ...range, block: 599, hash: '0x2' });
    expect(await enqueueAfterCommit(ctx, range, started)).toEqual([
      'analytics.alpha-market-data',
      'alpha.positions',
    ]);
    expect(sent).toEqual([
      ['analytics.alpha-market-data', { range: { from: 500, to: 599 } }],
      ['alpha.positions', { rewindTo: 499 }],
    ]);
    // A product's run mark (the rolling metrics' version as `at`): the lists follow.
    sent.length = 0;
    const run = Date.now();
    await store.commit({ source: 'alpha-rolling-metrics', stream: 'run', kind: 'head', at: run + 5 });
    await enqueueAfterCommit(ctx, { source: 'alpha-rolling-metrics', stream: 'run', kind: 'head' }, run);
    expect(sent).toEqual([
      ['analytics.alpha-catalog-rollups', { reason: 'analytics', slot: expect.any(Number) }],
    ]);
    await store.forget('alpha-chain');
    await store.forget('alpha-rolling-metrics');
  });
});
