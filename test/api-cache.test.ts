/**
 * The response cache is never stale: an app with the cache on and one with it off serve the same
 * database and Redis while the live follower ingests the simulated chain. After new blocks, after a
 * reorg of depth 3 removed rows, after pending rows were confirmed, and after an analytics product's
 * version was bumped, every URL gets the same bytes from both apps, although the cached app answered
 * repeated requests without asking ClickHouse.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../api/app.ts';
import { createKeyStore } from '../api/keys/store.ts';
import type { RoutePlugin } from '../api/routes/index.ts';
import type { ClickHouse } from '../core/clickhouse/index.ts';
import { createDataVersions, type DataVersions } from '../core/data-version.ts';
import type { Follower } from '../ingest/chain/follower.ts';
import { createAlphaChain } from '../ingest/venues/alpha/chain/ingestor.ts';
import { alphaChainSettings } from '../ingest/venues/alpha/chain/settings.ts';
import { type Sim, startSim } from '../sim/index.ts';
import { BACKGROUND_READS, TEST_SECRET } from './api-helpers.ts';
import { createTestDeps, type TestDeps, testConfig } from './support/deps.ts';

const ANALYTICS_ROUTE = '/v2/alpha/test-analytics';
const ANALYTICS_SOURCE = 'analytics:test-product';

/** A route standing for an analytics product: it reads a derived table the test writes to. */
const analyticsRoute: RoutePlugin = async (app, ctx) => {
  app.get(ANALYTICS_ROUTE, async () => {
    const rows = await ctx.deps.clickhouse.query<{ value: string }>(
      'test.analytics.read',
      'SELECT value FROM test_analytics ORDER BY computed_at DESC LIMIT 1',
    );
    return { value: Number(rows[0]?.value ?? 0) };
  });
};

/** Forwards every call to the real engine and counts the requests' ones (how often they asked ClickHouse). */
function counting(ch: ClickHouse): { clickhouse: ClickHouse; calls: () => number } {
  let calls = 0;
  const clickhouse = new Proxy(ch, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        if (!(typeof args[0] === 'string' && BACKGROUND_READS.test(args[0]))) calls++;
        return v.apply(target, args);
      };
    },
  });
  return { clickhouse, calls: () => calls };
}

