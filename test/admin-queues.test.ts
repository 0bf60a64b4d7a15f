/**
 * The queue dashboard (Bull Board at /admin/queues, api/routes/admin/queues.ts) on the real API and the
 * run's redis-server: its page and JSON API list every queue of QUEUE_NAMES with their jobs, and a job
 * that failed is retried through its JSON API and runs again in a real BullMQ Worker. Its auth is
 * tested with the other admin routes (test/admin-auth.test.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAdminKey } from '../core/admin-key.ts';
import { QUEUE_NAMES } from '../core/queue-names.ts';
import { type ApiTestContext, createApiTestContext } from './api-helpers.ts';

const prefix = `admin-queues-${process.pid}`;
let t: ApiTestContext;
let auth: { authorization: string };
let connection: Redis;

beforeAll(async () => {
  t = await createApiTestContext('admin_queues', { queuePrefix: prefix });
  auth = { authorization: `Bearer ${resolveAdminKey(t.deps.config)!.key}` };
  connection = new Redis(t.deps.config.redisUrl, { maxRetriesPerRequest: null });
});
afterAll(async () => {
  await t?.close();
  connection?.disconnect();
});

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out; last: ${JSON.stringify(v)}`);
    await sleep(50);
  }
}

interface BoardQueues {
  queues: { name: string; counts: Record<string, number>; jobs: { id: string; name: string }[] }[];
}

describe('queue dashboard', () => {
  it('serves its page and assets, and lists every queue with its jobs', async () => {
    const queue = new Queue('maintenance', { connection, prefix });
    try {
      await queue.add('test.waiting', { n: 1 }, { jobId: 'waiting-1' });
      const page = await t.app.inject({ url: '/admin/queues', headers: auth });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      expect(page.body).toContain('pmdata queues');
      // The page's script, served from the board's static path behind the same key.
      const base = /<base href="([^"]+)"/.exec(page.body)?.[1];
      expect(base).toBe('/admin/queues/');
      const script = new URL(/src="([^"]+\.js)"/.exec(page.body)![1]!, `http://x${base}`).pathname;
      expect(script).toMatch(/^\/admin\/queues\/static\//);
      const asset = await t.app.inject({ url: script, headers: auth });
      expect(asset.statusCode).toBe(200);
      expect(asset.headers['content-type']).toMatch(/javascript/);
      expect((await t.app.inject({ url: script })).statusCode).toBe(401);

      const res = await t.app.inject({
        url: '/admin/queues/api/queues?activeQueue=maintenance&status=waiting&page=1',
        headers: auth,
      });
      expect(res.statusCode).toBe(200);
      const board = res.json() as BoardQueues;
      expect(board.queues.map((q) => q.name).sort()).toEqual([...QUEUE_NAMES].sort());
      const maintenance = board.queues.find((q) => q.name === 'maintenance')!;
      expect(maintenance.counts.waiting).toBe(1);
      expect(maintenance.jobs.map((j) => [j.id, j.name])).toEqual([['waiting-1', 'test.waiting']]);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it('retries a failed job through its JSON API, and the job runs again', async () => {
    const queue = new Queue('venues', { connection, prefix });
    const runs: number[] = [];
    const worker = new Worker(
      'venues',
      async (job) => {
        runs.push(job.attemptsMade);
        if (runs.length === 1) throw new Error('upstream down');
        return 'ok';
      },
      { connection: new Redis(t.deps.config.redisUrl, { maxRetriesPerRequest: null }), prefix },
    );
    try {
      const job = await queue.add('test.flaky', {}, { jobId: 'flaky-1', attempts: 1 });
      await until(
        () => queue.getJobState(job.id!),
        (s) => s === 'failed',
      );
      const failed = (
        await t.app.inject({
          url: '/admin/queues/api/queues?activeQueue=venues&status=failed&page=1',
          headers: auth,
        })
      ).json() as BoardQueues;
      const venues = failed.queues.find((q) => q.name === 'venues')!;
      expect(venues.counts.failed).toBe(1);
      expect(venues.jobs.map((j) => j.id)).toEqual(['flaky-1']);

      const retry = await t.app.inject({
        method: 'PUT',
        url: '/admin/queues/api/queues/venues/flaky-1/retry',
        headers: auth,
      });
      expect(retry.statusCode).toBe(204);
      await until(
        () => queue.getJobState(job.id!),
        (s) => s === 'completed',
      );
      expect(runs).toHaveLength(2);
      expect((await queue.getJob(job.id!))?.returnvalue).toBe('ok');

      // Without the key the same retry is refused before it reaches the board.
      const refused = await t.app.inject({
        method: 'PUT',
        url: '/admin/queues/api/queues/venues/flaky-1/retry',
      });
      expect(refused.statusCode).toBe(401);
      expect(runs).toHaveLength(2);
    } finally {
      await worker.close();
      await worker.disconnect();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});
