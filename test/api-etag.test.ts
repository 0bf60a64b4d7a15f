/**
 * ETag and If-None-Match on the data routes (RFC 9110 §8.8.3, §13.1.2), cache on and off; conditional
 * requests still authenticated, rate limited and counted; and one Redis command per keyed request
 * (key, limits and data versions in one script), counted with MONITOR on the app's own connection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../api/app.ts';
import { monthOf, usageKey } from '../api/keys/store.ts';
import type { RoutePlugin } from '../api/routes/index.ts';
import { createRedis, type Redis } from '../core/redis.ts';
import {
  type ApiTestContext,
  addr,
  bytes32,
  createApiTestContext,
  fillRow,
  TEST_SECRET,
} from './api-helpers.ts';
import { testConfig } from './support/deps.ts';

let t: ApiTestContext;
let uncached: App;
let key: string;
const A = addr(0xa);
const URL = `/v2/alpha/trades?wallet=${A}&limit=5`;

const gated: RoutePlugin = async (app) => {
  app.get('/v2/eta/test-gated', async () => ({ ok: true }));
};

const get = (app: App, url: string, headers: Record<string, string> = {}, apiKey: string | null = key) =>
  app.inject({ method: 'GET', url, headers: { ...(apiKey ? { 'x-api-key': apiKey } : {}), ...headers } });

beforeAll(async () => {
  t = await createApiTestContext('api_etag', { extraRoutes: [gated] });
  uncached = await buildApp({
    ...t.deps,
    config: testConfig('api_etag', { API_CACHE_BYTES: '0' }),
    secret: TEST_SECRET,
  });
  key = await t.key('pro');
  const rows = [];
  // Fills whose condition is known when they are written: a page holding a token the app cannot map yet
  // is not cached (api/queries/list.ts, provisional pages).
  for (let i = 0; i < 12; i++) {
    rows.push(fillRow({ block: 100 + i, logIndex: 1, maker: A, conditionId: bytes32(0xc1) }));
  }
  await t.deps.clickhouse.insert('test.fills', 'alpha_fills', rows);
});
afterAll(async () => {
  await uncached?.close();
  await t?.close();
});

describe('ETag and If-None-Match', () => {
  it('gives every 200 data answer a strong ETag of its bytes, the same with the cache on and off', async () => {
    const a = await get(t.app, URL);
    const b = await get(t.app, URL);
    const c = await get(uncached, URL);
    expect(a.statusCode).toBe(200);
    expect(a.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(b.headers.etag).toBe(a.headers.etag);
    expect(c.headers.etag).toBe(a.headers.etag);
    expect(c.body).toBe(a.body);
    const other = await get(t.app, `/v2/alpha/trades?wallet=${A}&limit=4`);
    expect(other.headers.etag).not.toBe(a.headers.etag);
    const cors = await t.app.inject({
      method: 'GET',
      url: URL,
      headers: { 'x-api-key': key, origin: 'https://app.example.com' },
    });
    expect(String(cors.headers['access-control-expose-headers'])).toMatch(/ETag/);
  });

  for (const [name, app] of [
    ['cache on', () => t.app],
    ['cache off', () => uncached],
  ] as const) {
    it(`answers 304 with the ETag and no body when If-None-Match names it (${name})`, async () => {
      const etag = String((await get(app(), URL)).headers.etag);
      const matching = [etag, `W/${etag}`, `"nope", ${etag}`, `"a,b" , W/"x",${etag}`, '*', ` ${etag} `];
      for (const inm of matching) {
        const res = await get(app(), URL, { 'if-none-match': inm });
        expect(res.statusCode, inm).toBe(304);
        expect(res.body, inm).toBe('');
        expect(res.headers.etag, inm).toBe(etag);
        expect(res.headers['content-type'], inm).toBeUndefined();
        expect(res.headers['ratelimit-limit'], inm).toBe('100');
      }
      const head = await app().inject({
        method: 'HEAD',
        url: URL,
        headers: { 'x-api-key': key, 'if-none-match': etag },
      });
      expect(head.statusCode).toBe(304);
      const notMatching = [
        `"${etag.slice(2)}`,
        `${etag.slice(0, -2)}"`,
        '"x", W/"y"',
        etag.slice(1, -1),
        'W/',
      ];
      for (const inm of notMatching) {
        const res = await get(app(), URL, { 'if-none-match': inm });
        expect(res.statusCode, inm).toBe(200);
        expect(res.headers.etag, inm).toBe(etag);
        expect(res.json().trades, inm).toHaveLength(5);
      }
    });
  }

  it('keeps the key and the rate limit in force for conditional requests, and counts a 304 as a request', async () => {
    const etag = String((await get(t.app, URL)).headers.etag);
    expect((await get(t.app, URL, { 'if-none-match': etag }, null)).statusCode).toBe(401);
    expect((await get(t.app, URL, { 'if-none-match': etag }, 'pmd_unknown')).statusCode).toBe(401);

    const free = await t.key('free');
    const id = (await t.keys.lookup(free))!.id;
    const first = await get(t.app, URL, {}, free);
    expect(first.statusCode).toBe(200);
    const throttled = await get(t.app, URL, { 'if-none-match': etag }, free);
    expect(throttled.statusCode).toBe(429);
    expect(throttled.headers['retry-after']).toBeDefined();
    await new Promise((r) => setTimeout(r, 1100));
    const notModified = await get(t.app, URL, { 'if-none-match': etag }, free);
    expect(notModified.statusCode).toBe(304);
    expect(notModified.headers['ratelimit-limit']).toBe('1');
    const usage = await t.deps.redis.hgetall(usageKey(id, monthOf(Date.now())));
    expect(usage).toMatchObject({ free: '2', throttled: '1' });
  });
});

describe('Redis round trips', () => {
  let appRedis: Redis;
  let monitor: Redis;
  let app: App;
  let shared: App[] = [];
  let commands: { args: string[]; source: string }[] = [];

  beforeAll(async () => {
    const prefix = `${t.deps.prefix}:`;
    appRedis = createRedis(t.deps.config.redisUrl, { keyPrefix: prefix });
    await appRedis.ping();
    app = await buildApp({ ...t.deps, redis: appRedis, secret: TEST_SECRET, extraRoutes: [gated] });
    monitor = await createRedis(t.deps.config.redisUrl).monitor();
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      commands.push({ args, source });
    });
    const sharedConfig = testConfig('api_etag', { API_CACHE_SHARED: 'true' });
    shared = [
      await buildApp({ ...t.deps, redis: appRedis, config: sharedConfig, secret: TEST_SECRET }),
      await buildApp({ ...t.deps, redis: appRedis, config: sharedConfig, secret: TEST_SECRET }),
    ];
  });
  afterAll(async () => {
    for (const a of [app, ...shared]) await a?.close();
    monitor?.disconnect();
    appRedis?.disconnect();
  });

  /** Commands the app's connection sent while `fn` ran (not the ones a script ran inside Redis). */
  async function sentDuring(fn: () => Promise<unknown>): Promise<string[]> {
    const local = `127.0.0.1:${(appRedis as unknown as { stream: { localPort: number } }).stream.localPort}`;
    await new Promise((r) => setTimeout(r, 50));
    commands = [];
    await fn();
    await new Promise((r) => setTimeout(r, 100));
    return commands.filter((c) => c.source.endsWith(local)).map((c) => c.args[0]!.toLowerCase());
  }

  it('makes one Redis call per keyed request: miss, hit, 304, 429, 401 and 403 alike', async () => {
    const pro = await t.key('pro');
    const free = await t.key('free');
    const otherFree = await t.key('free');
    const revoked = await t.key('dev');
    await t.keys.revoke((await t.keys.lookup(revoked))!.id);
    // Loads the script into Redis (EVALSHA, then EVAL once) so the counts below are per request.
    await get(app, '/v2/alpha/trades?limit=1', {}, pro);

    const url = `/v2/alpha/trades?wallet=${A}&limit=3`;
    const cases: [string, () => Promise<unknown>, number][] = [
      ['miss', () => get(app, url, {}, pro), 200],
      ['hit', () => get(app, url, {}, pro), 200],
      ['304', async () => get(app, url, { 'if-none-match': '*' }, pro), 304],
      ['free key', () => get(app, url, {}, free), 200],
      ['429', () => get(app, url, {}, free), 429],
      ['403', () => get(app, '/v2/eta/test-gated', {}, otherFree), 403],
      ['401 unknown', () => get(app, url, {}, 'pmd_not-a-key-we-issued'), 401],
      ['401 revoked', () => get(app, url, {}, revoked), 401],
    ];
    for (const [name, fn, status] of cases) {
      let res: { statusCode: number } | undefined;
      const sent = await sentDuring(async () => {
        res = (await fn()) as { statusCode: number };
      });
      expect(res!.statusCode, name).toBe(status);
      expect(sent, name).toEqual(['evalsha']);
    }
    // No key, or one that cannot be ours: no Redis call at all.
    expect(await sentDuring(() => get(app, url, {}, null))).toEqual([]);
    expect(await sentDuring(() => get(app, url, {}, 'not-a-key'))).toEqual([]);
  });

  it('with API_CACHE_SHARED, a second process reads an answer another computed from Redis', async () => {
    const pro = await t.key('pro');
    const url = `/v2/alpha/trades?wallet=${A}&limit=2`;
    await get(shared[0]!, '/v2/alpha/trades?limit=1', {}, pro);
    let first: { body: string } | undefined;
    expect(await sentDuring(async () => (first = await get(shared[0]!, url, {}, pro)))).toEqual([
      'evalsha',
      'get',
      'set',
    ]);
    let second: { body: string; statusCode: number } | undefined;
    expect(await sentDuring(async () => (second = await get(shared[1]!, url, {}, pro)))).toEqual([
      'evalsha',
      'get',
    ]);
    expect(second!.statusCode).toBe(200);
    expect(second!.body).toBe(first!.body);
    // Now in the second process's own cache: one call again.
    expect(await sentDuring(() => get(shared[1]!, url, {}, pro))).toEqual(['evalsha']);
  });
});
