/**
 * The progress store (core/watermarks.ts) on chDB: commit/read/list/forget/newest, the contiguous rule
 * of a chain (the follower's head mark against the backfill ranges joined from the lowest), a commit's
 * write before its mark, and migration 042's copy of the old checkpoint tables.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../core/migrations.ts';
import { createWatermarks, type Watermarks } from '../core/watermarks.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

let deps: TestDeps;
let marks: Watermarks;

beforeAll(async () => {
  deps = await createTestDeps('watermarks');
  marks = createWatermarks(deps.clickhouse);
});
afterAll(async () => deps?.close());
beforeEach(async () => {
  await deps.clickhouse.command('test.truncate', 'TRUNCATE TABLE watermarks');
});

const H = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const range = (from: number, to: number, block: number) =>
  marks.commit({ source: 'c', stream: 'backfill', kind: 'range', from, to, block, hash: H(block) });
const follow = (block: number) =>
  marks.commit({ source: 'c', stream: 'follow', kind: 'head', block, hash: H(block) });

describe('watermarks', () => {
  it('reads back the newest mark of a key, head and range apart', async () => {
    expect(await marks.read('beta', 'markets')).toBeNull();
    const first = await marks.commit({ source: 'beta', stream: 'markets', kind: 'head', time: 1_000 });
    const second = await marks.commit({ source: 'beta', stream: 'markets', kind: 'head', time: 2_000 });
    expect(second.at).toBeGreaterThan(first.at);
    expect(await marks.read('beta', 'markets')).toEqual({
      source: 'beta',
      stream: 'markets',
      kind: 'head',
      time: 2_000,
      at: second.at,
    });
    await range(0, 99, 49);
    await range(0, 99, 99);
    await range(100, 199, 150);
    expect(await marks.read('c', 'backfill', { from: 0, to: 99 })).toMatchObject({
      kind: 'range',
      from: 0,
      to: 99,
      block: 99,
      hash: H(99),
    });
    expect(await marks.read('c', 'backfill', { from: 0, to: 98 })).toBeNull();
    // A stream's head mark is not one of its ranges.
    expect(await marks.read('c', 'backfill')).toBeNull();
    expect((await marks.list('c')).map((m) => [m.stream, m.from, m.block])).toEqual([
      ['backfill', 0, 99],
      ['backfill', 100, 150],
    ]);
  });

  it('keeps a product run version as its at, with block 0 and an empty hash', async () => {
    await marks.commit({
      source: 'p',
      stream: 'run',
      kind: 'head',
      block: 0,
      hash: '',
      at: 1_700_000_000_123,
    });
    expect(await marks.read('p', 'run')).toEqual({
      source: 'p',
      stream: 'run',
      kind: 'head',
      block: 0,
      hash: '',
      at: 1_700_000_000_123,
    });
    expect(await marks.newest('p')).toBe(1_700_000_000_123);
  });

  it('forgets a source, a stream or one range; newest is the last commit of any stream', async () => {
    expect(await marks.newest('beta')).toBeNull();
    await marks.commit({ source: 'beta', stream: 'markets', kind: 'head', time: 1 });
    const last = await marks.commit({ source: 'beta', stream: 'poll', kind: 'head', time: 2 });
    await marks.commit({ source: 'gamma', stream: 'markets', kind: 'head', time: 3 });
    expect(await marks.newest('beta')).toBe(last.at);
    expect(await marks.newest('beta', 'markets')).toBeLessThan(last.at);
    await marks.forget('beta', 'poll');
    expect(await marks.read('beta', 'poll')).toBeNull();
    expect(await marks.read('beta', 'markets')).not.toBeNull();
    await range(0, 9, 9);
    await range(10, 19, 19);
    await marks.forget('c', 'backfill', { from: 0, to: 9 });
    expect((await marks.list('c', 'backfill')).map((m) => m.from)).toEqual([10]);
    await marks.forget('beta');
    expect(await marks.list('beta')).toEqual([]);
    expect(await marks.read('gamma', 'markets')).not.toBeNull();
  });

  it('runs the write before the mark; a failing write leaves no mark', async () => {
    const seen: (string | null)[] = [];
    await marks.commit({ source: 'beta', stream: 'trades', kind: 'head', time: 5 }, async () => {
      seen.push(JSON.stringify(await marks.read('beta', 'trades')));
    });
    expect(seen).toEqual(['null']);
    await expect(
      marks.commit({ source: 'beta', stream: 'trades', kind: 'head', time: 9 }, async () => {
        throw new Error('insert failed');
      }),
    ).rejects.toThrow('insert failed');
    expect((await marks.read('beta', 'trades'))?.time).toBe(5);
  });

  describe('contiguous', () => {
    it('is null with no marks, else the follower mark alone', async () => {
      expect(await marks.contiguous('c')).toBeNull();
      const f = await follow(42);
      expect(await marks.contiguous('c')).toEqual({ block: 42, hash: H(42), at: f.at });
    });

    it('joins finished ranges from the lowest, the newest of their commits its time', async () => {
      await range(100, 199, 199);
      const a = await range(0, 99, 99);
      const b = await range(200, 299, 299);
      expect(await marks.contiguous('c')).toEqual({ block: 299, hash: H(299), at: Math.max(a.at, b.at) });
    });

    it('stops at an unfinished range, its own mark included', async () => {
      await range(0, 99, 99);
      await range(100, 199, 150);
      await range(200, 299, 299);
      expect((await marks.contiguous('c'))?.block).toBe(150);
    });

    it('stops at a gap between ranges', async () => {
      await range(0, 99, 99);
      await range(200, 299, 299);
      expect((await marks.contiguous('c'))?.block).toBe(99);
    });

    it('ignores a range with no progress yet (its mark below its start)', async () => {
      await range(0, 99, 99);
      await marks.commit({
        source: 'c',
        stream: 'backfill',
        kind: 'range',
        from: 100,
        to: 199,
        block: 0,
        hash: '',
      });
      await range(200, 299, 299);
      expect((await marks.contiguous('c'))?.block).toBe(99);
    });

    it('starts the join at the lowest range, wherever that is', async () => {
      await range(500, 599, 599);
      await range(600, 699, 650);
      expect((await marks.contiguous('c'))?.block).toBe(650);
    });

    it('takes the higher of the follower and the joined ranges (the follower on a tie)', async () => {
      await range(0, 99, 99);
      const f = await follow(80);
      expect((await marks.contiguous('c'))?.block).toBe(99);
      await follow(120);
      expect((await marks.contiguous('c'))?.block).toBe(120);
      await marks.forget('c', 'follow');
      const g = await follow(99);
      expect(await marks.contiguous('c')).toEqual({ block: 99, hash: H(99), at: g.at });
      expect(g.at).toBeGreaterThan(f.at);
    });
  });
});

describe('migration 042', () => {
  it('copies the old checkpoints once, keeping their updated_at', async () => {
    const ch = deps.clickhouse;
    // The database as 041 left it (one process serves one database: 042 undone here).
    await ch.command('test.drop', 'DROP TABLE watermarks');
    await ch.command('test.unrecord', 'DELETE FROM schema_migrations WHERE version = 42');
    await ch.insert('test.old', 'alpha_checkpoints', [
      {
        chain_id: 137,
        pipeline: 'follow',
        block_number: 10,
        block_hash: H(10),
        updated_at: '2026-01-01 00:00:00.001',
      },
      {
        chain_id: 137,
        pipeline: 'follow',
        block_number: 20,
        block_hash: H(20),
        updated_at: '2026-01-01 00:00:00.002',
      },
      {
        chain_id: 137,
        pipeline: 'backfill:0-99',
        block_number: 99,
        block_hash: H(99),
        updated_at: '2026-01-01 00:00:00.003',
      },
      {
        chain_id: 137,
        pipeline: 'backfill:100-199',
        block_number: 150,
        block_hash: H(150),
        updated_at: '2026-01-01 00:00:00.004',
      },
      {
        chain_id: 137,
        pipeline: 'analytics:market-data',
        block_number: 99,
        block_hash: H(99),
        updated_at: '2026-01-01 00:00:01.234',
      },
      {
        chain_id: 137,
        pipeline: 'positions',
        block_number: 0,
        block_hash: '',
        updated_at: '2026-01-01 00:00:02.000',
      },
    ]);
    await ch.insert('test.old', 'venue_checkpoints', [
      { venue: 'beta', stream: 'markets', value: '1767225600', updated_at: '2026-01-01 00:00:03.000' },
      { venue: 'beta', stream: 'trades', value: '1767225600123', updated_at: '2026-01-01 00:00:03.001' },
      { venue: 'alpha', stream: 'catalog', value: '1767225600456', updated_at: '2026-01-01 00:00:03.002' },
      { venue: 'gamma', stream: 'markets', value: '1', updated_at: '2026-01-01 00:00:03.003' },
    ]);
    const r = await migrate({ clickhouse: ch, log: deps.log });
    expect(r.applied).toEqual(['042_watermarks']);
    // Run again as a migration interrupted after its statements would be: nothing changes.
    for (const [i, s] of loadMigrations()
      .find((m) => m.version === 42)!
      .statements.entries()) {
      await ch.command(`test.again.${i}`, s);
    }
    const store = createWatermarks(ch);
    const ms = (t: string) => Date.parse(`${t.replace(' ', 'T')}Z`);
    expect(await store.list('alpha-chain')).toEqual([
      {
        source: 'alpha-chain',
        stream: 'backfill',
        kind: 'range',
        from: 0,
        to: 99,
        block: 99,
        hash: H(99),
        at: ms('2026-01-01 00:00:00.003'),
      },
      {
        source: 'alpha-chain',
        stream: 'backfill',
        kind: 'range',
        from: 100,
        to: 199,
        block: 150,
        hash: H(150),
        at: ms('2026-01-01 00:00:00.004'),
      },
      {
        source: 'alpha-chain',
        stream: 'follow',
        kind: 'head',
        block: 20,
        hash: H(20),
        at: ms('2026-01-01 00:00:00.002'),
      },
    ]);
    expect(await store.read('alpha-market-data', 'run')).toEqual({
      source: 'alpha-market-data',
      stream: 'run',
      kind: 'head',
      block: 99,
      hash: H(99),
      at: ms('2026-01-01 00:00:01.234'),
    });
    expect(await store.read('alpha-positions', 'run')).toMatchObject({
      block: 0,
      hash: '',
      at: ms('2026-01-01 00:00:02.000'),
    });
    expect((await store.read('beta', 'markets'))?.time).toBe(1_767_225_600_000);
    expect((await store.read('beta', 'trades'))?.time).toBe(1_767_225_600_123);
    expect(await store.read('alpha-catalog', 'catalog')).toEqual({
      source: 'alpha-catalog',
      stream: 'catalog',
      kind: 'head',
      time: 1_767_225_600_456,
      at: ms('2026-01-01 00:00:03.002'),
    });
    expect((await store.read('gamma', 'markets'))?.time).toBe(1);
    const n = await ch.query<{ n: string }>('test.count', 'SELECT count() AS n FROM watermarks FINAL');
    expect(Number(n[0]!.n)).toBe(9);
  });
});
