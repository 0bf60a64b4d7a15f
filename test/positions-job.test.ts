/**
 * The positions job (analytics/positions/; docs/positions.md) against a simulated world: shares equal the
 * chain's ERC-1155 balances for every non-protocol holder after a full recomputation.
 */
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PositionsSettings, recomputePositions } from '../analytics/positions/run.ts';
import { createAlphaChain } from '../ingest/venues/alpha/chain/ingestor.ts';
import { alphaChainSettings } from '../ingest/venues/alpha/chain/settings.ts';
import { alphaPositionsSettings } from '../jobs/processors/alpha-positions.ts';
import { type Sim, startSim } from '../sim/index.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

let deps: TestDeps;
let sim: Sim;
let settings: PositionsSettings;

beforeAll(async () => {
  [deps, sim] = await Promise.all([
    createTestDeps('positions_job'),
    startSim({ seed: 'positions-job', size: 'small', replicas: false, housekeeping: 0.3 }),
  ]);
  const top = await sim.anvil.rpc<{ number: Hex }>('eth_getBlockByNumber', ['latest', false]);
  const head = Number(top.number);
  const chainSettings = alphaChainSettings(deps.config, {
    rpcUrls: [sim.rpcUrl],
    positionIds: 'simplified',
    finalityDepth: 0,
  });
  const ingestor = createAlphaChain({ clickhouse: deps.clickhouse, log: deps.log }, chainSettings);
  await ingestor.referencePass(0, head);
  await ingestor.ingestRange({ from: 0, to: head }, { head });
  settings = { ...alphaPositionsSettings(deps.config), finalityDepth: 0 };
}, 300_000);

afterAll(async () => {
  await sim?.stop();
  await deps?.close();
});

describe('positions job', () => {
  it('shares equal the ledger balances of every non-protocol holder', async () => {
    const run = await recomputePositions(deps, settings);
    console.log(JSON.stringify(run));
    const rows = await deps.clickhouse.query<{ wallet: string; token_id: string; shares: string }>(
      't',
      'SELECT wallet, token_id, shares FROM alpha_positions FINAL',
    );
    const got = new Map(rows.map((r) => [`${r.wallet}|${r.token_id}`, BigInt(r.shares)]));
    const protocol = new Set(settings.protocol);
    const ledger = sim.exportLedger();
    const want = new Map<string, bigint>();
    for (const b of ledger.balances.erc1155) {
      if (protocol.has(b.holder.toLowerCase())) continue;
      want.set(`${b.holder.toLowerCase()}|${b.tokenId}`, BigInt(b.amount));
    }
    const diffs: string[] = [];
    for (const [k, v] of want) if ((got.get(k) ?? 0n) !== v) diffs.push(`${k} want ${v} got ${got.get(k) ?? 'none'}`);
    for (const [k, v] of got) if (!want.has(k) && v !== 0n) diffs.push(`${k} want none got ${v}`);
    console.log(diffs.length, diffs.slice(0, 20));
    for (const d of diffs.slice(0, 4)) {
      const [w, t] = d.split(' ')[0]!.split('|');
      const ch = await deps.clickhouse.query('t', `SELECT block_number, log_index, batch_index, kind, fill, price, amount, delta_shares, shares FROM alpha_position_changes WHERE wallet = {w:String} AND token_id = {t:String} ORDER BY block_number, log_index`, { w, t });
      console.log(d, JSON.stringify(ch));
      const act = await deps.clickhouse.query('t', `SELECT block_number, log_index, type, contract, stakeholder, amount, tx_hash FROM alpha_activity WHERE wallet = {w:String} ORDER BY block_number, log_index`, { w });
      console.log('activity', JSON.stringify(act.slice(0, 30)));
      const tr = await deps.clickhouse.query('t', `SELECT block_number, log_index, batch_index, from_address, to_address, amount FROM alpha_token_transfers WHERE token_id = {t:String} AND (from_address = {w:String} OR to_address = {w:String}) ORDER BY block_number, log_index`, { w, t });
      console.log('transfers', JSON.stringify(tr));
    }
    expect(diffs).toEqual([]);
  });
});
