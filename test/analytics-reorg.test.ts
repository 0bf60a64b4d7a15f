/**
 * Venue alpha's market analytics (analytics/market-data/run.ts) while the chain changes under them:
 * - the live follower follows the sim chain while the sim injects reorgs of depth 1, 3 and 10, and the
 *   incremental run goes between ticks — before the follower saw a reorg, after it rewound to the common
 *   ancestor, while it repairs and after; at the end every derived table equals a clean recompute of the
 *   final chain (the chain tables truncated, backfilled over the whole chain, recomputed at once);
 * - a rerun (incremental, then a recomputation) changes nothing;
 * - an older range backfilled after the follower started above it is picked up by the recomputation of
 *   that range (what the job enqueued at the end of a backfill range runs).
 * One embedded engine serves one database per process, so the clean recompute runs in the same database
 * after the followed contents were read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAnalyticsCheckpoint } from '../analytics/market-data/progress.ts';
import { type MarketDataRun, recomputeMarketData, runMarketData } from '../analytics/market-data/run.ts';
import type { AlphaAnalyticsSettings } from '../analytics/shared/settings.ts';
import type { Follower } from '../ingest/chain/follower.ts';
import { type AlphaChainIngestor, createAlphaChain } from '../ingest/venues/alpha/chain/ingestor.ts';
import { type AlphaChainSettings, alphaChainSettings } from '../ingest/venues/alpha/chain/settings.ts';
import { type Sim, startSim } from '../sim/index.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { truncateAlphaTables } from './support/sim-history.ts';

/** Every derived table of the market data, with its key (the order of a dump). */
const DERIVED = {
  alpha_token_candles_1m: 'token_id, bucket',
  alpha_token_candles_1h: 'token_id, bucket',
  alpha_token_candles_1d: 'token_id, bucket',
  alpha_condition_candles_1m: 'condition_id, bucket',
  alpha_condition_candles_1h: 'condition_id, bucket',
  alpha_condition_candles_1d: 'condition_id, bucket',
  alpha_oi_deltas_1h: 'condition_id, bucket',
  alpha_market_totals: 'level, id',
} as const;
type Derived = keyof typeof DERIVED;
const DERIVED_TABLES = Object.keys(DERIVED) as Derived[];

type Dump = Record<Derived, Record<string, unknown>[]>;

