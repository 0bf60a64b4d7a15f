/**
 * What the catalog endpoints should answer, computed from a synthetic catalog (sim/catalog-tables.ts)
 * with the rules of docs/catalog.md written out again, independently of analytics/catalog/: statuses,
 * money and counts per market, event, tag and category, the tag hierarchy, and the text search (word
 * prefixes, relevance). The tags and search tests compare the API with it.
 */
import { searchWords } from '../../core/search-words.ts';
import type {
  SyntheticCatalog,
  SyntheticEvent,
  SyntheticMarket,
  SyntheticTag,
} from '../../sim/catalog-tables.ts';

export interface TruthMarket {
  m: SyntheticMarket;
  status: 'open' | 'closed' | 'resolved';
  liquidity: number;
}

export interface TruthEvent {
  e: SyntheticEvent;
  status: 'open' | 'closed';
  markets: TruthMarket[];
  tagSlugs: string[];
  volume: number;
  liquidity: number;
  trades: number;
}

export interface Rollup {
  event_count: number;
  open_event_count: number;
  market_count: number;
  total_volume_usd: number;
  liquidity_usd: number;
  trades_all_time: number;
}

export interface TruthTag extends Rollup {
  t: SyntheticTag;
  parent_slug: string | null;
  /** Child slugs in rank order. */
  children: string[];
}

export interface Truth {
  markets: TruthMarket[];
  events: TruthEvent[];
  tags: TruthTag[];
  tagBySlug: Map<string, TruthTag>;
  categories: (Rollup & { category: string; slug: string })[];
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

function marketTruth(m: SyntheticMarket): TruthMarket {
  const status = m.payout !== null ? 'resolved' : m.closed ? 'closed' : 'open';
  const liquidity = sum([...m.bids, ...m.asks].map((l) => l.price * l.size));
  return { m, status, liquidity };
}

function rollup(events: TruthEvent[]): Rollup {
  return {
    event_count: events.length,
    open_event_count: events.filter((e) => e.status === 'open').length,
    market_count: sum(events.map((e) => e.markets.length)),
    total_volume_usd: sum(events.map((e) => e.volume)),
    liquidity_usd: sum(events.map((e) => e.liquidity)),
    trades_all_time: sum(events.map((e) => e.trades)),
  };
}

export function catalogTruth(cat: SyntheticCatalog): Truth {
  const markets = cat.markets.map(marketTruth);
  const marketById = new Map(markets.map((x) => [x.m.id, x]));
  const tagById = new Map(cat.tags.map((t) => [t.id, t]));
  const events: TruthEvent[] = cat.events.map((e) => {
    const ms = e.marketIds.map((id) => marketById.get(id)!);
    return {
      e,
      status: ms.some((x) => x.status === 'open') ? 'open' : 'closed',
      markets: ms,
      tagSlugs: e.tagIds.map((id) => tagById.get(id)!.slug),
      volume: sum(ms.map((x) => x.m.volumeUsd)),
      liquidity: sum(ms.map((x) => x.liquidity)),
      trades: sum(ms.map((x) => x.m.trades)),
    };
  });
  const categorySlugs = new Set(cat.categories.map((c) => searchWords(c).join('-')));
  const rolled = new Map(
    cat.tags.map((t) => [t.id, rollup(events.filter((e) => e.e.tagIds.includes(t.id)))]),
  );
  // Rank: category tags first, then more events, then the lower numeric id.
  const ranked = [...cat.tags].sort(
    (a, b) =>
      Number(categorySlugs.has(b.slug)) - Number(categorySlugs.has(a.slug)) ||
      rolled.get(b.id)!.event_count - rolled.get(a.id)!.event_count ||
      Number(a.id) - Number(b.id),
  );
  const rank = new Map(ranked.map((t, i) => [t.id, i]));
  const tags: TruthTag[] = cat.tags.map((t) => {
    // The synthetic relations are parent ↔ child, both ways.
    const related = cat.tags
      .filter((x) => x.parentId === t.id || t.parentId === x.id)
      .sort((a, b) => rank.get(a.id)! - rank.get(b.id)!);
    const above = related.filter((x) => rank.get(x.id)! < rank.get(t.id)!);
    const below = related.filter((x) => rank.get(x.id)! > rank.get(t.id)!);
    return {
      t,
      ...rolled.get(t.id)!,
      parent_slug: above[0]?.slug ?? null,
      children: below.map((x) => x.slug),
    };
  });
  const categories = cat.categories
    .map((category) => ({
      category,
      slug: searchWords(category).join('-'),
      ...rollup(events.filter((e) => e.e.category === category)),
    }))
    .filter((c) => c.event_count > 0);
  return { markets, events, tags, tagBySlug: new Map(tags.map((t) => [t.t.slug, t])), categories };
}

/** Every query word begins one of the title's words (both split by core/search-words.ts). */
export const matchesWords = (titleWords: readonly string[], queryWords: readonly string[]): boolean =>
  queryWords.every((q) => titleWords.some((w) => w.startsWith(q)));

/** 2 per query word found whole among the title's words, 1 more when the title begins with the query's. */
export const rankWords = (titleWords: readonly string[], queryWords: readonly string[]): number =>
  2 * queryWords.filter((w) => titleWords.includes(w)).length +
  Number(titleWords.join(' ').startsWith(queryWords.join(' ')));

/** Every query word begins a word of the title. */
export const matches = (title: string, query: string): boolean =>
  matchesWords(searchWords(title), searchWords(query));

/** The relevance rank of a title for a query (rankWords). */
export const relevance = (title: string, query: string): number =>
  rankWords(searchWords(title), searchWords(query));

/** Rows matching `query`, by relevance desc, then volume desc, then id asc (string order). */
export function ranked<T>(
  rows: T[],
  query: string,
  of: (row: T) => { title: string; volume: number; id: string },
): T[] {
  return rows
    .filter((r) => matches(of(r).title, query))
    .map((r) => ({ r, k: of(r), rel: relevance(of(r).title, query) }))
    .sort(
      (a, b) => b.rel - a.rel || b.k.volume - a.k.volume || (a.k.id < b.k.id ? -1 : a.k.id > b.k.id ? 1 : 0),
    )
    .map((x) => x.r);
}

/** |a − b| within a relative 1e-9 (sums added in another order). */
export function close(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}
