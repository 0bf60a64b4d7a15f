/**
 * `GET /v2/alpha/events/keyset` and `GET /v2/alpha/events` against a synthetic catalog of 300 events
 * written into the source tables and built into the lists (analytics/catalog/): every parameter, bound,
 * sort and 400 rule, each compared with the catalog the writer returned (test/support/alpha-events-truth.ts).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildAlphaCatalogLists } from '../analytics/catalog/build.ts';
import { searchWords } from '../core/search-words.ts';
import { EVENT_SORTS } from '../schemas/api/alpha-events.ts';
import { type SyntheticCatalog, writeSyntheticCatalog } from '../sim/catalog-tables.ts';
import { type ApiTestContext, createApiTestContext, requestReads } from './api-helpers.ts';
import {
  type CursorPage,
  matchesSearch,
  pageAll,
  relevance,
  sortedIds,
  type TruthEvent,
  truthEvents,
} from './support/alpha-events-truth.ts';

const NOW = Date.UTC(2026, 9, 15, 12);
const URL = '/v2/alpha/events/keyset';

let t: ApiTestContext;
let key: string;
let cat: SyntheticCatalog;
let truth: TruthEvent[];

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });

async function page(url: string): Promise<CursorPage> {
  const res = await get(url);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as CursorPage;
}

const ids = (events: { id: string }[]) => events.map((e) => e.id);
const sorted = (xs: string[]) => [...xs].sort();
/** A value strictly between two neighbours of `values` near their middle (no float boundary ties). */
function between(values: number[]): number {
  const v = [...new Set(values)].sort((a, b) => a - b);
  const i = Math.floor(v.length / 2);
  return (v[i - 1]! + v[i]!) / 2;
}

beforeAll(async () => {
  t = await createApiTestContext('api_alpha_events');
  // A custom-rate key: the sweeps below send hundreds of requests.
  key = await t.key('enterprise', 100_000);
  cat = await writeSyntheticCatalog(t.deps.clickhouse, { seed: 'events-api', events: 300, now: NOW });
  await buildAlphaCatalogLists({ clickhouse: t.deps.clickhouse, log: t.deps.log }, { now: NOW });
  truth = truthEvents(cat);
});
afterAll(async () => t?.close());

