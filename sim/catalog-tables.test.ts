/**
 * The synthetic catalog writer: deterministic, and every table it fills takes its rows (one database,
 * counts per table equal to the returned catalog's).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDeps, type TestDeps } from '../test/support/deps.ts';
import { syntheticCatalog, writeSyntheticCatalog } from './catalog-tables.ts';

let deps: TestDeps;
beforeAll(async () => {
  deps = await createTestDeps('synthetic_catalog');
});
afterAll(async () => deps?.close());

const now = Date.UTC(2026, 10, 1);

describe('synthetic alpha catalog', () => {
  it('is the same for the same options', () => {
    const a = syntheticCatalog({ seed: 's', events: 30, now });
    const b = syntheticCatalog({ seed: 's', events: 30, now });
    expect(b).toEqual(a);
    expect(syntheticCatalog({ seed: 't', events: 30, now })).not.toEqual(a);
  });

  it('writes every table it describes', async () => {
    const cat = await writeSyntheticCatalog(deps.clickhouse, { seed: 's', events: 60, now });
    const count = async (sql: string) =>
      Number(
        (await deps.clickhouse.query<{ n: string }>('test.count', `SELECT count() AS n FROM ${sql}`))[0]!.n,
      );
    expect(await count('alpha_events FINAL')).toBe(60);
    expect(await count('alpha_markets FINAL')).toBe(cat.markets.length);
    expect(await count('alpha_tags FINAL')).toBe(cat.tags.length);
    expect(await count('alpha_series FINAL')).toBe(cat.series.length);
    expect(await count('alpha_tokens')).toBe(cat.markets.length * 2);
    expect(await count("alpha_market_totals FINAL WHERE level = 'condition'")).toBe(cat.markets.length);
    expect(await count("alpha_lifecycle WHERE kind = 'condition_resolved'")).toBe(
      cat.markets.filter((m) => m.payout !== null).length,
    );
    expect(await count('alpha_book_quotes')).toBe(2 * cat.markets.filter((m) => m.mids[0] !== null).length);
    // Two rows per parent-child pair (the relation both ways).
    expect(await count('alpha_tag_relations FINAL')).toBe(2 * cat.tags.filter((t) => t.parentId).length);
    expect(
      cat.events.some((e) => e.marketIds.every((id) => cat.markets.find((m) => m.id === id)!.closed)),
    ).toBe(true);
  });
});
