import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDeps, type TestDeps } from '../../test/support/deps.ts';
import { recordSnapshots } from './store.ts';
import { applyOrderbookTtl } from './ttl.ts';

let deps: TestDeps;
beforeAll(async () => {
  deps = await createTestDeps('orderbook_ttl');
});
afterAll(async () => deps?.close());

const DAY = 86_400_000;

async function engines(): Promise<Record<string, string>> {
  const rows = await deps.clickhouse.query<{ name: string; engine_full: string }>(
    'test.ttl.engines',
    `SELECT name, engine_full FROM system.tables
     WHERE database = currentDatabase() AND name IN ('orderbook_snapshots', 'alpha_book_quotes')`,
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.engine_full]));
}

const apply = (days: number) => applyOrderbookTtl({ clickhouse: deps.clickhouse, log: deps.log, days });

describe('ORDERBOOK_TTL_DAYS', () => {
  it('sets the TTL once, keeps it on a second start, removes it at 0 once', async () => {
    expect(await apply(0)).toEqual([
      { table: 'orderbook_snapshots', change: 'none' },
      { table: 'alpha_book_quotes', change: 'none' },
    ]);
    expect(await apply(30)).toEqual([
      { table: 'orderbook_snapshots', change: 'set' },
      { table: 'alpha_book_quotes', change: 'set' },
    ]);
    const set = await engines();
    expect(set.orderbook_snapshots).toMatch(/TTL toDateTime\(ts\) \+ toIntervalDay\(30\)/);
    expect(set.alpha_book_quotes).toMatch(/TTL toDateTime\(book_time\) \+ toIntervalDay\(30\)/);
    expect((await apply(30)).map((c) => c.change)).toEqual(['none', 'none']);
    expect((await apply(7)).map((c) => c.change)).toEqual(['set', 'set']);
    expect((await engines()).orderbook_snapshots).toMatch(/toIntervalDay\(7\)/);
    expect((await apply(0)).map((c) => c.change)).toEqual(['removed', 'removed']);
    const removed = await engines();
    expect(removed.orderbook_snapshots).not.toMatch(/TTL/);
    expect(removed.alpha_book_quotes).not.toMatch(/TTL/);
    expect((await apply(0)).map((c) => c.change)).toEqual(['none', 'none']);
  });

  it('drops the snapshots older than the TTL and keeps the newer ones', async () => {
    const now = Date.now();
    const book = (market: string, ts: number) => ({
      market,
      token_id: '',
      ts,
      bids: [{ price: '0.4', size: '1' }],
      asks: [{ price: '0.6', size: '1' }],
    });
    await recordSnapshots(deps.clickhouse, [book('OLD', now - 40 * DAY), book('NEW', now - DAY)], {
      venue: 'beta',
      source: 'rest',
      observedAt: now,
      keepaliveMs: 900_000,
    });
    await apply(30);
    await deps.clickhouse.command('test.ttl.optimize', 'OPTIMIZE TABLE orderbook_snapshots FINAL');
    const rows = await deps.clickhouse.query<{ market: string }>(
      'test.ttl.rows',
      `SELECT market FROM orderbook_snapshots WHERE venue = 'beta' ORDER BY market`,
    );
    expect(rows.map((r) => r.market)).toEqual(['NEW']);
    await apply(0);
  });
});