describe('GET /v2/alpha/events/keyset', () => {
  it('answers the 20 newest events by default, each the stored event with markets null', async () => {
    const p = await page(URL);
    expect(ids(p.events)).toEqual(sortedIds(truth, 'created').slice(0, 20));
    expect(p.pagination).toMatchObject({ limit: 20, count: 20, has_more: true });
    const byId = new Map(truth.map((e) => [e.id, e]));
    for (const e of p.events) {
      const x = byId.get(e.id)!;
      expect(e).toMatchObject({
        slug: x.slug,
        title: x.title,
        category: x.category,
        status: x.status,
        market_count: x.markets.length,
        creation_date: new Date(x.createdAt).toISOString(),
        markets: null,
      });
      expect(e.tags.map((tag) => tag.slug).sort()).toEqual([...x.tags].sort());
      expect(e.series.map((s) => s.slug)).toEqual(x.series);
      expect(e.total_volume_usd).toBeCloseTo(x.volume, 2);
      expect(e.current_oi_usd).toBeCloseTo(x.openInterest, 2);
    }
  });

  it.each(EVENT_SORTS)('pages every event exactly once in sort=%s order', async (sort) => {
    const got = await pageAll(get, `${URL}?sort=${sort}`, 23);
    expect(ids(got)).toEqual(sortedIds(truth, sort));
  });

  it('puts events without an end date last in both end-date orders', async () => {
    const missing = truth.filter((e) => e.endDate === null).map((e) => e.id);
    expect(missing.length).toBeGreaterThan(0);
    for (const sort of ['end_date', 'end_date_desc']) {
      const got = ids(await pageAll(get, `${URL}?sort=${sort}`, 100));
      expect(sorted(got.slice(-missing.length)), sort).toEqual(sorted(missing));
      expect(got.slice(-missing.length), sort).toEqual(sorted(missing));
    }
  });

  it('pages a filtered set exactly once in relevance order of a search', async () => {
    // "Will The Fed ..." ranks 5 (both words, and the title begins with them), "Will X win the title" 4.
    const words = searchWords('will the');
    const want = truth.filter((e) => matchesSearch(e, words));
    expect(new Set(want.map((e) => relevance(e, words))).size).toBeGreaterThan(1);
    const got = await pageAll(get, `${URL}?search=will%20the&sort=relevance`, 7);
    expect(ids(got)).toEqual(sortedIds(want, 'relevance', words));
  });

  it('pages a combined filter (status, tag, min_volume) exactly once under every sort', async () => {
    const tag = cat.tags.find((x) => x.slug === 'crypto')!.slug;
    const min = between(truth.map((e) => e.volume7d));
    const want = truth.filter((e) => e.status === 'open' && e.tags.includes(tag) && e.volume7d >= min);
    expect(want.length).toBeGreaterThan(5);
    for (const sort of EVENT_SORTS) {
      const got = await pageAll(get, `${URL}?status=open&tag=${tag}&min_volume=${min}&sort=${sort}`, 5);
      expect(ids(got), sort).toEqual(sortedIds(want, sort));
    }
  });

  it('filters by status', async () => {
    for (const status of ['open', 'closed'] as const) {
      const got = await pageAll(get, `${URL}?status=${status}`, 100);
      const want = truth.filter((e) => e.status === status);
      expect(want.length).toBeGreaterThan(0);
      expect(ids(got)).toEqual(sortedIds(want, 'created'));
      expect(got.every((e) => e.status === status)).toBe(true);
    }
  });

  it('filters by category label (any case) and by category slug', async () => {
    const want = sortedIds(
      truth.filter((e) => e.category === 'Crypto'),
      'created',
    );
    expect(want.length).toBeGreaterThan(0);
    for (const c of ['Crypto', 'cRYPTO', 'crypto']) {
      expect(ids(await pageAll(get, `${URL}?category=${c}`, 100)), c).toEqual(want);
    }
    const slug = truth.find((e) => e.category === 'Economics')!.categorySlug;
    expect(ids(await pageAll(get, `${URL}?category=${slug}`, 100))).toEqual(
      sortedIds(
        truth.filter((e) => e.category === 'Economics'),
        'created',
      ),
    );
    expect((await page(`${URL}?category=cryptocurrency`)).events).toEqual([]);
  });

  it('searches titles: every word must begin a title word, in any order', async () => {
    const want = truth.filter((e) => matchesSearch(e, ['100k', 'bitcoin']));
    expect(want.length).toBeGreaterThan(0);
    expect(want.length).toBeLessThan(truth.filter((e) => matchesSearch(e, ['bitcoin'])).length);
    const got = await pageAll(get, `${URL}?search=100k%20Bitcoin`, 100);
    expect(ids(got)).toEqual(sortedIds(want, 'created'));
    // Prefixes match: "lak" begins "lakers".
    const lak = await pageAll(get, `${URL}?search=lak`, 100);
    expect(lak.length).toBeGreaterThan(0);
    expect(ids(lak)).toEqual(
      sortedIds(
        truth.filter((e) => e.words.includes('lakers')),
        'created',
      ),
    );
  });

  it('filters by id, any of the repeated ids', async () => {
    const some = [truth[5]!.id, truth[77]!.id, truth[200]!.id];
    const got = await page(`${URL}?${some.map((id) => `id=${id}`).join('&')}`);
    expect(sorted(ids(got.events))).toEqual(sorted(some));
    expect(ids((await page(`${URL}?id=${some[1]}`)).events)).toEqual([some[1]]);
  });

  it('filters by slug, any of the repeated slugs', async () => {
    const some = [truth[3]!, truth[150]!];
    const got = await page(`${URL}?${some.map((e) => `slug=${e.slug}`).join('&')}`);
    expect(sorted(ids(got.events))).toEqual(sorted(some.map((e) => e.id)));
  });

  it('filters by tag, any of the repeated tag slugs', async () => {
    const tags = ['nba', 'bitcoin-futures'];
    const want = truth.filter((e) => e.tags.some((x) => tags.includes(x)));
    expect(want.length).toBeGreaterThan(truth.filter((e) => e.tags.includes('nba')).length);
    const got = await pageAll(get, `${URL}?tag=nba&tag=bitcoin-futures`, 100);
    expect(ids(got)).toEqual(sortedIds(want, 'created'));
  });

  it('filters by min_volume (7-day volume) and min_open_interest', async () => {
    const v = between(truth.map((e) => e.volume7d));
    const byVolume = await pageAll(get, `${URL}?min_volume=${v}&sort=volume_7d`, 100);
    expect(ids(byVolume)).toEqual(
      sortedIds(
        truth.filter((e) => e.volume7d >= v),
        'volume_7d',
      ),
    );
    const oi = between(truth.map((e) => e.openInterest));
    const byOi = await pageAll(get, `${URL}?min_open_interest=${oi}&sort=open_interest`, 100);
    expect(ids(byOi)).toEqual(
      sortedIds(
        truth.filter((e) => e.openInterest >= oi),
        'open_interest',
      ),
    );
    expect(byOi.every((e) => e.current_oi_usd >= oi)).toBe(true);
    expect((await pageAll(get, `${URL}?min_volume=0`, 100)).length).toBe(truth.length);
  });

  it('nests at most markets_per_event markets per event, by volume, ties by market id', async () => {
    const byId = new Map(truth.map((e) => [e.id, e]));
    const got = await pageAll(get, `${URL}?include_markets=true&markets_per_event=3`, 100);
    expect(got.length).toBe(truth.length);
    for (const e of got) {
      const want = byId.get(e.id)!.markets.slice(0, 3);
      expect(
        e.markets?.map((m) => m.market_id),
        e.id,
      ).toEqual(want.map((m) => m.id));
      const vols = e.markets!.map((m) => m.total_volume_usd);
      expect(vols).toEqual([...vols].sort((a, b) => b - a));
      expect(e.markets!.every((m) => m.event_id === e.id)).toBe(true);
    }
  });

  it('nests up to 10 markets by default with include_markets=true, none with include_markets=false', async () => {
    const byId = new Map(truth.map((e) => [e.id, e]));
    const p = await page(`${URL}?include_markets=true&sort=volume_all_time&limit=50`);
    for (const e of p.events) {
      expect(e.markets!.map((m) => m.market_id)).toEqual(
        byId
          .get(e.id)!
          .markets.slice(0, 10)
          .map((m) => m.id),
      );
    }
    const off = await page(`${URL}?include_markets=false&sort=volume_all_time&limit=50`);
    expect(ids(off.events)).toEqual(ids(p.events));
    expect(off.events.every((e) => e.markets === null)).toBe(true);
  });

  it('reads ClickHouse once per page, nested markets included', async () => {
    const read = vi.spyOn(t.deps.clickhouse, 'read');
    try {
      // Page sizes no other test asks for: the response cache cannot answer.
      const first = await page(`${URL}?sort=volume_7d&limit=13`);
      expect(requestReads(read.mock.calls)).toEqual(['api.alpha.events']);
      read.mockClear();
      const k = encodeURIComponent(first.pagination.pagination_key!);
      await page(`${URL}?sort=volume_7d&limit=17&include_markets=true&pagination_key=${k}`);
      expect(requestReads(read.mock.calls)).toEqual(['api.alpha.events']);
    } finally {
      read.mockRestore();
    }
  });

  it('accepts limit 1 and 100 and pages with them', async () => {
    const one = await page(`${URL}?limit=1`);
    expect(one.pagination).toMatchObject({ limit: 1, count: 1, has_more: true });
    const hundred = await page(`${URL}?limit=100`);
    expect(hundred.pagination).toMatchObject({ limit: 100, count: 100, has_more: true });
    expect(ids(hundred.events).slice(0, 1)).toEqual(ids(one.events));
  });

  it('accepts offset=0', async () => {
    expect(ids((await page(`${URL}?offset=0&limit=5`)).events)).toEqual(
      ids((await page(`${URL}?limit=5`)).events),
    );
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['markets_per_event=0&include_markets=true', 'markets_per_event'],
    ['markets_per_event=51&include_markets=true', 'markets_per_event'],
    ['sort=newest', 'sort'],
    ['status=resolved', 'status'],
    ['search=ab', 'search'],
    [`search=${'a'.repeat(101)}`, 'search'],
    [Array.from({ length: 51 }, (_, i) => `id=${10_000 + i}`).join('&'), 'id'],
    [Array.from({ length: 51 }, (_, i) => `slug=s${i}`).join('&'), 'slug'],
    [Array.from({ length: 51 }, (_, i) => `tag=t${i}`).join('&'), 'tag'],
    ['min_volume=-1', 'min_volume'],
    ['min_open_interest=-0.5', 'min_open_interest'],
    ['include_markets=maybe', 'include_markets'],
    ['offset=-1', 'offset'],
  ])('answers 422 for %#: %s', async (qs, param) => {
    const res = await get(`${URL}?${qs}`);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().detail.map((d: { loc: string[] }) => d.loc[1])).toContain(param);
  });

  it('accepts 50 items in an array parameter', async () => {
    const fifty = truth.slice(0, 50).map((e) => `id=${e.id}`);
    const p = await page(`${URL}?${fifty.join('&')}&limit=100`);
    expect(sorted(ids(p.events))).toEqual(sorted(truth.slice(0, 50).map((e) => e.id)));
  });

  it('answers 400 for offset other than 0', async () => {
    const res = await get(`${URL}?offset=20`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'Bad Request', message: expect.stringContaining('offset') });
  });

  it('answers 400 for a search without a letter or digit', async () => {
    const res = await get(`${URL}?search=${encodeURIComponent('?!-')}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('search');
  });

  it('answers 400 for a cursor reused with other filters', async () => {
    const first = await page(`${URL}?status=open&limit=5`);
    const k = encodeURIComponent(first.pagination.pagination_key!);
    for (const other of ['status=closed', 'status=open&tag=nba', 'status=open&search=bitcoin', '']) {
      const res = await get(`${URL}?${other}&limit=5&pagination_key=${k}`);
      expect(res.statusCode, other).toBe(400);
      expect(res.json().message).toContain('other filters or sort');
    }
    // The same filters written otherwise (another limit, include_markets) keep the cursor valid.
    const next = await page(`${URL}?status=open&limit=7&include_markets=true&pagination_key=${k}`);
    expect(next.events[0]!.id).toBe(
      sortedIds(
        truth.filter((e) => e.status === 'open'),
        'created',
      )[5],
    );
  });

  it('answers 400 for a cursor reused with another sort', async () => {
    const first = await page(`${URL}?sort=volume_7d&limit=5`);
    const k = encodeURIComponent(first.pagination.pagination_key!);
    const res = await get(`${URL}?sort=volume_30d&limit=5&pagination_key=${k}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('other filters or sort');
  });

  it('answers 400 for a forged pagination_key', async () => {
    const res = await get(`${URL}?pagination_key=${Buffer.from('{"v":1}x'.repeat(4)).toString('base64url')}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('Invalid pagination_key');
  });

  it('gives the same cursor for the same lists written in another order', async () => {
    const a = await page(`${URL}?tag=nba&tag=crypto&limit=3`);
    const b = await page(`${URL}?tag=crypto&tag=nba&tag=nba&limit=3`);
    expect(b).toEqual(a);
  });
});

describe('GET /v2/alpha/events', () => {
  it('answers as /events/keyset, and each takes the other’s cursors', async () => {
    const q = 'status=closed&sort=trades_7d&limit=9';
    const a = await page(`${URL}?${q}`);
    const b = await page(`/v2/alpha/events?${q}`);
    expect(b).toEqual(a);
    const k = encodeURIComponent(a.pagination.pagination_key!);
    expect(await page(`/v2/alpha/events?${q}&pagination_key=${k}`)).toEqual(
      await page(`${URL}?${q}&pagination_key=${k}`),
    );
    const all = await pageAll(get, '/v2/alpha/events?sort=title', 41);
    expect(ids(all)).toEqual(sortedIds(truth, 'title'));
    expect((await get('/v2/alpha/events?offset=3')).statusCode).toBe(400);
    expect((await get('/v2/alpha/events?limit=101')).statusCode).toBe(422);
  });
});
