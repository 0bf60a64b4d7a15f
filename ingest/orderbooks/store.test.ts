import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataVersions } from '../../core/data-version.ts';
import { decimal } from '../../core/decimal.ts';
import { createTestDeps, type TestDeps } from '../../test/support/deps.ts';
import { type BookSnapshot, recordSnapshots } from './store.ts';

let deps: TestDeps;
beforeAll(async () => {
  deps = await createTestDeps('orderbook_store');
});
afterAll(async () => deps?.close());

const T0 = Date.UTC(2026, 8, 18, 12);
const book = (market: string, bid: string, ts = T0): BookSnapshot => ({
  market,
  token_id: `tok-${market}`,
  ts,
  bids: [
    { price: bid, size: '10.50' },
    { price: '0.0010', size: '3' },
  ],
  asks: [{ price: '0.61', size: '0.01' }],
});

async function stored(market: string) {
  return deps.clickhouse.query<{ seq: string; bids: string[]; sizes: string[]; ts: string }>(
    'test.orderbooks',
    `SELECT toString(sequence) AS seq, arrayMap(x -> toString(x), bid_prices) AS bids,
            arrayMap(x -> toString(x), bid_sizes) AS sizes, toString(toUnixTimestamp64Milli(ts)) AS ts
     FROM orderbook_snapshots WHERE venue = 'beta' AND market = {market:String} ORDER BY ts, sequence`,
    { market },
  );
}

describe('decimal', () => {
  it('gives the canonical exact text', () => {
    expect(decimal('0.5000')).toBe('0.5');
    expect(decimal('012')).toBe('12');
    expect(decimal(0.125)).toBe('0.125');
    expect(decimal('-0.0')).toBe('0');
    expect(decimal('-1.50')).toBe('-1.5');
    expect(() => decimal('1e-3')).toThrow(RangeError);
    expect(() => decimal('0.1234567')).toThrow(/6 decimals/);
    expect(() => decimal('abc')).toThrow(RangeError);
  });
});

describe('recordSnapshots', () => {
  it('stores exact levels, skips an unchanged book within the keep-alive, stores it again after', async () => {
    const versions = createDataVersions({ redis: deps.redis });
    const o = { venue: 'beta', source: 'rest' as const, keepaliveMs: 900_000, versions };
    const first = await recordSnapshots(deps.clickhouse, [book('M1', '0.5500'), book('M2', '0.4')], {
      ...o,
      observedAt: T0,
    });
    expect(first).toEqual({ written: 2, unchanged: 0 });
    const [v1] = await versions.read(['books:beta']);
    // Same book a minute later: skipped; a changed one: written.
    const second = await recordSnapshots(deps.clickhouse, [book('M1', '0.55'), book('M2', '0.41')], {
      ...o,
      observedAt: T0 + 60_000,
    });
    expect(second).toEqual({ written: 1, unchanged: 1 });
    const [v2] = await versions.read(['books:beta']);
    expect(v2).not.toBe(v1);
    // Nothing changed: no write, no bump.
    await recordSnapshots(deps.clickhouse, [book('M1', '0.55')], { ...o, observedAt: T0 + 120_000 });
    expect((await versions.read(['books:beta']))[0]).toBe(v2);
    // The keep-alive passed since M1's last record: stored again with a later sequence.
    const later = await recordSnapshots(deps.clickhouse, [book('M1', '0.55')], {
      ...o,
      observedAt: T0 + 901_000,
    });
    expect(later.written).toBe(1);
    const m1 = await stored('M1');
    expect(m1.map((r) => r.seq)).toEqual([String(T0), String(T0 + 901_000)]);
    expect(m1[0]!.bids).toEqual(['0.55', '0.001']);
    expect(m1[0]!.sizes).toEqual(['10.5', '3']);
    // Another source keeps its own last book.
    const ws = await recordSnapshots(deps.clickhouse, [book('M1', '0.55')], {
      ...o,
      source: 'ws',
      observedAt: T0 + 902_000,
    });
    expect(ws.written).toBe(1);
  });
});
