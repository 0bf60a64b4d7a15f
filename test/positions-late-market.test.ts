/**
 * Positions always carry their market (analytics/positions/; docs/positions.md "Markets learnt late"),
 * against the simulated world's chain in real chDB. The upper half of the chain is ingested first with no
 * reference pass, so its fills are written before their tokens' markets are known (condition '' and
 * outcome -1 in alpha_fills, as when the live follower runs ahead of the history's reference pass), and its
 * positions are computed then:
 * - once the markets are known (the reference pass lands), the next run repairs every position and change
 *   row naming those tokens: each row says its token's market and outcome (a No token is outcome 1), and
 *   nothing else changes (the events of conditions unknown when their blocks were computed stay as they
 *   were computed: the rewind of the next case recomputes them);
 * - the lower half landing then (the rewind its job enqueues recomputes from the fills, which still lack
 *   the market) gives the positions of one backfill with the markets known.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PositionsSettings, recomputePositions, runPositions } from '../analytics/positions/run.ts';
import { type AlphaChainIngestor, createAlphaChain } from '../ingest/venues/alpha/chain/ingestor.ts';
import { type AlphaChainSettings, alphaChainSettings } from '../ingest/venues/alpha/chain/settings.ts';
import { productSettings } from '../jobs/products.ts';
import type { SavedSim } from '../sim/saved.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { truncateAlphaTables } from './support/sim-history.ts';
import { SHARED_WORLD, sharedWorld } from './support/world-cache.ts';

interface Dump {
  positions: Record<string, unknown>[];
  changes: Record<string, unknown>[];
}

describe('positions whose tokens’ markets are learnt after their fills', () => {
  let deps: TestDeps;
  let sim: SavedSim;
  let chainSettings: AlphaChainSettings;
  let settings: PositionsSettings;
  let tip: number;
  let middle: number;
  let cleanAll: Dump;

  const ingestor = (): AlphaChainIngestor =>
    createAlphaChain({ clickhouse: deps.clickhouse, log: deps.log }, chainSettings);

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

  /** Positions (FINAL) whose market differs from the token's in alpha_tokens, and how many are No tokens. */
  async function marketCheck(): Promise<{ wrong: string[]; no: number }> {
    const rows = await deps.clickhouse.query<{
      wallet: string;
      token_id: string;
      condition_id: string;
      outcome_index: number;
      known_condition: string;
      known_outcome: number;
    }>(
      'test.markets',
      `SELECT p.wallet, p.token_id, p.condition_id, p.outcome_index, t.c AS known_condition, t.o AS known_outcome
       FROM (SELECT wallet, token_id, condition_id, outcome_index FROM alpha_positions FINAL) AS p
       LEFT JOIN (SELECT token_id, any(condition_id) AS c, max(outcome_index) AS o FROM alpha_tokens GROUP BY token_id) AS t
         ON t.token_id = p.token_id`,
    );
    const wrong = rows
      .filter((r) => r.condition_id !== r.known_condition || r.outcome_index !== r.known_outcome)
      .map((r) => `${r.wallet} ${r.token_id}: ${r.condition_id}/${r.outcome_index}`);
    return { wrong, no: rows.filter((r) => r.outcome_index === 1).length };
  }

  beforeAll(async () => {
    [deps, sim] = await Promise.all([createTestDeps('positions_late_market'), sharedWorld(SHARED_WORLD)]);
    chainSettings = alphaChainSettings(deps.config, {
      rpcUrls: [sim.rpcUrl],
      positionIds: 'simplified',
      finalityDepth: 0,
    });
    settings = { ...productSettings(deps.config), finalityDepth: 0, batchRows: 400 };
    tip = Number(await sim.anvil.rpc<string>('eth_blockNumber'));
    middle = Math.floor(tip / 2);

    // One backfill with the markets known from the start.
    const all = ingestor();
    await all.referencePass(0, tip);
    await all.ingestRange({ from: 0, to: tip }, { head: tip });
    await recomputePositions(deps, settings);
    cleanAll = await dump();
    await truncateAlphaTables(deps.clickhouse);
  }, 180_000);
  afterAll(async () => {
    await sim?.stop();
    await deps?.close();
  });

  it('a market learnt after its positions were written repairs every position and change row naming its tokens', async () => {
    // The upper half with no reference data: its fills do not know their markets.
    await ingestor().ingestRange({ from: middle + 1, to: tip }, { head: tip });
    const [unknownFills] = await deps.clickhouse.read<[string]>(
      'test.unknown_fills',
      "SELECT count() FROM alpha_fills WHERE condition_id = ''",
    );
    expect(Number(unknownFills?.[0])).toBeGreaterThan(0);
    expect((await runPositions(deps, settings)).mode).toBe('incremental');
    const before = await dump();
    expect(before.positions.filter((p) => p.condition_id === '').length).toBeGreaterThan(0);

    // The markets become known; no new block: the next run repairs what names their tokens.
    await ingestor().referencePass(0, tip);
    await runPositions(deps, settings);
    const check = await marketCheck();
    expect(check.wrong).toEqual([]);
    expect(check.no).toBeGreaterThan(0);
    // Only the market changed, in every position and change row of the tokens.
    const markets = new Map(
      (
        await deps.clickhouse.read<[string, string, number]>(
          'test.tokens',
          'SELECT token_id, any(condition_id), max(outcome_index) FROM alpha_tokens GROUP BY token_id',
        )
      ).map(([t, c, o]) => [t, { condition_id: c, outcome_index: Number(o) }]),
    );
    const relabel = (r: Record<string, unknown>) => ({ ...r, ...markets.get(r.token_id as string) });
    expectEqual(
      await dump(),
      { positions: before.positions.map(relabel), changes: before.changes.map(relabel) },
      'repaired vs relabelled',
    );
    // A repaired run is not repaired again.
    const again = await dump();
    await runPositions(deps, settings);
    expectEqual(await dump(), again, 'a second run after the repair');
  }, 120_000);

  it('the lower half landing later (a rewind recomputing from fills that lack the market) equals one backfill', async () => {
    await ingestor().ingestRange({ from: 0, to: middle }, { head: tip });
    expect((await runPositions(deps, settings, { rewindTo: -1 })).mode).not.toBe('idle');
    expect((await marketCheck()).wrong).toEqual([]);
    expectEqual(await dump(), cleanAll, 'reverse backfill vs one backfill');
    // And a recomputation of everything gives the same.
    await recomputePositions(deps, settings);
    expectEqual(await dump(), cleanAll, 'recomputation');
  }, 120_000);
});
