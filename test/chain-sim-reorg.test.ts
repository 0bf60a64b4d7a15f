/**
 * Live follow of the simulated alpha chain while the sim injects reorgs of depth 1, 3 and 10 (the last
 * blocks replaced by different activity at the same heights): afterwards every alpha table equals a
 * clean backfill of the final chain, and the fills equal the (rolled back) ground truth.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Follower } from '../ingest/chain/follower.ts';
import { createAlphaChain } from '../ingest/venues/alpha/chain/ingestor.ts';
import { EVENT_TABLES, NATURAL_ORDER } from '../ingest/venues/alpha/chain/rows.ts';
import { alphaChainSettings } from '../ingest/venues/alpha/chain/settings.ts';
import { type Sim, startSim } from '../sim/index.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

describe('alpha follower on the sim chain with injected reorgs', () => {
  let deps: TestDeps;
  let sim: Sim;
  let follower: Follower;

  const settings = () =>
    alphaChainSettings(deps.config, {
      rpcUrls: [sim.rpcUrl],
      positionIds: 'simplified',
      finalityDepth: 16,
      followMaxBlocksPerTick: 25,
    });

  async function catchUp() {
    for (let i = 0; i < 100; i++) if ((await follower.tick()).kind === 'idle') return;
    throw new Error('follower did not catch up');
  }

  async function dump() {
    const out: Record<string, unknown[]> = {};
    for (const t of [...EVENT_TABLES, 'alpha_blocks']) {
      const order = NATURAL_ORDER[t as keyof typeof NATURAL_ORDER];
      out[t] = await deps.clickhouse.query(`test.dump.${t}`, `SELECT * FROM ${t} ORDER BY ${order}`);
    }
    return out;
  }

  beforeAll(async () => {
    [deps, sim] = await Promise.all([
      createTestDeps('chain_sim_reorg'),
      startSim({ seed: 'chain-reorg', size: 'small', replicas: false }),
    ]);
    follower = createAlphaChain({ clickhouse: deps.clickhouse, log: deps.log }, settings()).follow({
      fromBlock: 0,
    });
  }, 120_000);
  afterAll(async () => {
    await sim?.stop();
    await deps?.close();
  });

  it('reorgs of depth 1, 3 and 10 during live follow leave every table equal to a clean backfill', async () => {
    await catchUp();
    for (const depth of [1, 3, 10]) {
      await sim.control.mineActive(depth + 2);
      await catchUp();
      const tip = follower.tip()!.number;
      await sim.control.reorg(depth);
      const outcome = await follower.tick();
      expect(outcome.kind).toBe('reorg');
      if (outcome.kind === 'reorg') expect(outcome.ancestor).toBe(tip - depth);
      await catchUp();
    }
    await sim.control.mineActive(2);
    await catchUp();
    const followed = await dump();
    expect(followed.alpha_fills).toHaveLength(sim.ledger.fills.length);

    for (const t of [...EVENT_TABLES, 'alpha_blocks'])
      await deps.clickhouse.command('test.truncate', `TRUNCATE TABLE ${t}`);
    const head = Number(await sim.anvil.rpc<string>('eth_blockNumber'));
    const clean = createAlphaChain({ clickhouse: deps.clickhouse, log: deps.log }, settings());
    await clean.referencePass(0, head);
    await clean.ingestRange({ from: 0, to: head }, { head });
    const backfilled = await dump();
    for (const t of Object.keys(followed)) expect(backfilled[t], t).toEqual(followed[t]);
  }, 120_000);
});
