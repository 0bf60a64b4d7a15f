/**
 * A saved world (sim/saved.ts) loaded again is the world that was built: the same chain (every block's
 * hash, every log), the same world state (what the replicas serve), the same ledger (the truth the tests
 * compare with), the same catalog and wallets; and the shared world cache (test/support/world-cache.ts)
 * hands the second caller a loaded world of the same options.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../sim/index.ts';
import { buildAndSaveSim, loadSim, type SavedSim } from '../sim/saved.ts';
import { sharedWorld } from './support/world-cache.ts';

const OPTIONS = { seed: 'sim-saved-1', size: 'small' } as const;

let dir: string;
let built: Sim;
let loaded: SavedSim;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pmdata-sim-saved-'));
  built = await buildAndSaveSim(OPTIONS, dir);
  loaded = await loadSim(dir, { replicas: true });
}, 240_000);

afterAll(async () => {
  await built?.stop();
  await loaded?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function chain(s: { anvil: Sim['anvil'] }, head: number) {
  const hashes: string[] = [];
  for (let n = 0; n <= head; n++) {
    const b = await s.anvil.rpc<{ hash: string }>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
    hashes.push(b.hash);
  }
  const logs = await s.anvil.rpc<unknown[]>('eth_getLogs', [
    { fromBlock: '0x0', toBlock: `0x${head.toString(16)}` },
  ]);
  return { hashes, logs };
}

describe('a saved world loaded again', () => {
  it('serves the same chain, block for block and log for log', async () => {
    expect(loaded.historyHead).toBe(built.historyHead);
    expect(loaded.firstBlock).toBe(built.firstBlock);
    expect(loaded.cutoverTime).toBe(built.cutoverTime);
    const head = Number(await loaded.anvil.rpc<string>('eth_blockNumber'));
    expect(head).toBe(built.historyHead);
    const [a, b] = [await chain(built, head), await chain(loaded, head)];
    expect(b.logs.length).toBeGreaterThan(1000);
    expect(b).toEqual(a);
  });

  it('holds the same world state, ledger, catalog and wallets', () => {
    expect(loaded.state.exportState()).toEqual(built.state.exportState());
    expect(loaded.state.now()).toBe(built.state.now());
    expect(loaded.exportLedger()).toEqual(built.exportLedger());
    expect(loaded.ledger.fills.length).toBe(built.ledger.fills.length);
    expect(loaded.ledger.fills.length).toBeGreaterThan(100);
    expect(loaded.catalog).toEqual(built.catalog);
    expect(loaded.wallets).toEqual(built.wallets);
    expect(loaded.stats).toEqual(built.stats);
  });

  it('serves the replicas from the loaded state', async () => {
    const res = await fetch(`${loaded.replicaUrls!.alpha_metadata}/markets?limit=5`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as unknown[]).length).toBe(5);
  });
});

describe('the shared world cache', () => {
  it('builds a world once and loads it for the next caller', async () => {
    const t0 = performance.now();
    const first = await sharedWorld({ seed: 'sim-saved-cache', size: 'small', historyFills: 50 });
    const buildMs = performance.now() - t0;
    try {
      const t1 = performance.now();
      const second = await sharedWorld({ size: 'small', historyFills: 50, seed: 'sim-saved-cache' });
      const loadMs = performance.now() - t1;
      try {
        expect('control' in second, 'the second caller got a loaded world').toBe(false);
        expect('control' in first, 'the first caller built it').toBe(true);
        expect(second.exportLedger()).toEqual(first.exportLedger());
        expect(second.historyHead).toBe(first.historyHead);
        expect(loadMs).toBeLessThan(buildMs);
      } finally {
        await second.stop();
      }
    } finally {
      await first.stop();
    }
  });
});
