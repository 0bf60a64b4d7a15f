/**
 * The alpha catalog as a command and a job (jobs/commands/backfill.ts `--catalog`,
 * jobs/processors/alpha-catalog.ts) against the sim's metadata replica: `pmdata backfill alpha
 * --catalog` sweeps the whole catalog with progress lines and a summary, and a second sweep writes
 * nothing; the `open` job fetches by condition id the market of a condition prepared on chain that the
 * catalog does not hold; the schedules carry the configured intervals and a start enqueues a full sweep.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataVersions } from '../core/data-version.ts';
import { runBackfillCommand } from '../jobs/commands/backfill.ts';
import type { CliIo } from '../jobs/commands/io.ts';
import type { JobDefinition } from '../jobs/define.ts';
import { alphaBookJob, BOOK_SCHEDULES } from '../jobs/processors/alpha-book.ts';
import { alphaCatalogJob, CATALOG_SCHEDULES } from '../jobs/processors/alpha-catalog.ts';
import { createBullConnection, createQueues, type Queues } from '../jobs/queues.ts';
import { AT_START } from '../jobs/schedules.ts';
import { createWorkers } from '../jobs/worker.ts';
import type { SavedSim } from '../sim/saved.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { SHARED_WORLD, sharedWorld } from './support/world-cache.ts';

let sim: SavedSim;
let deps: TestDeps;
let queues: Queues;
const prefix = `alpha-catalog-jobs-${process.pid}`;

const count = async (table: string) =>
  Number(
    (await deps.clickhouse.query<{ n: string }>('test.count', `SELECT count() AS n FROM ${table} FINAL`))[0]
      ?.n,
  );

beforeAll(async () => {
  sim = await sharedWorld(SHARED_WORLD, { replicas: true });
  deps = await createTestDeps('alpha_catalog_jobs', {
    env: {
      ALPHA_METADATA_URL: sim.replicaUrls!.alpha_metadata,
      ALPHA_BOOK_URL: sim.replicaUrls!.alpha_book,
    },
  });
  queues = createQueues({ connection: createBullConnection(deps.config.redisUrl), prefix });
}, 120_000);

afterAll(async () => {
  await queues?.close();
  await sim?.stop();
  await deps?.close();
});

describe('alpha catalog command and job', () => {
  it('backfill alpha --catalog sweeps the catalog with progress and a summary; again, it writes nothing', async () => {
    const lines: string[] = [];
    const progress: string[] = [];
    const io: CliIo = { out: (l) => lines.push(l), progress: (l) => progress.push(l), isTTY: false };
    // Progress lines at every update (not a terminal, an interval of 0).
    expect(await runBackfillCommand(['alpha', '--catalog'], deps, { io, progressEveryMs: 0 })).toBe(0);
    expect(progress.length).toBeGreaterThan(0);
    expect(
      progress.every((l) => /^alpha catalog [\d,]+ requests [\d,]+ requests\/s .+, \d+ quarantined$/.test(l)),
    ).toBe(true);
    expect(lines.at(-1)).toMatch(
      /^alpha catalog done in [\d.]+ s: events ([\d,]+) read, \1 written; markets [\d,]+ read, [\d,]+ written;/,
    );
    const events = await count('alpha_events');
    const markets = await count('alpha_markets');
    expect(events).toBe(sim.catalog.venues.alpha.events.length);
    expect(markets).toBeGreaterThan(0);
    expect(await runBackfillCommand(['alpha', '--catalog'], deps, { io })).toBe(0);
    expect(lines.at(-1)).toMatch(/events [\d,]+ read, 0 written; markets [\d,]+ read, 0 written;/);
  });

  it('the open sync fetches the market of a condition prepared on chain that the catalog lacks', async () => {
    const [market] = await deps.clickhouse.query<{ condition_id: string }>(
      'test.market',
      'SELECT condition_id FROM alpha_markets FINAL ORDER BY condition_id LIMIT 1',
    );
    await deps.clickhouse.command(
      'test.forget',
      'DELETE FROM alpha_markets WHERE condition_id = {c:String}',
      {
        c: market!.condition_id,
      },
    );
    await deps.clickhouse.insert('test.prepared', 'alpha_lifecycle', [
      {
        chain_id: 137,
        block_number: 1,
        block_hash: '0x01',
        block_time: 0,
        tx_hash: '0x02',
        log_index: 0,
        kind: 'condition_prepared',
        version: 1,
        neg_risk: false,
        contract: '0x03',
        condition_id: market!.condition_id,
        question_id: '0x04',
        market_id: '',
        oracle: '0x05',
        outcome_slot_count: 2,
        tokens: null,
        payout_numerators: [],
        args: '{}',
        status: 'confirmed',
      },
    ]);
    const workers = createWorkers({ deps, prefix, jobs: [alphaCatalogJob as JobDefinition<never, unknown>] });
    try {
      await queues.enqueue(alphaCatalogJob, { mode: 'open' });
      const deadline = Date.now() + 60_000;
      let done: { returnvalue: unknown } | undefined;
      while (!done && Date.now() < deadline) {
        done = (await queues.get('venues').getJobs(['completed']))[0];
        if (!done) await sleep(100);
      }
      expect(done?.returnvalue).toMatchObject({ ran: true, missingConditions: 1 });
    } finally {
      await workers.close();
    }
    const [back] = await deps.clickhouse.query<{ n: string }>(
      'test.back',
      'SELECT count() AS n FROM alpha_markets FINAL WHERE condition_id = {c:String}',
      { c: market!.condition_id },
    );
    expect(back?.n).toBe('1');
  });

  it('the book sync reads the book of every open market token into alpha_book_quotes', async () => {
    const [open] = await deps.clickhouse.query<{ n: string }>(
      'test.open_tokens',
      'SELECT count(DISTINCT arrayJoin(clob_token_ids)) AS n FROM alpha_markets FINAL WHERE NOT closed',
    );
    expect(Number(open?.n)).toBeGreaterThan(0);
    const workers = createWorkers({ deps, prefix, jobs: [alphaBookJob as JobDefinition<never, unknown>] });
    try {
      await queues.enqueue(alphaBookJob, {});
      const deadline = Date.now() + 60_000;
      let done: { returnvalue: unknown } | undefined;
      while (!done && Date.now() < deadline) {
        done = (await queues.get('venues').getJobs(['completed'])).find((j) => j.name === alphaBookJob.name);
        if (!done) await sleep(100);
      }
      const result = done?.returnvalue as { ran: boolean; tokens: number; written: number; missing: number };
      expect(result).toMatchObject({ ran: true, tokens: Number(open?.n), quarantined: 0 });
      expect(result.written + result.missing).toBe(Number(open?.n));
      expect(await count('alpha_book_quotes')).toBe(result.written);
      // The order book history's cached answers follow the books it wrote.
      expect(await createDataVersions({ redis: deps.redis }).read(['books:alpha'])).toEqual(['1']);
    } finally {
      await workers.close();
    }
    expect(BOOK_SCHEDULES.map((s) => [s.id, s.everyMs(deps.config)])).toEqual([['alpha:book-sync', 60_000]]);
  });

  it('schedules the open and full syncs at their intervals and enqueues a full sweep at start', () => {
    expect(CATALOG_SCHEDULES.map((s) => [s.id, s.everyMs(deps.config), s.payload])).toEqual([
      ['alpha:catalog-open', 60_000, { mode: 'open' }],
      ['alpha:catalog-full', 3_600_000, { mode: 'full' }],
    ]);
    expect(AT_START).toEqual([{ job: alphaCatalogJob, payload: { mode: 'full' } }]);
  });
});