describe('alpha market analytics under reorgs and late backfills', () => {
  let deps: TestDeps;
  let sim: Sim;
  let chainSettings: AlphaChainSettings;
  let settings: AlphaAnalyticsSettings;
  const runs: MarketDataRun[] = [];

  const ingestor = (): AlphaChainIngestor =>
    createAlphaChain({ clickhouse: deps.clickhouse, log: deps.log }, chainSettings);
  const head = async () => Number(await sim.anvil.rpc<string>('eth_blockNumber'));

  async function analytics(): Promise<MarketDataRun> {
    const run = await runMarketData(deps, settings);
    runs.push(run);
    return run;
  }

  /** Ticks until idle, running the analytics after every `every`-th tick. */
  async function catchUp(follower: Follower, every = 1): Promise<void> {
    for (let i = 1; i <= 2000; i++) {
      const outcome = await follower.tick();
      if (outcome.kind === 'idle') return;
      if (i % every === 0) await analytics();
    }
    throw new Error('follower did not catch up');
  }

  async function dump(): Promise<Dump> {
    const out = {} as Dump;
    for (const t of DERIVED_TABLES) {
      out[t] = await deps.clickhouse.query(
        `test.dump.${t}`,
        `SELECT * EXCEPT (version) FROM ${t} FINAL ORDER BY ${DERIVED[t]}`,
      );
    }
    return out;
  }

  function expectEqual(actual: Dump, expected: Dump, what: string): void {
    for (const t of DERIVED_TABLES) expect(actual[t], `${what}: ${t}`).toEqual(expected[t]);
  }

  const reset = () => truncateAlphaTables(deps.clickhouse);

  /** The derived tables of a clean start: the final chain backfilled whole, then one recomputation. */
  async function cleanRecompute(): Promise<Dump> {
    await reset();
    const tip = await head();
    const clean = ingestor();
    await clean.referencePass(0, tip);
    await clean.ingestRange({ from: 0, to: tip }, { head: tip });
    const run = await recomputeMarketData(deps, settings);
    expect(run.mode).toBe('full');
    return dump();
  }

  async function makerFillsIn(where: string, params: Record<string, unknown>): Promise<number> {
    const rows = await deps.clickhouse.query<{ n: string }>(
      'test.maker_fills',
      `SELECT count() AS n FROM alpha_fills WHERE role = 'maker' AND ${where}`,
      params,
    );
    return Number(rows[0]?.n ?? 0);
  }

  beforeAll(async () => {
    [deps, sim] = await Promise.all([
      createTestDeps('analytics_reorg'),
      startSim({ seed: 'analytics-reorg', size: 'small', replicas: false }),
    ]);
    chainSettings = alphaChainSettings(deps.config, {
      rpcUrls: [sim.rpcUrl],
      positionIds: 'simplified',
      finalityDepth: 16,
      followMaxBlocksPerTick: 4,
    });
    settings = {
      chainId: chainSettings.chainId,
      usdcE: chainSettings.roles.usdcE.toLowerCase(),
      finalityDepth: chainSettings.finalityDepth,
    };
  }, 120_000);
  afterAll(async () => {
    await sim?.stop();
    await deps?.close();
  });

  it('reorgs of depth 1, 3 and 10 during follow leave every derived table equal to a clean recompute of the final chain', async () => {
    const follower = ingestor().follow({ fromBlock: 0 });
    await catchUp(follower, 10);
    await analytics();
    // Live blocks to reorg (the sim can replace its live blocks only), mined once: the reorgs below
    // replace the tail at the same heights, so the head does not move and no finalization interleaves.
    await sim.control.mineActive(12);
    await catchUp(follower);

    for (const depth of [1, 3, 10]) {
      await analytics();
      const tip = follower.tip()!;
      const checkpoint = await readAnalyticsCheckpoint(deps.clickhouse, settings.chainId);
      // The analytics stand at the tip: the reorg below orphans the checkpoint's block.
      expect(checkpoint).toMatchObject({ number: tip.number, hash: tip.hash });
      const before = await dump();

      const reorg = await sim.control.reorg(depth);
      // The orphaned blocks held maker fills, which the analytics counted.
      expect(
        await makerFillsIn('block_hash IN {hashes:Array(String)}', {
          hashes: reorg.orphaned.map((h) => h.toLowerCase()),
        }),
        `maker fills in the ${depth} orphaned blocks`,
      ).toBeGreaterThan(0);
      // Injected, not yet seen by the follower: nothing to do.
      expect((await analytics()).mode).toBe('idle');

      const outcome = await follower.tick();
      expect(outcome).toMatchObject({ kind: 'reorg', ancestor: tip.number - depth });
      if (depth === 3) {
        // The next run comes only once the follower repaired everything.
        await catchUp(follower, Number.POSITIVE_INFINITY);
        expect((await analytics()).mode).toBe('rewind');
      } else {
        // The follower stands at the ancestor, the checkpoint's block is gone: the run rewinds.
        expect((await analytics()).mode).toBe('rewind');
        // Then a run after each repairing tick (depth 10: three ticks of 4 blocks).
        await catchUp(follower);
      }
      expect(follower.tip()).toMatchObject({ number: tip.number, hash: reorg.replacement.at(-1) });
      expect(
        await makerFillsIn('block_hash IN {hashes:Array(String)}', {
          hashes: reorg.replacement.map((h) => h.toLowerCase()),
        }),
        `maker fills in the ${depth} replacement blocks`,
      ).toBeGreaterThan(0);
      await analytics();
      expect(
        (await dump()).alpha_token_candles_1m,
        `depth ${depth}: the reorg changed the candles`,
      ).not.toEqual(before.alpha_token_candles_1m);
    }
    expect(runs.filter((r) => r.mode === 'rewind')).toHaveLength(3);
    expect(runs.filter((r) => r.mode === 'incremental').length).toBeGreaterThan(2);

    const followed = await dump();
    expect(followed.alpha_token_candles_1m.length).toBeGreaterThan(0);
    expect(followed.alpha_condition_candles_1m.length).toBeGreaterThan(0);
    expect(followed.alpha_oi_deltas_1h.length).toBeGreaterThan(0);
    // Another incremental run has nothing to do and changes nothing.
    expect((await analytics()).mode).toBe('idle');
    expectEqual(await dump(), followed, 'rerun after follow');

    expectEqual(followed, await cleanRecompute(), 'followed vs clean recompute');
  }, 120_000);

  it('a rerun changes nothing: an idle incremental run, then a recomputation of everything', async () => {
    // The database holds the clean recompute of the previous test.
    const before = await dump();
    expect(before.alpha_market_totals.length).toBeGreaterThan(0);
    expect((await runMarketData(deps, settings)).mode).toBe('idle');
    expectEqual(await dump(), before, 'idle run');
    expect((await recomputeMarketData(deps, settings)).mode).toBe('full');
    expectEqual(await dump(), before, 'recompute');
    const tip = await head();
    expect((await recomputeMarketData(deps, settings, { fromBlock: Math.floor(tip / 2) })).mode).toBe(
      'from-block',
    );
    expectEqual(await dump(), before, 'recompute from a block');
    expect((await runMarketData(deps, settings)).mode).toBe('idle');
    expectEqual(await dump(), before, 'idle run after recomputes');
  }, 60_000);

  /**
   * Follows from the block of the middle maker fill (half the trading lies below it) with a run after
   * every tick, then backfills the blocks below and recomputes that range as the job enqueued at the end
   * of a backfill range does. The backfill's reference pass runs before the follower starts
   * (`pmdata backfill alpha --to-block <from − 1> --enqueue-only`, then `pmdata follow alpha --from-block
   * <from>`) or only with the late backfill.
   */
  async function followThenBackfill(referencePassFirst: boolean): Promise<{ followed: Dump; picked: Dump }> {
    await reset();
    const makers = sim.ledger.fills
      .filter((f) => f.role === 'maker')
      .map((f) => f.block)
      .sort((a, b) => a - b);
    const from = makers[Math.floor(makers.length / 2)]!;
    expect(makers[0]).toBeLessThan(from);
    const tip = await head();
    const backfill = ingestor();
    if (referencePassFirst) await backfill.referencePass(0, from - 1);

    const follower = ingestor().follow({ fromBlock: from });
    await catchUp(follower);
    expect(runs.at(-1)?.mode).toBe('incremental');
    const followed = await dump();
    expect(followed.alpha_token_candles_1m.length).toBeGreaterThan(0);

    if (!referencePassFirst) await backfill.referencePass(0, from - 1);
    await backfill.ingestRange({ from: 0, to: from - 1 }, { head: tip });
    expect(await makerFillsIn('block_number < {n:UInt64}', { n: from })).toBeGreaterThan(0);
    const run = await recomputeMarketData(deps, settings, { fromBlock: 0, toBlock: from - 1 });
    expect(run.mode).toBe('range');
    // The follower's checkpoint is the chain's progress still: nothing new for the incremental run.
    expect((await analytics()).mode).toBe('idle');
    const picked = await dump();
    expect(picked.alpha_token_candles_1m.length).toBeGreaterThan(followed.alpha_token_candles_1m.length);
    // A duplicate of the range's job changes nothing.
    await recomputeMarketData(deps, settings, { fromBlock: 0, toBlock: from - 1 });
    expectEqual(await dump(), picked, 'range recomputed again');
    return { followed, picked };
  }

  it('an older range backfilled after follow is picked up by the recomputation of that range', async () => {
    const { picked } = await followThenBackfill(true);
    expectEqual(picked, await cleanRecompute(), 'follow + late backfill vs clean recompute');
  }, 120_000);

  it('a late backfill whose reference pass teaches the tokens and conditions traded during follow: the recomputation of its range also corrects their condition candles and open interest above it', async () => {
    const { picked } = await followThenBackfill(false);
    expectEqual(
      picked,
      await cleanRecompute(),
      'follow + late backfill with its reference pass vs clean recompute',
    );
  }, 120_000);
});
