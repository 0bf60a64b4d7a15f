/**
 * The tests every venue market list must pass, over a seeded fixture (venue-markets-fixtures.ts): the
 * default page, every filter and every sort against the fixture's truth with each row served once across
 * pages, the canonical ids of each outcome (and the venue's value for an outcome without one), one read
 * per page, the 422s of the shared parameters and of the venue's own (`invalid`), the 400s of the shared
 * ones. A venue's test file calls `venueListSuite` with its fixture and the check of one served item, and
 * keeps only the rules no other venue has.
 */

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { canonicalId } from '../../core/canonical-id.ts';
import { type ApiTestContext, createApiTestContext, requestReads } from '../api-helpers.ts';
import { type Query, type Row, type VenueFixture, writeFixture } from './venue-markets-fixtures.ts';

export interface Page {
  markets: Record<string, unknown>[];
  pagination: { limit: number; count: number; pagination_key: string | null; has_more: boolean };
}

export const qs = (params: Query) =>
  Object.entries(params)
    .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}=${encodeURIComponent(String(x))}`))
    .join('&');

export interface VenueSuite {
  t: () => ApiTestContext;
  f: () => VenueFixture;
  get: (url: string) => Promise<{ statusCode: number; body: string; json: () => unknown }>;
  page: (url: string) => Promise<Page>;
  all: (params: Query, limit?: number) => Promise<Record<string, unknown>[]>;
  expected: (pred: (r: Row, ids: readonly string[]) => boolean, sort?: string) => string[];
}

export function venueListSuite(
  build: () => VenueFixture,
  checkItem: (m: Record<string, unknown>, r: Row, ids: readonly string[]) => void,
): VenueSuite {
  let t: ApiTestContext;
  let key: string;
  let f: VenueFixture;
  let byKey: Map<string, Row>;
  const fixture = build();
  const base = `/v2/${fixture.venue}/markets`;

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  const page = async (url: string): Promise<Page> => {
    const res = await get(url);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Page;
  };
  const all = async (params: Query, limit = 9): Promise<Record<string, unknown>[]> => {
    const out: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    for (let n = 0; n < 500; n++) {
      const p = await page(
        `${base}?${qs({ ...params, limit })}${cursor ? `&pagination_key=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(p.pagination.count).toBe(p.markets.length);
      expect(p.pagination.limit).toBe(limit);
      out.push(...p.markets);
      if (!p.pagination.has_more) {
        expect(p.pagination.pagination_key).toBeNull();
        return out;
      }
      expect(p.markets.length).toBe(limit);
      cursor = p.pagination.pagination_key;
    }
    throw new Error('too many pages');
  };
  const idsOf = (r: Row) => f.ids.get(f.keyOf(r)) ?? ['', ''];
  const expected = (pred: (r: Row, ids: readonly string[]) => boolean, sort = fixture.defaultSort) =>
    f.rows
      .filter((r) => pred(r, idsOf(r)))
      .sort(f.sorts[sort])
      .map(f.keyOf);

  beforeAll(async () => {
    t = await createApiTestContext(`api_venue_markets_${fixture.venue}`);
    key = await t.key('enterprise', 100_000);
    f = fixture;
    byKey = new Map(f.rows.map((r) => [f.keyOf(r), r]));
    await writeFixture(t.deps.clickhouse, f);
  }, 300_000);
  afterAll(async () => t?.close());

  describe(`GET ${base}: the shared behaviour`, () => {
    it(`answers {markets, pagination}: 20 markets by ${fixture.defaultSort}, each as stored (newest version)`, async () => {
      const p = await page(base);
      expect(Object.keys(p).sort()).toEqual(['markets', 'pagination']);
      expect(p.pagination).toMatchObject({ limit: 20, count: 20, has_more: true });
      expect(p.markets.map(f.servedKey)).toEqual(expected(() => true).slice(0, 20));
      for (const m of p.markets) {
        const r = byKey.get(f.servedKey(m))!;
        checkItem(m, r, idsOf(r));
      }
    });

    it('serves every market once across pages, with the canonical id of each outcome', async () => {
      const every = await all({}, 17);
      expect(every.map(f.servedKey)).toEqual(expected(() => true));
      for (const m of every) {
        const r = byKey.get(f.servedKey(m))!;
        checkItem(m, r, idsOf(r));
      }
    });

    it.each(Object.keys(fixture.sorts))(
      'sort=%s pages the truth in order, each market once',
      async (sort) => {
        const every = await all({ sort }, 11);
        expect(every.map(f.servedKey)).toEqual(expected(() => true, sort));
      },
    );

    it.each(fixture.filters.map((c) => [c.name, c] as const))(
      'filter %s selects the truth',
      async (_n, c) => {
        const want = expected(c.pred);
        expect(want.length, `fixture selects some markets for ${c.name}`).toBeGreaterThan(0);
        expect(want.length, `fixture leaves some markets out for ${c.name}`).toBeLessThan(f.rows.length);
        const got = await all(c.query, 13);
        expect(got.map(f.servedKey)).toEqual(want);
      },
    );

    it('reads ClickHouse once per page, with filters and after a cursor', async () => {
      const read = vi.spyOn(t.deps.clickhouse, 'read');
      try {
        const first = await page(`${base}?status=open&limit=3`);
        expect(requestReads(read.mock.calls)).toEqual([`api.${fixture.venue}.markets`]);
        read.mockClear();
        await page(
          `${base}?status=open&limit=4&pagination_key=${encodeURIComponent(first.pagination.pagination_key!)}`,
        );
        expect(requestReads(read.mock.calls)).toEqual([`api.${fixture.venue}.markets`]);
      } finally {
        read.mockRestore();
      }
    });

    it('a list written in another order or with repeats gives the same cursor and pages', async () => {
      const [a, b] = f.rows
        .slice(0, 2)
        .map((r) => idsOf(r)[0]!)
        .filter((x) => x !== '');
      if (!a || !b) return;
      const one = await page(`${base}?${qs({ canonical_id: [a, b], limit: 1 })}`);
      const two = await page(`${base}?${qs({ canonical_id: [b, a, b], limit: 1 })}`);
      expect(two).toEqual(one);
    });

    it(`an outcome without a canonical id serves ${JSON.stringify(fixture.noCanonicalId)}`, async () => {
      const every = await all({}, 50);
      const without = every.filter(
        (m) => (m.outcomes as { canonical_id: string | null }[])[0]!.canonical_id === fixture.noCanonicalId,
      );
      expect(without.length).toBeGreaterThan(0);
      expect(without.map(f.servedKey)).toEqual(expected((_r, ids) => ids[0] === ''));
    });

    it.each([
      ...fixture.invalid,
      ['limit', 'limit=0'],
      ['limit', 'limit=101'],
      ['search', 'search=ab'],
      ['sort', 'sort=bogus'],
      ['canonical_id', 'canonical_id=pmc_NOTBASE32xyz'],
      ['canonical_id', 'canonical_id=pmc_abc'],
      [
        'canonical_id',
        Array.from({ length: 51 }, (_, i) => `canonical_id=${canonicalId(String(i))}`).join('&'),
      ],
      ['status', 'status=resolved'],
    ])('422 naming %s for %s', async (param, query) => {
      const res = await get(`${base}?${query}`);
      expect(res.statusCode, res.body).toBe(422);
      const body = res.json() as { detail: { loc: (string | number)[] }[] };
      expect(
        body.detail.some((d) => d.loc[0] === 'query' && d.loc[1] === param),
        res.body,
      ).toBe(true);
    });

    it('400 for a pagination_key of other filters or sort, a forged one, an offset, a search without words', async () => {
      const p = await page(`${base}?limit=2`);
      const k = encodeURIComponent(p.pagination.pagination_key!);
      const other = Object.keys(fixture.sorts).find((s) => s !== fixture.defaultSort)!;
      for (const url of [
        `${base}?limit=2&status=open&pagination_key=${k}`,
        `${base}?limit=2&sort=${other}&pagination_key=${k}`,
        `${base}?limit=2&pagination_key=${k}x`,
        `${base}?offset=5`,
        `${base}?search=${encodeURIComponent('?!.,')}`,
      ]) {
        const res = await get(url);
        expect(res.statusCode, `${url}: ${res.body}`).toBe(400);
        expect(Object.keys(res.json() as object).sort()).toEqual(['error', 'message']);
      }
    });
  });

  return { t: () => t, f: () => f, get, page, all, expected };
}