describe('response cache against the live follower', () => {
  let deps: TestDeps;
  let sim: Sim;
  let follower: Follower;
  let versions: DataVersions;
  let cached: App;
  let uncached: App;
  let engine: ReturnType<typeof counting>;
  let key: string;
  let wallet: string;
  let token: string;

  async function catchUp() {
    for (let i = 0; i < 200; i++) if ((await follower.tick()).kind === 'idle') return;
    throw new Error('follower did not catch up');
  }

  const get = (app: App, url: string) => app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });

  /** The URLs compared at each step: first pages, filters, and the second page of a cursor walk. */
  async function urls(): Promise<string[]> {
    const base = [
      '/v2/alpha/trades',
      '/v2/alpha/trades?limit=7',
      '/v2/alpha/trades?order=asc&limit=20',
      '/v2/alpha/trades?role=maker&limit=5',
      `/v2/alpha/trades?wallet=${wallet}&limit=10`,
      `/v2/alpha/trades?token_id=${token}&limit=10`,
      '/v2/alpha/activity',
      '/v2/alpha/activity?limit=5',
      `/v2/alpha/activity?wallet=${wallet}`,
    ];
    const first = await get(uncached, '/v2/alpha/trades?limit=5');
    const next = (first.json() as { pagination: { pagination_key: string | null } }).pagination
      .pagination_key;
    if (next) base.push(`/v2/alpha/trades?limit=5&pagination_key=${next}`);
    return base;
  }

  /** Asks both apps each URL (the cached app twice) and expects the same status and bytes. */
  async function expectSameAnswers(step: string): Promise<Map<string, string>> {
    const bodies = new Map<string, string>();
    for (const url of await urls()) {
      const want = await get(uncached, url);
      expect(want.statusCode, `${step}: ${url}`).toBe(200);
      for (let i = 0; i < 2; i++) {
        const got = await get(cached, url);
        expect(got.statusCode, `${step}: ${url}`).toBe(200);
        expect(got.body, `${step}: ${url} (cached app, request ${i + 1})`).toBe(want.body);
        expect(got.headers.etag, `${step}: ${url}`).toBe(want.headers.etag);
      }
      bodies.set(url, want.body);
    }
    return bodies;
  }

  async function tradesHead(): Promise<string> {
    return (await get(uncached, '/v2/alpha/trades')).body;
  }

  beforeAll(async () => {
    [deps, sim] = await Promise.all([
      createTestDeps('api_cache'),
      startSim({ seed: 'api-cache', size: 'small', replicas: false }),
    ]);
    versions = createDataVersions({ redis: deps.redis });
    const chain = createAlphaChain(
      { clickhouse: deps.clickhouse, log: deps.log, onDataChanged: versions.chainBump() },
      alphaChainSettings(deps.config, {
        rpcUrls: [sim.rpcUrl],
        positionIds: 'simplified',
        finalityDepth: 4,
        followMaxBlocksPerTick: 50,
      }),
    );
    follower = chain.follow({ fromBlock: 0 });
    await deps.clickhouse.command(
      'test.analytics.create',
      'CREATE TABLE test_analytics (value UInt64, computed_at UInt64) ENGINE = MergeTree ORDER BY computed_at',
    );
    await deps.clickhouse.insert('test.analytics.insert', 'test_analytics', [{ value: 1, computed_at: 1 }]);

    engine = counting(deps.clickhouse);
    const options = {
      secret: TEST_SECRET,
      extraRoutes: [analyticsRoute],
      cacheSources: { [ANALYTICS_ROUTE]: [ANALYTICS_SOURCE] as const },
    };
    cached = await buildApp({ ...deps, clickhouse: engine.clickhouse, ...options });
    uncached = await buildApp({
      ...deps,
      config: testConfig('api_cache', { API_CACHE_BYTES: '0' }),
      ...options,
    });
    key = (await createKeyStore(deps.redis).create({ tier: 'enterprise', name: 'cache', rate: 100_000 })).key;

    await catchUp();
    const [busiest] = await deps.clickhouse.query<{ maker: string; token_id: string }>(
      'test.busiest',
      `SELECT maker, any(token_id) AS token_id FROM alpha_fills GROUP BY maker ORDER BY count() DESC, maker LIMIT 1`,
    );
    wallet = busiest!.maker;
    token = busiest!.token_id;
  }, 240_000);

  afterAll(async () => {
    await cached?.close();
    await uncached?.close();
    await sim?.stop();
    await deps?.close();
  });

  it('answers repeated requests from the cache, with the bytes and headers of the uncached answer', async () => {
    await expectSameAnswers('after catch-up');
    const url = '/v2/alpha/trades?limit=7';
    const before = engine.calls();
    const hit = await get(cached, url);
    expect(engine.calls(), 'a hit asks ClickHouse nothing').toBe(before);
    const miss = await get(uncached, url);
    const perRequest = new Set([
      'ratelimit-limit',
      'ratelimit-remaining',
      'ratelimit-reset',
      'x-request-id',
      'date',
    ]);
    const stable = (h: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(h).filter(([k]) => !perRequest.has(k)));
    expect(hit.rawPayload.equals(miss.rawPayload)).toBe(true);
    expect(stable(hit.headers)).toEqual(stable(miss.headers));
    expect(hit.headers['ratelimit-limit']).toBe('100000');
    expect(hit.headers['x-request-id']).not.toBe(miss.headers['x-request-id']);
    // Parameters as validated: order and an explicit default do not make another entry.
    const calls = engine.calls();
    await get(cached, '/v2/alpha/trades?role=maker&limit=5');
    const shuffled = await get(cached, '/v2/alpha/trades?limit=5&role=maker&order=desc');
    const defaults = await get(cached, '/v2/alpha/trades?limit=50&order=desc');
    expect(engine.calls()).toBe(calls);
    expect(shuffled.statusCode).toBe(200);
    expect(defaults.body).toBe((await get(uncached, '/v2/alpha/trades')).body);
  });

  it('serves no stale answer after the follower ingests new blocks and confirms pending rows', async () => {
    const old = await expectSameAnswers('before new blocks');
    const headBefore = await tradesHead();
    const pendingBefore = await deps.clickhouse.query<{ n: string }>(
      'test.pending',
      "SELECT count() AS n FROM alpha_fills WHERE status = 'pending'",
    );
    await sim.control.mineActive(6);
    await catchUp();
    // The newest page moved and pending rows were confirmed: the cached entries are of other data.
    expect(await tradesHead()).not.toBe(headBefore);
    const confirmed = await deps.clickhouse.query<{ n: string }>(
      'test.confirmed',
      'SELECT count() AS n FROM alpha_fills WHERE status = {s:String} AND block_number <= {b:UInt64}',
      { s: 'confirmed', b: follower.tip()!.number - 4 },
    );
    expect(Number(pendingBefore[0]!.n)).toBeGreaterThan(0);
    expect(Number(confirmed[0]!.n)).toBeGreaterThan(0);
    const now = await expectSameAnswers('after new blocks');
    expect([...now].some(([url, body]) => old.get(url) !== body)).toBe(true);
  }, 120_000);

  it('serves no stale answer after a reorg of depth 3 removes rows', async () => {
    await sim.control.mineActive(5);
    await catchUp();
    const before = await expectSameAnswers('before the reorg');
    const tip = follower.tip()!.number;
    await sim.control.reorg(3);
    const outcome = await follower.tick();
    expect(outcome.kind).toBe('reorg');
    if (outcome.kind === 'reorg') expect(outcome.ancestor).toBe(tip - 3);
    // Rows of the three orphaned blocks are gone: the newest trades page differs from the cached one.
    const removed = await expectSameAnswers('after the reorg, before rescanning');
    expect(removed.get('/v2/alpha/trades')).not.toBe(before.get('/v2/alpha/trades'));
    await catchUp();
    await expectSameAnswers('after rescanning the new branch');
  }, 120_000);

  it('serves no stale answer of a route reading an analytics product once the product bumps its version', async () => {
    const read = async (app: App) => (await get(app, ANALYTICS_ROUTE)).json() as { value: number };
    expect(await read(cached)).toEqual({ value: 1 });
    expect(await read(cached)).toEqual({ value: 1 });
    // A new computation lands; until its version is bumped the cached app still holds the old answer
    // (the cache is really in use) ...
    await deps.clickhouse.insert('test.analytics.insert', 'test_analytics', [{ value: 2, computed_at: 2 }]);
    expect(await read(uncached)).toEqual({ value: 2 });
    expect(await read(cached)).toEqual({ value: 1 });
    // ... and the bump the product's job makes after writing invalidates it.
    await versions.bump(ANALYTICS_SOURCE);
    expect(await read(cached)).toEqual({ value: 2 });
    // A chain bump leaves the analytics route's entry alone, and the chain routes' answers right.
    const calls = engine.calls();
    await versions.bump('alpha-chain');
    expect(await read(cached)).toEqual({ value: 2 });
    expect(engine.calls()).toBe(calls);
    await expectSameAnswers('after a chain version bump');
  });

  it('keeps the newest block number and hash in the chain version', async () => {
    const [version] = await versions.read(['alpha-chain']);
    const tip = follower.tip()!;
    expect(version).toMatch(/^\d+:\d+:0x[0-9a-f]{64}$/);
    expect(version!.split(':').slice(1)).toEqual([String(tip.number), tip.hash]);
  });
});
