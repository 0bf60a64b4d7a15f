/**
 * Upgrade to the products' run marks (migration 043): a data dir whose rolling metrics, wallet profiles
 * and catalog lists were written before every product run committed a mark has none for them; the
 * migration seeds each from what its freshness was read from before (the newest `version` of its rows;
 * the catalog lists: when the active parts of `alpha_market_list` were written), so the freshness does
 * not go blank and shows the same time. A product without rows gets no mark; a later run's mark wins.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsProducts } from '../analytics/products.ts';
import { commitRun } from '../analytics/shared/chain.ts';
import { migrate } from '../core/migrations.ts';
import { createWatermarks } from '../core/watermarks.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

let deps: TestDeps;
const ROLLING_VERSION = 1_765_000_000_123;
const PROFILES_VERSION = 1_765_000_100_456;

async function freshness(): Promise<Record<string, number | null>> {
  return Object.fromEntries(
    await Promise.all(
      analyticsProducts(deps.clickhouse).map(async (p) => [p.product, await p.computedAt()] as const),
    ),
  );
}

beforeAll(async () => {
  deps = await createTestDeps('upgrade_product_marks');
}, 60_000);
afterAll(async () => {
  await deps?.close();
});

describe('upgrade: the run marks of the products that had none', () => {
  it('an empty data dir gets no mark: no product ran', async () => {
    await deps.clickhouse.command('test.unrecord', 'DELETE FROM schema_migrations WHERE version = 43');
    expect((await migrate({ clickhouse: deps.clickhouse, log: deps.log })).applied).toEqual([
      '043_product_run_marks',
    ]);
    expect(Object.values(await freshness())).toEqual([null, null, null, null, null]);
  });

  it("seeds each from its rows' version or its list's parts: the freshness the old readers gave", async () => {
    const ch = deps.clickhouse;
    // The rows the old runs left (two versions each: the newest is the last run's).
    await ch.insert('test.rolling', 'alpha_market_rolling', [
      { level: 'token', id: 't1', version: ROLLING_VERSION - 5_000 },
      { level: 'token', id: 't2', version: ROLLING_VERSION },
    ]);
    await ch.insert('test.profiles', 'alpha_wallet_profiles', [
      { wallet: '0xaa', version: PROFILES_VERSION - 7_000 },
      { wallet: '0xbb', version: PROFILES_VERSION },
    ]);
    await ch.insert('test.list', 'alpha_market_list', [{ market_id: 'm1', event_id: 'e1', title: 'x' }]);
    const [parts] = await ch.query<{ t: string }>(
      'test.parts',
      `SELECT toUnixTimestamp(max(modification_time)) * 1000 AS t FROM system.parts
       WHERE database = currentDatabase() AND table = 'alpha_market_list' AND active`,
    );
    expect(Object.values(await freshness())).toEqual([null, null, null, null, null]);

    await ch.command('test.unrecord', 'DELETE FROM schema_migrations WHERE version = 43');
    expect((await migrate({ clickhouse: ch, log: deps.log })).applied).toEqual(['043_product_run_marks']);
    expect(await freshness()).toEqual({
      'alpha-market-data': null,
      'alpha-rolling-metrics': ROLLING_VERSION,
      'alpha-positions': null,
      'alpha-profiles': PROFILES_VERSION,
      'alpha-catalog-lists': Number(parts!.t),
    });
    expect(await createWatermarks(ch).read('alpha-profiles', 'run')).toEqual({
      source: 'alpha-profiles',
      stream: 'run',
      kind: 'head',
      at: PROFILES_VERSION,
    });
  });

  it("a run's mark after the upgrade wins over the seeded one", async () => {
    await commitRun(deps.clickhouse, 'alpha-rolling-metrics', { kind: 'head', at: ROLLING_VERSION + 60_000 });
    expect((await freshness())['alpha-rolling-metrics']).toBe(ROLLING_VERSION + 60_000);
  });
});
