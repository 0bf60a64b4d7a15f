import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../api/app.ts';
import { monthOf, usageKey } from '../api/keys/store.ts';
import { createRedis } from '../core/redis.ts';
import { runKeysCommand } from '../jobs/commands/keys.ts';
import { type ApiTestContext, createApiTestContext, TEST_SECRET } from './api-helpers.ts';

let t: ApiTestContext;
const here = path.dirname(fileURLToPath(import.meta.url));

// Routes that exist only to exercise the access table: a metered one (any /v2 route SPEC does not
// list as free) and a gated one (SPEC: /v2/eta/* needs Dev or higher).
const testRoutes = async (app: import('fastify').FastifyInstance) => {
  app.get('/v2/alpha/test-metered', async () => ({ ok: true }));
  app.get('/v2/eta/test-gated', async () => ({ ok: true }));
};

beforeAll(async () => {
  t = await createApiTestContext('api_limits', { extraRoutes: [testRoutes] });
});
afterAll(async () => t?.close());

const get = (url: string, key: string, app: App = t.app) =>
  app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });

/**
 * The most a key of `rate` req/s may be served from `started` until now across every API process: the
 * full bucket plus what refilled meanwhile (plus one for rounding). Served more → the limit leaked.
 */
function maxServed(rate: number, started: number): number {
  return rate + Math.ceil((rate * (performance.now() - started)) / 1000) + 1;
}

async function idOf(key: string) {
  return (await t.keys.lookup(key))!.id;
}

describe('rate limits', () => {
  it('lets one request through on a Free key and answers requests 2–5 within the second with 429', async () => {
    const key = await t.key('free');
    const responses = [];
    for (let i = 0; i < 5; i++) responses.push(await get('/v2/alpha/trades?limit=1', key));
    expect(responses.map((r) => r.statusCode)).toEqual([200, 429, 429, 429, 429]);
    expect(responses[0]!.headers['ratelimit-limit']).toBe('1');
    expect(responses[0]!.headers['ratelimit-remaining']).toBe('0');
    for (const r of responses.slice(1)) {
      expect(r.json()).toEqual({ error: 'Too Many Requests', message: expect.stringMatching(/wait/i) });
      expect(r.headers['ratelimit-limit']).toBe('1');
      expect(r.headers['ratelimit-remaining']).toBe('0');
      expect(Number(r.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
      expect(r.headers['retry-after']).toBe(r.headers['ratelimit-reset']);
    }
  });

  it('serves the Free key again once RateLimit-Reset has passed', async () => {
    const key = await t.key('free');
    expect((await get('/v2/alpha/trades?limit=1', key)).statusCode).toBe(200);
    const refused = await get('/v2/alpha/trades?limit=1', key);
    expect(refused.statusCode).toBe(429);
    await new Promise((r) => setTimeout(r, Number(refused.headers['ratelimit-reset']) * 1000));
    expect((await get('/v2/alpha/trades?limit=1', key)).statusCode).toBe(200);
  });

  it('serves 100 requests within one second on a Pro key without a 429', async () => {
    const key = await t.key('pro');
    const codes = (
      await Promise.all(Array.from({ length: 100 }, () => get('/v2/alpha/test-metered', key)))
    ).map((r) => r.statusCode);
    // The bucket holds 100: the burst passes however long the machine takes to send it.
    expect(codes.filter((c) => c === 429)).toHaveLength(0);
    expect(new Set(codes)).toEqual(new Set([200]));
    // A further burst of 100 right after exceeds the bucket (it refills only 10 per 100 ms).
    const more = await Promise.all(Array.from({ length: 100 }, () => get('/v2/alpha/test-metered', key)));
    expect(more.filter((r) => r.statusCode === 429).length).toBeGreaterThan(0);
  });

  it('shares one limit between two API app instances on one Redis', async () => {
    // A second app with its own Redis connection (same key prefix): a second API process.
    const redis2 = createRedis(t.deps.config.redisUrl, { keyPrefix: `${t.deps.prefix}:` });
    const app2 = await buildApp({ ...t.deps, redis: redis2, secret: TEST_SECRET, extraRoutes: [testRoutes] });
    try {
      const free = await t.key('free');
      expect((await get('/v2/alpha/test-metered', free, t.app)).statusCode).toBe(200);
      expect((await get('/v2/alpha/test-metered', free, app2)).statusCode).toBe(429);

      const dev = await t.key('dev');
      const started = performance.now();
      const both = await Promise.all(
        Array.from({ length: 60 }, (_, i) => get('/v2/alpha/test-metered', dev, i % 2 ? app2 : t.app)),
      );
      const served = both.filter((r) => r.statusCode === 200).length;
      // 20 per second for the key across both instances (plus what refills while the burst runs).
      expect(served).toBeGreaterThanOrEqual(20);
      expect(served).toBeLessThanOrEqual(maxServed(20, started));
      expect(both.filter((r) => r.statusCode === 429).length).toBe(60 - served);
    } finally {
      await app2.close();
      redis2.disconnect();
    }
  });

  it('shares one limit between two API processes on one Redis', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pmdata-api-child-'));
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'api-limits.child.ts')], {
      env: {
        ...process.env,
        CHILD_DATA_DIR: dataDir,
        CHILD_REDIS_URL: t.deps.config.redisUrl,
        CHILD_REDIS_PREFIX: `${t.deps.prefix}:`,
        CHILD_SECRET: TEST_SECRET,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d) => {
          out += String(d);
          const m = /LISTENING (\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`child exited ${code}`)));
      });
      const free = await t.key('free');
      // This process serves the key's one request of the second; the other process refuses the next.
      expect((await get('/v2/alpha/trades?limit=1', free)).statusCode).toBe(200);
      const other = await fetch(`${url}/v2/alpha/trades?limit=1`, { headers: { 'x-api-key': free } });
      expect(other.status).toBe(429);
      expect(other.headers.get('ratelimit-limit')).toBe('1');
      expect(Number(other.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
      // And the other way round for a Dev key: 20 per second across both processes.
      const dev = await t.key('dev');
      const started = performance.now();
      const codes = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          i % 2
            ? fetch(`${url}/v2/alpha/trades?limit=1`, { headers: { 'x-api-key': dev } }).then((r) => r.status)
            : get('/v2/alpha/trades?limit=1', dev).then((r) => r.statusCode),
        ),
      );
      const served = codes.filter((c) => c === 200).length;
      expect(served).toBeGreaterThanOrEqual(20);
      expect(served).toBeLessThanOrEqual(maxServed(20, started));
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("takes an Enterprise key's rate from the key", async () => {
    const key = await t.key('enterprise', 3);
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await get('/v2/alpha/test-metered', key)).statusCode);
    expect(codes).toEqual([200, 200, 200, 429]);
  });
});

