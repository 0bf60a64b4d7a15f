/**
 * Ground truth of the events and series endpoints' tests, derived from the SyntheticCatalog the writer
 * returns (sim/catalog-tables.ts), never from the tables under test: each event's status, dates, tag and
 * series slugs, summed metrics and title words, the orders of SPEC's event sorts and the filters, and a
 * pager that follows pagination keys to the end.
 */
import { expect } from 'vitest';
import { searchWords } from '../../core/search-words.ts';
import type { AlphaEvent } from '../../schemas/api/alpha-catalog.ts';
import type { EventSort } from '../../schemas/api/alpha-events.ts';
import type { SyntheticCatalog, SyntheticMarket } from '../../sim/catalog-tables.ts';
import { matchesWords, rankWords } from './alpha-catalog-truth.ts';

export interface TruthEvent {
  id: string;
  slug: string;
  title: string;
  words: string[];
  category: string;
  categorySlug: string;
  status: 'open' | 'closed';
  tags: string[];
  series: string[];
  createdAt: number;
  startDate: number;
  endDate: number | null;
  volume: number;
  volume1d: number;
  volume7d: number;
  volume30d: number;
  openInterest: number;
  trades1d: number;
  trades7d: number;
  trades30d: number;
  /** Its markets by volume descending, ties by market id. */
  markets: SyntheticMarket[];
}

const sum = (ms: SyntheticMarket[], f: (m: SyntheticMarket) => number) => ms.reduce((s, m) => s + f(m), 0);

export function truthEvents(cat: SyntheticCatalog): TruthEvent[] {
  const markets = new Map(cat.markets.map((m) => [m.id, m]));
  const tags = new Map(cat.tags.map((t) => [t.id, t.slug]));
  const series = new Map(cat.series.map((s) => [s.id, s.slug]));
  return cat.events.map((e) => {
    const ms = e.marketIds.map((id) => markets.get(id)!);
    return {
      id: e.id,
      slug: e.slug,
      title: e.title,
      words: searchWords(e.title),
      category: e.category,
      categorySlug: searchWords(e.category).join('-'),
      status: ms.some((m) => !m.closed) ? 'open' : 'closed',
      tags: e.tagIds.map((id) => tags.get(id)!),
      series: e.seriesId ? [series.get(e.seriesId)!] : [],
      createdAt: e.createdAt,
      startDate: e.startDate,
      endDate: e.endDate,
      volume: sum(ms, (m) => m.volumeUsd),
      volume1d: sum(ms, (m) => m.rolling.volume_1d),
      volume7d: sum(ms, (m) => m.rolling.volume_7d),
      volume30d: sum(ms, (m) => m.rolling.volume_30d),
      openInterest: sum(ms, (m) => m.openInterestUsd),
      trades1d: sum(ms, (m) => m.rolling.trades_1d),
      trades7d: sum(ms, (m) => m.rolling.trades_7d),
      trades30d: sum(ms, (m) => m.rolling.trades_30d),
      markets: [...ms].sort((a, b) => b.volumeUsd - a.volumeUsd || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
    };
  });
}

/** The relevance rank of catalog-search.ts (test/support/alpha-catalog-truth.ts). */
export const relevance = (e: TruthEvent, words: string[]): number => rankWords(e.words, words);

/** Every query word begins a word of the title. */
export const matchesSearch = (e: TruthEvent, words: string[]) => matchesWords(e.words, words);

type Key = { get: (e: TruthEvent) => number | string | null; dir: 1 | -1 };

const sortKeys = (sort: EventSort, search: string[] | undefined): Key[] => {
  const d = (get: Key['get']): Key => ({ get, dir: -1 });
  const a = (get: Key['get']): Key => ({ get, dir: 1 });
  const byVolume = d((e) => e.volume);
  switch (sort) {
    case 'created':
      return [d((e) => e.createdAt)];
    case 'created_asc':
      return [a((e) => e.createdAt)];
    case 'start_date':
      return [d((e) => e.startDate)];
    case 'start_date_asc':
      return [a((e) => e.startDate)];
    case 'end_date':
      return [a((e) => e.endDate)];
    case 'end_date_desc':
      return [d((e) => e.endDate)];
    case 'title':
      return [a((e) => e.title.toLowerCase())];
    case 'relevance':
      return search ? [d((e) => relevance(e, search)), byVolume] : [byVolume];
    case 'volume_1d':
      return [d((e) => e.volume1d)];
    case 'volume_7d':
      return [d((e) => e.volume7d)];
    case 'volume_30d':
      return [d((e) => e.volume30d)];
    case 'volume_all_time':
      return [byVolume];
    case 'open_interest':
      return [d((e) => e.openInterest)];
    case 'trades_1d':
      return [d((e) => e.trades1d)];
    case 'trades_7d':
      return [d((e) => e.trades7d)];
    case 'trades_30d':
      return [d((e) => e.trades30d)];
  }
};

/** The ids of `events` in the order of `sort` (missing dates last either way; ties by id ascending). */
export function sortedIds(events: TruthEvent[], sort: EventSort, search?: string[]): string[] {
  const keys = sortKeys(sort, search);
  const cmp = (x: TruthEvent, y: TruthEvent): number => {
    for (const k of keys) {
      const [a, b] = [k.get(x), k.get(y)];
      if (a === b) continue;
      if (a === null) return 1;
      if (b === null) return -1;
      return (a < b ? -1 : 1) * k.dir;
    }
    return x.id < y.id ? -1 : x.id > y.id ? 1 : 0;
  };
  return [...events].sort(cmp).map((e) => e.id);
}

export interface CursorPage {
  events: AlphaEvent[];
  pagination: { limit: number; count: number; pagination_key: string | null; has_more: boolean };
}

/**
 * Every event of `url` (a query string without pagination_key) in page order, following the keys; each
 * page's count ≤ limit and has_more exact (true exactly when a key is given).
 */
export async function pageAll(
  get: (url: string) => Promise<{ statusCode: number; body: string; json(): unknown }>,
  url: string,
  limit: number,
): Promise<AlphaEvent[]> {
  const out: AlphaEvent[] = [];
  let key: string | null = null;
  for (let pages = 0; pages < 1000; pages++) {
    const sep = url.includes('?') ? '&' : '?';
    const res = await get(
      `${url}${sep}limit=${limit}${key ? `&pagination_key=${encodeURIComponent(key)}` : ''}`,
    );
    expect(res.statusCode, res.body).toBe(200);
    const p = res.json() as CursorPage;
    expect(p.pagination.count).toBe(p.events.length);
    expect(p.events.length).toBeLessThanOrEqual(limit);
    expect(p.pagination.has_more).toBe(p.pagination.pagination_key !== null);
    out.push(...p.events);
    if (!p.pagination.has_more) return out;
    expect(p.events.length).toBe(limit);
    key = p.pagination.pagination_key;
  }
  throw new Error(`${url}: more than 1000 pages`);
}
