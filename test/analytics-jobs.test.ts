/**
 * The market analytics as jobs and as a command (jobs/products.ts, analytics/market-data/index.ts,
 * jobs/commands/analytics.ts): a backfill range job, finished, enqueues the recompute of its buckets,
 * which a worker runs (the checkpoint stays where it was); the scheduled run catches up from no
 * checkpoint and enqueues the rolling metrics; `pmdata analytics recompute alpha` recomputes everything
 * and a second time changes nothing; the schedules carry the configured intervals.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsProducts } from '../analytics/products.ts';
import { createWatermarks } from '../core/watermarks.ts';
import { runAnalyticsCommand } from '../jobs/commands/analytics.ts';
import type { CliIo } from '../jobs/commands/io.ts';
import { alphaBackfillJob } from '../jobs/processors/alpha-backfill.ts';
import { PRODUCT_SCHEDULES, productJobOf } from '../jobs/products.ts';
import { createBullConnection, createQueues, type Queues } from '../jobs/queues.ts';
import { createWorkers, type Workers } from '../jobs/worker.ts';
import type { SavedSim } from '../sim/saved.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { SHARED_WORLD, sharedWorld } from './support/world-cache.ts';

const alphaMarketDataJob = productJobOf('alpha-market-data');
const alphaRollingJob = productJobOf('alpha-rolling-metrics');
const alphaCatalogRollupsJob = productJobOf('alpha-catalog-lists');

let deps: TestDeps;
let sim: SavedSim;
let queues: Queues;
let workers: Workers;
let head: number;
const prefix = `analytics-jobs-${process.pid}`;

async function waitFor<T>(fn: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(100);
  }
}

const count = async (sql: string) =>
  Number(
    (await deps.clickhouse.query<{ n: string }>('test.count', `SELECT count() AS n FROM (${sql})`))[0]?.n,
  );

/** Waits until no analytics job waits or runs (they share one lease: a run finding it taken skips). */
async function idle(): Promise<void> {
  await waitFor(async () =>
    (await queues.get('analytics').getJobCountByTypes('waiting', 'active', 'delayed', 'prioritized')) === 0
      ? true
      : undefined,
  );
}

/** Every derived row (FINAL, without the run version), in key order. */
async function snapshot(): Promise<string> {
  const tables = [
    'alpha_token_candles_1m',
    'alpha_token_candles_1d',
    'alpha_condition_candles_1h',
    'alpha_oi_deltas_1h',
    'alpha_market_totals',
  ];
  const out: unknown[] = [];
  for (const t of tables) {
    out.push(
      await deps.clickhouse.query('test.snapshot', `SELECT * EXCEPT version FROM ${t} FINAL ORDER BY ALL`),
    );
  }
  return JSON.stringify(out);
}

beforeAll(async () => {
  sim = await sharedWorld(SHARED_WORLD);
  deps = await createTestDeps('analytics_jobs', {
    env: {
      ALPHA_RPC_URLS: sim.rpcUrl,
      ALPHA_CHAIN_ID: String(sim.chainId),
      ALPHA_POSITION_IDS: 'simplified',
      ALPHA_FINALITY_DEPTH: '0',
      ALPHA_START_BLOCK: '0',
    },
  });
  head = Number(await sim.anvil.rpc<string>('eth_blockNumber'));
  queues = createQueues({ connection: createBullConnection(deps.config.redisUrl), prefix });
  workers = createWorkers({
    deps,
    prefix,
    jobs: [alphaBackfillJob, alphaMarketDataJob, alphaRollingJob, alphaCatalogRollupsJob],
  });
}, 120_000);

afterAll(async () => {
  await workers?.close();
  await queues?.close();
  await sim?.stop();
  await deps?.close();
});

