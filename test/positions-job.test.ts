/**
 * The positions job (analytics/positions/run.ts; docs/positions.md "The job") while the chain changes
 * under it, against the simulated world:
 * - the live follower follows the sim chain while the sim injects reorgs of depth 1, 3 and 10, with a
 *   positions run between ticks; at the end the change rows and positions equal a clean recompute of the
 *   final chain, and every non-protocol holder's shares equal the chain's ERC-1155 balance;
 * - a rerun changes nothing (an idle incremental run, then a recomputation, directly and through the stage
 *   tables);
 * - a run interrupted between its writes and its checkpoint: the next run gives the same rows, none twice;
 * - two backfill ranges landed in reverse order (the upper one first, its positions computed, then the
 *   lower one with the rewind its job enqueues) equal one backfill.
 * One embedded engine serves one database per process, so the clean recompute runs in the same database
 * after the followed contents were read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PositionsRun,
  type PositionsSettings,
  recomputePositions,
  runPositions,
} from '../analytics/positions/run.ts';
import type { ClickHouse } from '../core/clickhouse/index.ts';
import type { Follower } from '../ingest/chain/follower.ts';
import { type AlphaChainIngestor, createAlphaChain } from '../ingest/venues/alpha/chain/ingestor.ts';
import { type AlphaChainSettings, alphaChainSettings } from '../ingest/venues/alpha/chain/settings.ts';
import { productSettings } from '../jobs/products.ts';
import { type Sim, startSim } from '../sim/index.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { truncateAlphaTables } from './support/sim-history.ts';

interface Dump {
  positions: Record<string, unknown>[];
  changes: Record<string, unknown>[];
}

describe('alpha positions under reorgs, reruns, crashes and late backfills', () => {
  let deps: TestDeps;
  let sim: Sim;
  let chainSettings: AlphaChainSettings;
  let settings: PositionsSettings;
  const runs: PositionsRun[] = [];

  const ingestor = (): AlphaChainIngestor =>
    createAlphaChain({ clickhouse: deps.clickhouse, log: deps.log }, chainSettings);
  const head = async () => Number(await sim.anvil.rpc<string>('eth_blockNumber'));

  async function positions(opts: { rewindTo?: number } = {}): Promise<PositionsRun> {
    const run = await runPositions(deps, settings, opts);
    runs.push(run);
    return run;
  }

  async function catchUp(follower: Follower, every = 1): Promise<void> {
    for (let i = 1; i <= 2000; i++) {
      const outcome = await follower.tick();
      if (outcome.kind === 'idle') return;
      if (i % every === 0) await positions();
    }
    throw new Error('follower did not catch up');
  }

  async function dump(): Promise<Dump> {
    return {
      positions: await deps.clickhouse.query(
        'test.dump.positions',
        'SELECT * EXCEPT (version) FROM alpha_positions FINAL ORDER BY wallet, token_id',
      ),
      changes: await deps.clickhouse.query(
        'test.dump.changes',
        'SELECT * FROM alpha_position_changes ORDER BY wallet, token_id, block_number, log_index, batch_index',
      ),
    };
  }

  function expectEqual(actual: Dump, expected: Dump, what: string): void {
    expect(actual.positions.length, `${what}: positions`).toBe(expected.positions.length);
    expect(actual.positions, `${what}: positions`).toEqual(expected.positions);
    expect(actual.changes.length, `${what}: changes`).toBe(expected.changes.length);
    expect(actual.changes, `${what}: changes`).toEqual(expected.changes);
  }

  const reset = () => truncateAlphaTables(deps.clickhouse);

  /** The positions of a clean start: the final chain backfilled whole, then one recomputation. */
  async function cleanRecompute(): Promise<Dump> {
    await reset();
    const tip = await head();
    const clean = ingestor();
    await clean.referencePass(0, tip);
    await clean.ingestRange({ from: 0, to: tip }, { head: tip });
    const run = await recomputePositions(deps, settings);
    expect(run.mode).toBe('full');
    return dump();
  }

  /** Shares of every non-protocol holder against the chain's balances (the sim's ledger). */
  async function expectBalances(what: string): Promise<void> {
    const rows = await deps.clickhouse.query<{ wallet: string; token_id: string; shares: string }>(
      'test.shares',
      'SELECT wallet, token_id, shares FROM alpha_positions FINAL',
    );
    const got = new Map(rows.map((r) => [`${r.wallet}|${r.token_id}`, r.shares]));
    const protocol = new Set(settings.protocol);
    const want = new Map<string, string>();
    for (const b of sim.ledger.erc1155Balances()) {
      if (!protocol.has(b.holder.toLowerCase()))
        want.set(`${b.holder.toLowerCase()}|${b.tokenId}`, String(b.amount));
    }
    const wrong: string[] = [];
    for (const [k, v] of want)
      if ((got.get(k) ?? '0') !== v) wrong.push(`${k}: chain ${v}, positions ${got.get(k)}`);
    for (const [k, v] of got) if (!want.has(k) && v !== '0') wrong.push(`${k}: chain none, positions ${v}`);
    expect(wrong, what).toEqual([]);
    expect(want.size, what).toBeGreaterThan(50);
  }

  beforeAll(async () => {
    [deps, sim] = await Promise.all([
      createTestDeps('positions_job'),
      startSim({ seed: 'positions-job', size: 'small', replicas: false, housekeeping: 0.3 }),
    ]);
    chainSettings = alphaChainSettings(deps.config, {
      rpcUrls: [sim.rpcUrl],
      positionIds: 'simplified',
      finalityDepth: 16,
      followMaxBlocksPerTick: 4,
    });
    // Small batches: a run goes through several, so batch edges and the state carried across them count.
    settings = { ...productSettings(deps.config), finalityDepth: 16, batchRows: 400 };
  }, 120_000);
  afterAll(async () => {
    await sim?.stop();
    await deps?.close();
  });

  it('reorgs of depth 1, 3 and 10 during follow leave the positions equal to a clean recompute of the final chain', async () => {
    const follower = ingestor().follow({ fromBlock: 0 });
    await catchUp(follower, 10);
    await positions();
    await sim.control.mineActive(12);
    await catchUp(follower);

    for (const depth of [1, 3, 10]) {
      await positions();
      const before = await dump();
      const reorg = await sim.control.reorg(depth);
      // Injected, not yet seen by the follower: nothing to do.
      expect((await positions()).mode).toBe('idle');
      const outcome = await follower.tick();
      expect(outcome).toMatchObject({ kind: 'reorg' });
      expect((await positions()).mode).toBe('rewind');
      await catchUp(follower);
      expect(follower.tip()).toMatchObject({ hash: reorg.replacement.at(-1) });
      await positions();
      expect((await dump()).changes, `depth ${depth}: the reorg changed the positions`).not.toEqual(
        before.changes,
      );
    }
    expect(runs.filter((r) => r.mode === 'rewind')).toHaveLength(3);
    expect(runs.some((r) => r.batches > 1)).toBe(true);
    await expectBalances('followed');

    const followed = await dump();
    expect(followed.positions.length).toBeGreaterThan(100);
    expect((await positions()).mode).toBe('idle');
    expectEqual(await dump(), followed, 'rerun after follow');
    expectEqual(followed, await cleanRecompute(), 'followed vs clean recompute');
  }, 180_000);

  it('a rerun changes nothing: an idle incremental run, then a recomputation of everything', async () => {
    const before = await dump();
    expect(before.positions.length).toBeGreaterThan(0);
    expect((await runPositions(deps, settings)).mode).toBe('idle');
    expectEqual(await dump(), before, 'idle run');
    expect((await recomputePositions(deps, settings)).mode).toBe('full');
    expectEqual(await dump(), before, 'recompute');
    // The same through the stage tables (a long run's path).
    expect((await recomputePositions(deps, { ...settings, stageMinBlocks: 0 })).mode).toBe('full');
    expectEqual(await dump(), before, 'recompute through the stage tables');
    await expectBalances('recomputed');
  }, 60_000);

  it('a run that stopped between its writes and its checkpoint is resumed with no duplicate and no missing row', async () => {
    const before = await dump();
    // The third checkpoint write fails: two batches are checkpointed, the third batch's rows are written.
    let checkpoints = 0;
    const failing: ClickHouse = Object.create(deps.clickhouse, {
      insertRaw: {
        value: async (...args: Parameters<ClickHouse['insertRaw']>) => {
          if (args[1] === 'watermarks' && ++checkpoints === 3) throw new Error('crash before the checkpoint');
          return deps.clickhouse.insertRaw(...args);
        },
      },
    });
    await expect(recomputePositions({ ...deps, clickhouse: failing }, settings)).rejects.toThrow(/crash/);
    const partial = await dump();
    expect(partial.changes.length).toBeLessThan(before.changes.length);
    const run = await runPositions(deps, settings);
    expect(run.batches).toBeGreaterThan(0);
    expectEqual(await dump(), before, 'resumed after a crash');
  }, 60_000);

  it('two backfill ranges landed in reverse order equal one backfill', async () => {
    const clean = await dump();
    await reset();
    const tip = await head();
    const middle = Math.floor(tip / 2);
    // The upper range lands first (with the reference data of the whole chain below it, as its reference pass
    // reads), and its positions are computed.
    const upper = ingestor();
    await upper.referencePass(0, tip);
    await upper.ingestRange({ from: middle + 1, to: tip }, { head: tip });
    const first = await positions();
    expect(first.mode).toBe('incremental');
    expect(first.to).toBeGreaterThan(middle);
    // Then the lower range, and the run its job enqueues.
    await ingestor().ingestRange({ from: 0, to: middle }, { head: tip });
    expect((await positions({ rewindTo: -1 })).mode).not.toBe('idle');
    expectEqual(await dump(), clean, 'reverse backfill vs one backfill');
  }, 120_000);
});
