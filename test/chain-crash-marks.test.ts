/**
 * The chain's progress through the shared progress store (core/watermarks.ts): a process that dies
 * between a write and its commit (its writes flushed and acknowledged, the mark's insert never made)
 * leaves the data and no mark; the rerun, a backfill range job or a follower started anew, resumes from
 * the last mark and writes nothing twice: every table ends equal to an uninterrupted backfill. The death
 * is a ClickHouse client whose mark insert fails and which refuses every statement after it (a dead
 * process cleans nothing up). Processes that really get SIGKILLed: test/chain-crash.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClickHouse } from '../core/clickhouse/index.ts';
import { BACKFILL_STREAM, createWatermarks, FOLLOW_STREAM } from '../core/watermarks.ts';
import { rangeTables } from '../ingest/chain/tables.ts';
import { createAlphaChain } from '../ingest/venues/alpha/chain/ingestor.ts';
import { EVENT_TABLES, NATURAL_ORDER } from '../ingest/venues/alpha/chain/rows.ts';
import { alphaChainSettings } from '../ingest/venues/alpha/chain/settings.ts';
import { ALPHA_CHAIN_WRITES } from '../ingest/venues/alpha/chain/tables.ts';
import { type Sim, startSim } from '../sim/index.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

describe('alpha chain: a crash between a write and its mark', () => {
  let deps: TestDeps;
  let sim: Sim;
  let head = 0;
  let clean: Record<string, unknown[]>;

  const settings = () =>
    alphaChainSettings(deps.config, {
      rpcUrls: [sim.rpcUrl],
      positionIds: 'simplified',
      finalityDepth: 16,
      followMaxBlocksPerTick: 20,
      pipelineWorkers: 0,
    });
  const chainOn = (clickhouse: ClickHouse) => createAlphaChain({ clickhouse, log: deps.log }, settings());

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

  async function dump() {
    const out: Record<string, unknown[]> = {};
    for (const t of [...EVENT_TABLES, 'alpha_blocks']) {
      const order = NATURAL_ORDER[t as keyof typeof NATURAL_ORDER];
      out[t] = await deps.clickhouse.query(`test.dump.${t}`, `SELECT * FROM ${t} ORDER BY ${order}`);
    }
    return out;
  }
  const blocksAbove = async (n: number) =>
    Number(
      (
        await deps.clickhouse.query<{ n: string }>(
          'test.blocks_above',
          'SELECT count() AS n FROM alpha_blocks WHERE number > {n:UInt64}',
          { n },
        )
      )[0]!.n,
    );

  beforeAll(async () => {
    [deps, sim] = await Promise.all([
      createTestDeps('chain_crash_marks'),
      startSim({ seed: 'chain-crash-marks', size: 'small', replicas: false }),
    ]);
    head = Number(await sim.anvil.rpc<string>('eth_blockNumber'));
    const chain = chainOn(deps.clickhouse);
    await chain.referencePass(0, head);
    await chain.ingestRange({ from: 0, to: head }, { head });
    clean = await dump();
    expect(clean.alpha_fills!.length).toBeGreaterThan(0);
  }, 180_000);
  afterAll(async () => {
    await sim?.stop();
    await deps?.close();
  });

  it('a backfill range job: the data stays, the mark does not move, the rerun resumes with no duplicate', async () => {
    const marks = createWatermarks(deps.clickhouse);
    const chain = chainOn(deps.clickhouse);
    await chain.forgetCheckpoints([{ from: 0, to: head }]);
    for (const t of [...rangeTables(ALPHA_CHAIN_WRITES), 'alpha_blocks']) {
      await deps.clickhouse.command('test.truncate', `TRUNCATE TABLE ${t}`);
    }
    const every = Math.max(1, Math.floor(head / 6));
    // The second mark's insert dies: its write (every row up to that frontier) is in.
    const dying = dyingAt(2);
    await expect(
      chainOn(dying.clickhouse).ingestRange({ from: 0, to: head }, { head, checkpointEveryBlocks: every }),
    ).rejects.toThrow();
    expect(dying.died()).toBe(true);
    const mark = await marks.read('alpha-chain', BACKFILL_STREAM, { from: 0, to: head });
    expect(mark?.block).toBeGreaterThanOrEqual(every - 1);
    expect(mark!.block!).toBeLessThan(head);
    expect(await blocksAbove(mark!.block!)).toBeGreaterThan(0);

    const rerun = await chain.ingestRange({ from: 0, to: head }, { head, checkpointEveryBlocks: every });
    expect(rerun.resumedFrom).toBe(mark!.block! + 1);
    expect((await marks.read('alpha-chain', BACKFILL_STREAM, { from: 0, to: head }))?.block).toBe(head);
    const after = await dump();
    for (const t of Object.keys(clean)) expect(after[t], t).toEqual(clean[t]);
    // A third run finds the range done and writes nothing.
    expect((await chain.ingestRange({ from: 0, to: head }, { head })).skipped).toBe(true);
  }, 180_000);

  it('the follower: the data stays, the mark does not move, a new follower writes nothing twice', async () => {
    const marks = createWatermarks(deps.clickhouse);
    await marks.forget('alpha-chain');
    for (const t of [...EVENT_TABLES, 'alpha_blocks']) {
      await deps.clickhouse.command('test.truncate', `TRUNCATE TABLE ${t}`);
    }
    // The follower's third mark dies (two ticks of 20 blocks committed, the third tick's rows written).
    const dying = dyingAt(3);
    const doomed = chainOn(dying.clickhouse).follow({ fromBlock: 0 });
    let failure: unknown;
    for (let i = 0; i < 100 && failure === undefined; i++) {
      try {
        if ((await doomed.tick()).kind === 'idle') break;
      } catch (err) {
        failure = err;
      }
    }
    expect(failure).toBeDefined();
    expect(dying.died()).toBe(true);
    const mark = await marks.read('alpha-chain', FOLLOW_STREAM);
    expect(mark?.block).toBe(39);
    // The dead tick's rows are there (the clean run has rows in its blocks 40..59).
    const inDeadTick = (clean.alpha_blocks as { number: string }[]).filter(
      (b) => Number(b.number) > 39 && Number(b.number) <= 59,
    ).length;
    expect(inDeadTick).toBeGreaterThan(0);
    expect(await blocksAbove(39)).toBe(inDeadTick);

    const follower = chainOn(deps.clickhouse).follow({ fromBlock: 0 });
    for (let i = 0; i < 100; i++) if ((await follower.tick()).kind === 'idle') break;
    expect((await marks.read('alpha-chain', FOLLOW_STREAM))?.block).toBe(head);
    const after = await dump();
    for (const t of Object.keys(clean)) expect(after[t], t).toEqual(clean[t]);
  }, 180_000);
});
