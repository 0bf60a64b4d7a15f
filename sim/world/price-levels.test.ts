import { describe, expect, it } from 'vitest';
import { generateCatalog } from './catalog.ts';
import { DECI_CENT, openAtHistoryEnd, subcentMarkets, tickAt } from './price-levels.ts';
import { createWorldState } from './state.ts';

const START = Date.UTC(2026, 3, 1);
const HOUR = 3_600_000;
const SEEDS = ['orderbooks-a', 'price-levels-b', 'x', 'demo'];

/** Decimals of a price as the book gives it. */
const places = (p: number) => (String(p).split('.')[1] ?? '').length;

describe("beta's price level structures", () => {
  it.each(SEEDS)(
    'seed %s: a share of the non-sports markets, at least one open when the history ends',
    (seed) => {
      const catalog = generateCatalog({ seed, size: 'small', startTime: START });
      const sub = subcentMarkets(catalog);
      const byKey = new Map(catalog.venues.beta.markets.map((m) => [m.key, m]));
      expect(sub.size).toBeGreaterThan(0);
      for (const [key, structure] of sub) {
        expect(byKey.get(key)?.sports, key).toBeNull();
        expect(['deci_cent', 'tapered_deci_cent']).toContain(structure);
      }
      expect([...sub.keys()].some((k) => openAtHistoryEnd(catalog, byKey.get(k)!))).toBe(true);
      expect(sub.size).toBeLessThan(catalog.venues.beta.markets.filter((m) => m.sports === null).length);
      // The same seed, the same choice.
      expect([...subcentMarkets(generateCatalog({ seed, size: 'small', startTime: START }))]).toEqual([
        ...sub,
      ]);
    },
  );

  it.each(SEEDS)(
    'seed %s: sub-cent levels only behind cent best levels, where the structure allows them',
    (seed) => {
      const catalog = generateCatalog({ seed, size: 'small', startTime: START });
      const state = createWorldState(catalog, { alpha: 'self' });
      let fine = 0;
      for (const t of [START + 6 * HOUR, START + 30 * HOUR, START + 60 * HOUR]) {
        state.tick(t);
        for (const m of catalog.venues.beta.markets) {
          const structure = subcentMarkets(catalog).get(m.key) ?? 'linear_cent';
          const yes = state.book('beta', m.key, 0);
          const no = state.book('beta', m.key, 1);
          if (yes.bids.length > 0) expect(places(yes.bids[0]!.price), m.key).toBeLessThanOrEqual(2);
          if (yes.asks.length > 0) expect(places(yes.asks[0]!.price), m.key).toBeLessThanOrEqual(2);
          for (let i = 1; i < yes.bids.length; i++)
            expect(yes.bids[i]!.price).toBeLessThan(yes.bids[i - 1]!.price);
          for (let i = 1; i < yes.asks.length; i++)
            expect(yes.asks[i]!.price).toBeGreaterThan(yes.asks[i - 1]!.price);
          for (const l of [...yes.bids, ...yes.asks]) {
            if (places(l.price) <= 2) continue;
            fine++;
            expect(structure, m.key).not.toBe('linear_cent');
            expect(places(l.price)).toBe(3);
            expect(tickAt(structure, l.price), `${m.key} ${l.price}`).toBe(DECI_CENT);
          }
          // The NO book mirrors the YES book exactly, sub-cent levels included.
          expect(no.bids.map((l) => [Number((1 - l.price).toFixed(3)), l.size])).toEqual(
            yes.asks.map((l) => [l.price, l.size]),
          );
        }
      }
      expect(fine).toBeGreaterThan(0);
    },
  );
});
