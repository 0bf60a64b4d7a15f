/**
 * The chain writer bumps the `alpha-chain` data version after every change of the chain tables, and
 * only once the change is visible: each insert, range delete and pending→confirmed update. A bump that
 * fails fails the write, so the caller retries both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALPHA_CHAIN_SOURCE, createDataVersions, type DataVersions } from '../core/data-version.ts';
import { createChainWriter } from '../ingest/chain/writer.ts';
import { ALPHA_CHAIN_WRITES } from '../ingest/venues/alpha/chain/tables.ts';
import { addr, bytes32, fillRow } from './api-helpers.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

describe('alpha-chain data version', () => {
  let deps: TestDeps;
  let versions: DataVersions;
  /** What readers saw at each bump: the version before it and the rows visible then. */
  let seen: { blocks: number; pending: number }[] = [];

  const count = async (sql: string) =>
    Number((await deps.clickhouse.query<{ n: string }>('test.count', sql))[0]!.n);
  const counter = async () => Number((await versions.read([ALPHA_CHAIN_SOURCE]))[0]!.split(':')[0] || 0);
  const headers = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) => ({
      number: from + i,
      hash: bytes32(from + i),
      parentHash: bytes32(from + i - 1),
      timestampMs: 1_700_000_000_000 + (from + i) * 2000,
    }));

  function writer(fail = false) {
    const bump = versions.chainBump();
    return createChainWriter({
      tables: ALPHA_CHAIN_WRITES,
      clickhouse: deps.clickhouse,
      log: deps.log,
      chainId: 137,
      batchRows: 10,
      onDataChanged: async (tip) => {
        seen.push({
          blocks: await count('SELECT count() AS n FROM alpha_blocks'),
          pending: await count("SELECT count() AS n FROM alpha_fills WHERE status = 'pending'"),
        });
        if (fail) throw new Error('Redis is down');
        await bump(tip);
      },
    });
  }

  beforeAll(async () => {
    deps = await createTestDeps('chain_data_version');
    versions = createDataVersions({ redis: deps.redis });
  });
  afterAll(async () => deps?.close());

  it('bumps after each insert once its rows are visible', async () => {
    seen = [];
    const w = writer();
    expect(await counter()).toBe(0);
    await w.addBlocks(headers(1, 25));
    await w.flush();
    // Batches of 10: three inserts, two in flight at once; each bump sees at least its own batch.
    const blocks = seen.map((s) => s.blocks);
    expect(blocks).toHaveLength(3);
    expect(Math.min(...blocks)).toBeGreaterThanOrEqual(10);
    expect(Math.max(...blocks)).toBe(25);
    expect(await counter()).toBe(3);
  });

  it('bumps after a range delete and after confirming pending rows, each once visible', async () => {
    const w = writer();
    seen = [];
    await w.deleteRange(21);
    expect(seen).toEqual([{ blocks: 20, pending: 0 }]);
    expect(await counter()).toBe(4);

    await deps.clickhouse.insert(
      'test.fills',
      'alpha_fills',
      [1, 2, 3].map((b) => ({ ...fillRow({ block: b, logIndex: 1, maker: addr(0xa) }), status: 'pending' })),
    );
    seen = [];
    await w.confirmUpTo(2);
    expect(seen).toEqual([{ blocks: 20, pending: 1 }]);
    expect(await counter()).toBe(5);
  });

  it('records the tip the follower reports, and keeps it across later bumps', async () => {
    const w = writer();
    await w.markTip({ number: 20, hash: bytes32(20) });
    expect((await versions.read([ALPHA_CHAIN_SOURCE]))[0]).toBe(`6:20:${bytes32(20)}`);
    await w.deleteRange(20);
    expect((await versions.read([ALPHA_CHAIN_SOURCE]))[0]).toBe(`7:20:${bytes32(20)}`);
    expect(await versions.read(['analytics:none'])).toEqual(['']);
  });

  it('fails the flush when the bump fails, so the write is retried with its bump', async () => {
    const w = writer(true);
    await w.addBlocks(headers(30, 3));
    await expect(w.flush()).rejects.toThrow('Redis is down');
    expect(await counter()).toBe(7);
  });
});
