/**
 * Same seed → the same chain, log for log (addresses, topics, data, block and transaction hashes); a
 * different seed → a different chain. Each world is built from scratch on its own anvil.
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileContracts } from '../sim/chain/compile.ts';
import { startSim } from '../sim/index.ts';
import { allLogs } from './support/chain.ts';

async function worldDigest(seed: string): Promise<{ digest: string; logs: number; fills: number }> {
  const sim = await startSim({ seed, size: 'small', replicas: false });
  try {
    const logs = await allLogs(sim.anvil, 0, sim.historyHead);
    const h = createHash('sha256');
    for (const l of logs) {
      h.update(
        [
          l.blockNumber,
          l.blockHash,
          l.transactionHash,
          l.logIndex,
          l.address.toLowerCase(),
          ...l.topics,
          l.data,
        ].join('|'),
      );
      h.update('\n');
    }
    return { digest: h.digest('hex'), logs: logs.length, fills: sim.ledger.fills.length };
  } finally {
    await sim.stop();
  }
}

beforeAll(() => {
  compileContracts();
}, 120_000);

describe('sim chain determinism', () => {
  it('the same seed twice gives identical logs, another seed different ones', async () => {
    const a = await worldDigest('determinism-1');
    const b = await worldDigest('determinism-1');
    const c = await worldDigest('determinism-2');
    expect(a.logs).toBeGreaterThan(2000);
    expect(b).toEqual(a);
    expect(c.digest).not.toBe(a.digest);
  });
});
