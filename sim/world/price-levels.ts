/**
 * beta's price level structures (the upstream's `price_level_structure`): most markets quote whole cents
 * (`linear_cent`); a seeded share of the non-sports markets quote tenths of a cent, everywhere
 * (`deci_cent`) or only in the tails below $0.10 and above $0.90 (`tapered_deci_cent`).
 *
 * Drawn from an rng of its own (`<seed>|price-levels|beta`), after the catalog and outside it, so every
 * other draw of the world is unchanged. At least one market open when the history ends (the catalog's
 * end) is sub-cent: when the share picked none, the first such non-sports market is `deci_cent`.
 */
import type { Catalog, CatalogMarket } from './catalog.ts';
import { createRng } from './rng.ts';

export type PriceLevelStructure = 'linear_cent' | 'deci_cent' | 'tapered_deci_cent';

/** Share of beta's non-sports markets with a sub-cent structure. */
export const SUBCENT_SHARE = 0.25;

/** The sub-cent tick ($0.001). */
export const DECI_CENT = 0.001;

const memo = new WeakMap<Catalog, ReadonlyMap<string, PriceLevelStructure>>();

/** Open when the history ends: started, not closed and not resolved by the catalog's end. */
export function openAtHistoryEnd(catalog: Catalog, m: CatalogMarket): boolean {
  const end = catalog.endTime;
  return m.startTime <= end && m.endTime > end && !(m.resolution && m.resolution.time <= end);
}

/** beta's sub-cent markets by key (every other market is `linear_cent`). */
export function subcentMarkets(catalog: Catalog): ReadonlyMap<string, PriceLevelStructure> {
  const hit = memo.get(catalog);
  if (hit) return hit;
  const rng = createRng(`${catalog.seed}|price-levels|beta`);
  const out = new Map<string, PriceLevelStructure>();
  const candidates = catalog.venues.beta.markets.filter((m) => m.sports === null);
  for (const m of candidates) {
    // Two draws per market whatever the first gives: a market's structure does not depend on another's.
    const picked = rng.chance(SUBCENT_SHARE);
    const tapered = rng.chance(0.5);
    if (picked) out.set(m.key, tapered ? 'tapered_deci_cent' : 'deci_cent');
  }
  if (
    ![...out.keys()].some((k) =>
      openAtHistoryEnd(catalog, catalog.venues.beta.markets.find((m) => m.key === k)!),
    )
  ) {
    const open = candidates.find((m) => openAtHistoryEnd(catalog, m));
    if (open) out.set(open.key, 'deci_cent');
  }
  memo.set(catalog, out);
  return out;
}

/** A beta market's structure. */
export function priceLevelStructure(catalog: Catalog, key: string): PriceLevelStructure {
  return subcentMarkets(catalog).get(key) ?? 'linear_cent';
}

/** The tick at `price` under a structure. */
export function tickAt(structure: PriceLevelStructure, price: number): number {
  if (structure === 'deci_cent') return DECI_CENT;
  if (structure === 'tapered_deci_cent') return price < 0.1 || price > 0.9 ? DECI_CENT : 0.01;
  return 0.01;
}

/** The upstream's `price_ranges` of a structure (dollars, 4 decimals). */
export function priceRanges(structure: PriceLevelStructure): { start: string; end: string; step: string }[] {
  if (structure === 'deci_cent') return [{ start: '0.0010', end: '0.9990', step: '0.0010' }];
  if (structure === 'tapered_deci_cent')
    return [
      { start: '0.0010', end: '0.1000', step: '0.0010' },
      { start: '0.1000', end: '0.9000', step: '0.0100' },
      { start: '0.9000', end: '0.9990', step: '0.0010' },
    ];
  return [{ start: '0.0100', end: '0.9900', step: '0.0100' }];
}