describe('analytics jobs', () => {
  it('a finished backfill range enqueues the recompute of its buckets, leaving the checkpoint alone', async () => {
    await queues.enqueue(alphaBackfillJob, { chainId: sim.chainId, from: 0, to: head });
    const completed = await waitFor(async () => {
      const jobs = await queues.get('analytics').getJobs(['completed']);
      return jobs.find((j) => j.name === alphaMarketDataJob.name) ?? undefined;
    });
    expect(completed.data).toEqual({ range: { from: 0, to: head } });
    expect(completed.returnvalue).toMatchObject({ mode: 'range', to: expect.any(Number) });
    // Every maker fill is in the totals once.
    const [truth] = await deps.clickhouse.query<{ usd: string; n: string }>(
      'test.truth',
      "SELECT sum(usd) AS usd, count() AS n FROM alpha_fills WHERE role = 'maker'",
    );
    const [totals] = await deps.clickhouse.query<{ usd: string; n: string }>(
      'test.totals',
      "SELECT sum(volume) AS usd, sum(trades) AS n FROM alpha_market_totals FINAL WHERE level = 'token'",
    );
    expect(Number(truth!.n)).toBeGreaterThan(0);
    expect(totals).toEqual(truth);
    // The checkpoint stays where it was (none); the range's own run mark is committed.
    const marks = createWatermarks(deps.clickhouse);
    expect(await marks.read('alpha-market-data', 'run')).toBeNull();
    expect(await marks.read('alpha-market-data', 'run', { from: 0, to: head })).toMatchObject({
      kind: 'range',
      from: 0,
      to: head,
      at: completed.returnvalue.version,
    });
  });

  it('the scheduled run catches up (no checkpoint: everything) and the rolling metrics follow', async () => {
    await idle();
    const before = await snapshot();
    const seen = new Set((await queues.get('analytics').getJobs(['completed'])).map((j) => j.id));
    await queues.enqueue(alphaMarketDataJob, {});
    const fresh = async (name: string) => {
      const jobs = await queues.get('analytics').getJobs(['completed']);
      return jobs.find((j) => j.name === name && !seen.has(j.id)) ?? undefined;
    };
    const run = await waitFor(() => fresh(alphaMarketDataJob.name));
    expect(run.returnvalue).toMatchObject({ mode: 'full' });
    const rolling = await waitFor(() => fresh(alphaRollingJob.name));
    expect(rolling.data).toEqual({ reason: 'catch-up' });
    expect(rolling.returnvalue).toMatchObject({ ran: true });
    const [cp] = await deps.clickhouse.query<{ n: string }>(
      'test.cp',
      "SELECT argMax(block, at) AS n FROM watermarks WHERE source = 'alpha-market-data' AND stream = 'run' AND kind = 'head'",
    );
    const [last] = await deps.clickhouse.query<{ n: string }>(
      'test.last',
      'SELECT max(number) AS n FROM alpha_blocks',
    );
    expect(cp!.n).toBe(last!.n);
    // The range recompute had already computed the same buckets.
    expect(await snapshot()).toBe(before);
    expect(await count('SELECT 1 FROM alpha_market_rolling FINAL')).toBe(
      await count('SELECT 1 FROM alpha_market_totals FINAL'),
    );
  });

  it("each product's freshness after its run is the time its rows say", async () => {
    await idle();
    const at = Object.fromEntries(
      await Promise.all(
        analyticsProducts(deps.clickhouse).map(async (p) => [p.product, await p.computedAt()] as const),
      ),
    );
    const one = async (sql: string) =>
      Number((await deps.clickhouse.query<{ t: string }>('test.time', sql))[0]?.t ?? 0);
    // The run versions of the rows (the market data's newest run wrote every totals row).
    expect(at['alpha-market-data']).toBe(await one('SELECT max(version) AS t FROM alpha_market_totals'));
    expect(at['alpha-rolling-metrics']).toBe(await one('SELECT max(version) AS t FROM alpha_market_rolling'));
    // The catalog lists (no version in their rows; empty in this world): when their newest build committed.
    const builds = (await queues.get('analytics').getJobs(['completed'])).filter(
      (j) => j.name === alphaCatalogRollupsJob.name,
    );
    const last = builds.sort((a, b) => (b.finishedOn ?? 0) - (a.finishedOn ?? 0))[0]!;
    expect(at['alpha-catalog-lists']).toBeGreaterThanOrEqual(last.processedOn!);
    expect(at['alpha-catalog-lists']).toBeLessThanOrEqual(last.finishedOn!);
    // Not run here: no mark, no freshness.
    expect(at['alpha-positions']).toBeNull();
    expect(at['alpha-profiles']).toBeNull();
  });

  it('pmdata analytics recompute alpha recomputes everything; a second time changes nothing', async () => {
    const lines: string[] = [];
    const io: CliIo = { out: (l) => lines.push(l), progress: () => {}, isTTY: false };
    await idle();
    const before = await snapshot();
    expect(await runAnalyticsCommand(['recompute', 'alpha'], deps, { io })).toBe(0);
    expect(lines.at(-1)).toMatch(
      /^alpha analytics: recomputed blocks \d+\.\.\d[\d,]* in 1 window\(s\), [\d.]+ s; rolling metrics at \d{4}-/,
    );
    expect(await snapshot()).toBe(before);
    expect(await runAnalyticsCommand(['recompute', 'alpha', '--from-block', '30'], deps, { io })).toBe(0);
    expect(await snapshot()).toBe(before);
    await expect(
      runAnalyticsCommand(['recompute', 'alpha', '--from-block', 'x'], deps, { io }),
    ).rejects.toThrow(/--from-block must be a block number/);
    await expect(runAnalyticsCommand(['recompute', 'beta'], deps, { io })).rejects.toThrow(
      /unknown source "beta"/,
    );
  });

  it('schedules the two runs at the configured intervals', () => {
    const analytics = PRODUCT_SCHEDULES.filter((s) => [alphaMarketDataJob, alphaRollingJob].includes(s.job));
    expect(analytics.map((s) => [s.id, s.everyMs(deps.config), s.payload])).toEqual([
      ['analytics:alpha-market-data', 30_000, {}],
      ['analytics:alpha-rolling', 3_600_000, { reason: 'schedule' }],
    ]);
  });
});
