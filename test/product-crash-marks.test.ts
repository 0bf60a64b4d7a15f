/**
 * A product's run through the shared progress store (core/watermarks.ts), by its definition
 * (analytics/market-data/index.ts): a process that dies between the run's writes and its commit (rows
 * flushed and acknowledged, the mark's insert never made) leaves the data and no mark; the rerun writes
 * nothing twice (every derived table ends equal to an uninterrupted run's) and its mark lands once. The
 * death is a ClickHouse client whose mark insert fails and which refuses every statement after it (a
 * dead process cleans nothing up), as test/chain-crash-marks.test.ts does for the chain. A whole product
 * (the rolling metrics) the same: its rows stay, no mark and so no freshness; the rerun marks once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marketData } from '../analytics/market-data/index.ts';
import { rollingMetrics } from '../analytics/rolling-metrics/index.ts';
import { blockAtOrBelow, lastRun } from '../analytics/shared/chain.ts';
import type { ProductContext } from '../analytics/shared/product.ts';
import type { ClickHouse } from '../core/clickhouse/index.ts';
import { createWatermarks } from '../core/watermarks.ts';
import { productContext } from '../jobs/products.ts';
import { type Sim, startSim } from '../sim/index.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { ingestSimHistory } from './support/sim-history.ts';

describe('a product: a crash between its write and its mark', () => {
  let deps: TestDeps;
  let sim: Sim;
  let clean: string;
  let cleanMark: number;

  const TABLES = marketData.tables;

  /** Every derived row (FINAL, without the run version), in key order. */
  async function snapshot(): Promise<string> {
    const out: unknown[] = [];
    for (const t of TABLES) {
      out.push(
        await deps.clickhouse.query('test.snapshot', `SELECT * EXCEPT version FROM ${t} FINAL ORDER BY ALL`),
      );
    }
    return JSON.stringify(out);
  }

  /** The product's mark (FINAL: the newest), its block or null. */
  const mark = async () =>
    (await createWatermarks(deps.clickhouse).read(marketData.name, 'run'))?.block ?? null;

  /** A client that counts its mark inserts (commits). */
  function counting(): { clickhouse: ClickHouse; commits: () => number } {
    const real = deps.clickhouse;
    let commits = 0;
    const clickhouse = Object.create(real, {
      insertRaw: {
        value: async (...args: Parameters<ClickHouse['insertRaw']>) => {
          if (args[1] === 'watermarks') commits++;
          return real.insertRaw(...args);
        },
      },
    }) as ClickHouse;
    return { clickhouse, commits: () => commits };
  }

  /** The derived tables empty and the product's marks gone. */
  async function reset(): Promise<void> {
    for (const t of TABLES) await deps.clickhouse.command('test.reset', `TRUNCATE TABLE ${t}`);
    await createWatermarks(deps.clickhouse).forget(marketData.name);
    expect(await mark()).toBeNull();
  }

  /** A client that dies at its `at`-th mark insert: that insert and every statement after it fail. */
  function dyingAt(at: number): { clickhouse: ClickHouse; died: () => boolean } {
    const real = deps.clickhouse;
    let marks = 0;
    let dead = false;
    const guard = (name: 'query' | 'read' | 'command' | 'insert' | 'insertRaw') => ({
      value: async (...args: unknown[]) => {
        if (dead) throw new Error('the process is gone');
        if (name === 'insertRaw' && args[1] === 'watermarks' && ++marks === at) {
          dead = true;
          throw new Error('crash between the write and its mark');
        }
        return (real[name] as (...a: unknown[]) => Promise<unknown>).apply(real, args);
      },
    });
    const clickhouse = Object.create(real, {
      query: guard('query'),
      read: guard('read'),
      command: guard('command'),
      insert: guard('insert'),
      insertRaw: guard('insertRaw'),
    }) as ClickHouse;
    return { clickhouse, died: () => dead };
  }

  /** The product's run context; steps of a quarter of the history so an incremental run takes several. */
  const ctx = (clickhouse: ClickHouse = deps.clickhouse): ProductContext => {
    const c = productContext(deps);
    return {
      ...c,
      clickhouse,
      settings: {
        ...c.settings,
        chainId: sim.chainId,
        finalityDepth: 0,
        stepBlocks: Math.max(1, Math.ceil(sim.historyHead / 4)),
      },
    };
  };

  beforeAll(async () => {
    [deps, sim] = await Promise.all([
      createTestDeps('product_crash_marks'),
      startSim({ seed: 'product-crash-marks', size: 'small', replicas: false }),
    ]);
    await ingestSimHistory(deps, sim);
    const run = await marketData.run(ctx(), {});
    expect(run.moved).not.toBeNull();
    clean = await snapshot();
    expect(clean.length).toBeGreaterThan(1000);
    cleanMark = (await mark()) ?? -1;
    expect(cleanMark).toBeGreaterThan(0);
  }, 300_000);

  afterAll(async () => {
    await sim?.stop();
    await deps?.close();
  });

  it('a full run: the data stays and no mark; the rerun writes nothing twice and its mark lands once', async () => {
    await reset();
    const dying = dyingAt(1);
    await expect(marketData.run(ctx(dying.clickhouse), {})).rejects.toThrow(
      /crash between the write and its mark/,
    );
    expect(dying.died()).toBe(true);
    // The rows were written and acknowledged; the mark was not.
    const [candles] = await deps.clickhouse.query<{ n: string }>(
      'test.count',
      'SELECT count() AS n FROM alpha_token_candles_1m',
    );
    expect(Number(candles?.n)).toBeGreaterThan(0);
    expect(await mark()).toBeNull();

    const rerun = counting();
    expect((await marketData.run(ctx(rerun.clickhouse), {})).moved).toMatchObject({
      stream: 'run',
      kind: 'head',
    });
    expect(await snapshot()).toBe(clean);
    expect(rerun.commits()).toBe(1);
    expect(await mark()).toBe(cleanMark);
  }, 120_000);

  it('an incremental run dying at its second step: the first step stays marked, the rerun goes on from it', async () => {
    await reset();
    // An earlier run's mark a third of the way up, with everything below it computed.
    const low = await blockAtOrBelow(deps.clickhouse, sim.chainId, Math.floor(sim.historyHead / 3));
    expect(low).not.toBeNull();
    await marketData.run(ctx(), {});
    await createWatermarks(deps.clickhouse).forget(marketData.name);
    await createWatermarks(deps.clickhouse).commit({
      source: marketData.name,
      stream: 'run',
      kind: 'head',
      block: low!.number,
      hash: low!.hash,
    });

    const dying = dyingAt(2);
    await expect(marketData.run(ctx(dying.clickhouse), {})).rejects.toThrow(
      /crash between the write and its mark/,
    );
    // The first step's mark landed; the second step's rows are written, its mark is not.
    const first = await mark();
    expect(first).toBeGreaterThan(low!.number);
    expect(first).toBeLessThan(cleanMark);

    const rerun = counting();
    const run = await marketData.run(ctx(rerun.clickhouse), {});
    expect(run.value).toMatchObject({ mode: 'incremental' });
    expect(await snapshot()).toBe(clean);
    // One commit per step the rerun took, from the first step's mark to where the clean run ended.
    expect(rerun.commits()).toBe((run.value as { steps: number }).steps);
    expect(rerun.commits()).toBeGreaterThan(0);
    expect(await mark()).toBe(cleanMark);
  }, 120_000);

  it('a whole product (the rolling metrics): the rows stay and no mark, no freshness; the rerun marks once', async () => {
    const rolling = async () =>
      JSON.stringify(
        await deps.clickhouse.query(
          'test.rolling',
          'SELECT * EXCEPT version FROM alpha_market_rolling FINAL ORDER BY ALL',
        ),
      );
    const freshness = () => lastRun(deps.clickhouse, rollingMetrics.name);
    await rollingMetrics.run(ctx(), {});
    const cleanRows = await rolling();
    expect(cleanRows.length).toBeGreaterThan(100);
    await deps.clickhouse.command('test.reset', 'TRUNCATE TABLE alpha_market_rolling');
    await createWatermarks(deps.clickhouse).forget(rollingMetrics.name);

    const dying = dyingAt(1);
    await expect(rollingMetrics.run(ctx(dying.clickhouse), {})).rejects.toThrow(
      /crash between the write and its mark/,
    );
    expect(await rolling()).toBe(cleanRows);
    expect(await freshness()).toBeNull();

    const rerun = counting();
    expect((await rollingMetrics.run(ctx(rerun.clickhouse), {})).moved).toEqual({
      stream: 'run',
      kind: 'head',
    });
    expect(rerun.commits()).toBe(1);
    expect(await rolling()).toBe(cleanRows);
    const [newest] = await deps.clickhouse.query<{ v: string }>(
      'test.v',
      'SELECT max(version) AS v FROM alpha_market_rolling',
    );
    expect(await freshness()).toBe(Number(newest!.v));
  }, 120_000);
});