describe('monthly quotas', () => {
  it('refuses a Free key whose 1,000 monthly requests are used with 429 saying so, on metered routes only', async () => {
    const key = await t.key('free');
    const id = await idOf(key);
    await t.deps.redis.hset(usageKey(id, monthOf(Date.now())), 'metered', 1000);
    const res = await get('/v2/alpha/test-metered', key);
    expect(res.statusCode).toBe(429);
    expect(res.json()).toEqual({
      error: 'Too Many Requests',
      message: expect.stringMatching(/monthly quota/),
    });
    expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 1000));
    // Trades is free and unlimited: still served, and not counted.
    expect((await get('/v2/alpha/trades?limit=1', key)).statusCode).toBe(200);
    const usage = await t.keys.usage(id, monthOf(Date.now()));
    expect(usage).toMatchObject({ metered: 1000, free: 1, overQuota: 1, overage: 0, overageUsd: 0 });
  });

  it('counts metered requests and not free-and-unlimited ones', async () => {
    const key = await t.key('pro');
    const id = await idOf(key);
    for (let i = 0; i < 3; i++) await get('/v2/alpha/test-metered', key);
    for (let i = 0; i < 2; i++) await get('/v2/alpha/trades?limit=1', key);
    for (let i = 0; i < 2; i++) await get('/v2/alpha/activity?limit=1', key);
    const usage = await t.keys.usage(id, monthOf(Date.now()));
    expect(usage).toMatchObject({ metered: 3, free: 4, quota: 5_000_000 });
  });

  it('serves Dev and Pro keys past their quota and bills the overage, shown by keys usage', async () => {
    const dev = await t.key('dev');
    const pro = await t.key('pro');
    const month = monthOf(Date.now());
    await t.deps.redis.hset(usageKey(await idOf(dev), month), 'metered', 1_099_999);
    await t.deps.redis.hset(usageKey(await idOf(pro), month), 'metered', 5_199_999);
    expect((await get('/v2/alpha/test-metered', dev)).statusCode).toBe(200);
    expect((await get('/v2/alpha/test-metered', pro)).statusCode).toBe(200);
    expect(await t.keys.usage(await idOf(dev), month)).toMatchObject({ overage: 100_000, overageUsd: 5 });
    expect(await t.keys.usage(await idOf(pro), month)).toMatchObject({ overage: 200_000, overageUsd: 5 });

    const lines: string[] = [];
    const code = await runKeysCommand(['usage', await idOf(dev)], {
      redis: t.deps.redis,
      out: (l) => lines.push(l),
    });
    expect(code).toBe(0);
    const text = lines.join('\n');
    expect(text).toContain('1,100,000');
    expect(text).toContain('100,000');
    expect(text).toContain('$5.00');
  });
});

describe('tiers', () => {
  it('answers a Free key on a gated route with 403, with rate-limit headers, and serves a Dev key', async () => {
    const free = await t.key('free');
    const res = await get('/v2/eta/test-gated', free);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      error: 'Forbidden',
      message: expect.stringContaining('Dev tier or higher'),
    });
    expect(res.headers['ratelimit-limit']).toBe('1');
    expect((await get('/v2/eta/test-gated', await t.key('dev'))).statusCode).toBe(200);
  });
});
