import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAlphaCatalogLists } from '../analytics/catalog/build.ts';
import { searchWords } from '../core/search-words.ts';
import type { AlphaCategory, AlphaTag } from '../schemas/api/alpha-catalog.ts';
import type { SubtagsResponse, TagsResponse } from '../schemas/api/alpha-tags.ts';
import { writeSyntheticCatalog } from '../sim/catalog-tables.ts';
import { type ApiTestContext, createApiTestContext } from './api-helpers.ts';
import { catalogTruth, close, matches, type Truth, type TruthTag } from './support/alpha-catalog-truth.ts';

let t: ApiTestContext;
let key: string;
let truth: Truth;
const NOW = Date.UTC(2026, 5, 1);

async function get(url: string) {
  return t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
}

async function ok<T>(url: string): Promise<T> {
  const res = await get(url);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as T;
}

/** Every page of a tags query (limit `limit`), checking each page's pagination. */
async function allTags(query: string, limit: number): Promise<AlphaTag[]> {
  const out: AlphaTag[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 1000; i++) {
    const page: TagsResponse = await ok<TagsResponse>(
      `/v2/alpha/tags?limit=${limit}${query}${cursor ? `&pagination_key=${cursor}` : ''}`,
    );
    expect(page.pagination.count).toBe(page.tags.length);
    expect(page.tags.length).toBeLessThanOrEqual(limit);
    out.push(...page.tags);
    if (!page.pagination.has_more) {
      expect(page.pagination.pagination_key).toBeNull();
      return out;
    }
    expect(page.tags.length).toBe(limit);
    cursor = page.pagination.pagination_key;
  }
  throw new Error('too many pages');
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function expectRollup(
  got: Omit<AlphaTag, 'id' | 'label' | 'slug' | 'parent_slug' | 'subtag_count'>,
  want: typeof got,
) {
  expect(got.event_count).toBe(want.event_count);
  expect(got.open_event_count).toBe(want.open_event_count);
  expect(got.market_count).toBe(want.market_count);
  expect(got.trades_all_time).toBe(want.trades_all_time);
  expect(
    close(got.total_volume_usd, want.total_volume_usd),
    `${got.total_volume_usd} vs ${want.total_volume_usd}`,
  ).toBe(true);
  expect(close(got.liquidity_usd, want.liquidity_usd), `${got.liquidity_usd} vs ${want.liquidity_usd}`).toBe(
    true,
  );
}

/** The events a tag-and-status filter selects, as the events list applies it. */
const eventsOf = (slug: string, status: 'open' | 'closed') =>
  truth.events.filter((e) => e.tagSlugs.includes(slug) && e.status === status);

beforeAll(async () => {
  t = await createApiTestContext('api_alpha_tags');
  key = await t.key('pro');
  const cat = await writeSyntheticCatalog(t.deps.clickhouse, { seed: 'tags', events: 300, now: NOW });
  await buildAlphaCatalogLists(t.deps, { now: NOW });
  truth = catalogTruth(cat);
}, 120_000);
afterAll(async () => t?.close());

describe('GET /v2/alpha/tags', () => {
  it('serves every tag with its events rolled up, its parent and its subtag count (ground truth)', async () => {
    const tags = await allTags('', 200);
    expect(tags.map((x) => x.id).sort()).toEqual(truth.tags.map((x) => x.t.id).sort());
    for (const tag of tags) {
      const want = truth.tagBySlug.get(tag.slug)!;
      expect(tag.id).toBe(want.t.id);
      expect(tag.label).toBe(want.t.label);
      expectRollup(tag, want);
      expect(tag.parent_slug).toBe(want.parent_slug);
      expect(tag.subtag_count).toBe(want.children.length);
    }
    // The synthetic hierarchy: categories at the top, their children below them, grandchildren below those.
    for (const want of truth.tags) {
      const parent = want.t.parentId ? truth.tags.find((x) => x.t.id === want.t.parentId)!.t.slug : null;
      expect(want.parent_slug).toBe(parent);
    }
  });

  it('sorts by volume by default, highest first, ties by id', async () => {
    const { tags, pagination } = await ok<TagsResponse>('/v2/alpha/tags');
    expect(pagination.limit).toBe(50);
    expect(tags.length).toBe(Math.min(50, truth.tags.length));
    for (let i = 1; i < tags.length; i++) {
      const [a, b] = [tags[i - 1]!, tags[i]!];
      expect(
        a.total_volume_usd > b.total_volume_usd || (a.total_volume_usd === b.total_volume_usd && a.id < b.id),
      ).toBe(true);
    }
    const expected = [...truth.tags].sort(
      (a, b) => b.total_volume_usd - a.total_volume_usd || byId(a.t, b.t),
    );
    expect(tags.map((x) => x.slug)).toEqual(expected.slice(0, 50).map((x) => x.t.slug));
  });

  it('sort=events: event count, highest first, ties by id', async () => {
    const tags = await allTags('&sort=events', 200);
    const expected = [...truth.tags].sort((a, b) => b.event_count - a.event_count || byId(a.t, b.t));
    expect(tags.map((x) => x.slug)).toEqual(expected.map((x) => x.t.slug));
  });

  it('sort=label: A→Z whatever the case, ties by id', async () => {
    const tags = await allTags('&sort=label', 200);
    const lower = (x: TruthTag) => x.t.label.toLowerCase();
    const expected = [...truth.tags].sort((a, b) =>
      lower(a) < lower(b) ? -1 : lower(a) > lower(b) ? 1 : byId(a.t, b.t),
    );
    expect(tags.map((x) => x.slug)).toEqual(expected.map((x) => x.t.slug));
  });

  it('pages through every tag exactly once, in every sort', async () => {
    for (const sort of ['volume', 'events', 'label']) {
      const paged = await allTags(`&sort=${sort}`, 7);
      const whole = await allTags(`&sort=${sort}`, 200);
      expect(new Set(paged.map((x) => x.id)).size).toBe(paged.length);
      expect(paged.map((x) => x.id)).toEqual(whole.map((x) => x.id));
      expect(paged.length).toBe(truth.tags.length);
    }
  });

  it('search: tags whose label words begin with every query word', async () => {
    for (const q of ['futures', 'nba fut', 'PROPS', 'socc']) {
      const tags = await allTags(`&search=${encodeURIComponent(q)}`, 200);
      const expected = truth.tags.filter((x) => matches(x.t.label, q)).map((x) => x.t.slug);
      expect(expected.length).toBeGreaterThan(0);
      expect(tags.map((x) => x.slug).sort()).toEqual(expected.sort());
    }
    expect((await ok<TagsResponse>('/v2/alpha/tags?search=zzzzz')).tags).toEqual([]);
  });

  it('search with a cursor: pages stay within the matches', async () => {
    const paged = await allTags('&search=futures&sort=label', 2);
    expect(paged.map((x) => x.slug).sort()).toEqual(
      truth.tags
        .filter((x) => matches(x.t.label, 'futures'))
        .map((x) => x.t.slug)
        .sort(),
    );
  });

  it('limit: 1 to 200 (422 outside)', async () => {
    expect((await ok<TagsResponse>('/v2/alpha/tags?limit=1')).tags.length).toBe(1);
    expect((await ok<TagsResponse>('/v2/alpha/tags?limit=200')).pagination.limit).toBe(200);
    for (const limit of ['0', '201', 'x']) {
      const res = await get(`/v2/alpha/tags?limit=${limit}`);
      expect(res.statusCode, limit).toBe(422);
      expect(res.json().detail[0].loc).toEqual(['query', 'limit']);
    }
  });

  it('sort: an unknown sort is a 422', async () => {
    const res = await get('/v2/alpha/tags?sort=name');
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(['query', 'sort']);
  });

  it('search: 3 to 100 characters (422 outside), and at least one word (400)', async () => {
    expect((await get('/v2/alpha/tags?search=ab')).statusCode).toBe(422);
    expect((await get(`/v2/alpha/tags?search=${'a'.repeat(101)}`)).statusCode).toBe(422);
    const res = await get('/v2/alpha/tags?search=%21%21%21');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Bad Request', message: expect.stringContaining('search') });
  });

  it('pagination_key: reused with another sort or search is a 400, a forged one too', async () => {
    const first = await ok<TagsResponse>('/v2/alpha/tags?limit=5');
    const k = first.pagination.pagination_key!;
    for (const other of ['&sort=events', '&search=futures']) {
      const res = await get(`/v2/alpha/tags?limit=5&pagination_key=${k}${other}`);
      expect(res.statusCode, other).toBe(400);
      expect(res.json().message).toMatch(/other filters or sort/);
    }
    expect((await get(`/v2/alpha/tags?pagination_key=${k.slice(0, -2)}xx`)).statusCode).toBe(400);
    // The same query with another limit continues.
    const next = await ok<TagsResponse>(`/v2/alpha/tags?limit=3&pagination_key=${k}`);
    expect(next.tags[0]!.id).not.toBe(first.tags[4]!.id);
  });

  it('offset: only 0 (else 400)', async () => {
    expect((await get('/v2/alpha/tags?offset=0')).statusCode).toBe(200);
    const res = await get('/v2/alpha/tags?offset=10');
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/offset/);
  });

  it('needs an API key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v2/alpha/tags' });
    expect(res.statusCode).toBe(401);
  });
});

describe('GET /v2/alpha/tag/{slug}', () => {
  it('answers the tag as the list does', async () => {
    const list = await allTags('', 200);
    for (const tag of list.slice(0, 10)) {
      expect(await ok<AlphaTag>(`/v2/alpha/tag/${tag.slug}`)).toEqual(tag);
    }
  });

  it('an unknown slug is a 404 with the general error body', async () => {
    const res = await get('/v2/alpha/tag/no-such-tag');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Not Found', message: expect.stringContaining('no-such-tag') });
  });
});

describe('GET /v2/alpha/tag/{slug}/subtags', () => {
  const top = () => truth.tags.filter((x) => x.parent_slug === null);

  /** The subtags the endpoint should answer: children by event count, then rank order. */
  function expectedSubtags(tag: TruthTag, status: 'open' | 'closed') {
    return tag.children
      .map((slug, rank) => ({ slug, rank, events: eventsOf(slug, status) }))
      .sort((a, b) => b.events.length - a.events.length || a.rank - b.rank);
  }

  it('for every top-level tag and status, each subtag counts the events of that tag and status (ground truth)', async () => {
    expect(top().length).toBe(5);
    for (const tag of top()) {
      for (const status of ['open', 'closed'] as const) {
        const body = await ok<SubtagsResponse>(`/v2/alpha/tag/${tag.t.slug}/subtags?status=${status}`);
        const want = expectedSubtags(tag, status);
        expect(body.tag).toEqual({ slug: tag.t.slug, label: tag.t.label });
        expect(body.status).toBe(status);
        expect(body.count).toBe(want.length);
        expect(body.subtags.map((s) => s.slug)).toEqual(want.map((w) => w.slug));
        body.subtags.forEach((s, i) => {
          const w = want[i]!;
          expect(s.label).toBe(truth.tagBySlug.get(w.slug)!.t.label);
          expect(s.event_count).toBe(w.events.length);
          expect(
            close(
              s.total_volume_usd,
              w.events.reduce((a, e) => a + e.volume, 0),
            ),
          ).toBe(true);
          expect(
            close(
              s.liquidity_usd,
              w.events.reduce((a, e) => a + e.liquidity, 0),
            ),
          ).toBe(true);
        });
      }
    }
  });

  it('each subtag count equals the events /v2/alpha/events/keyset pages out for that tag and status', async () => {
    let compared = 0;
    for (const tag of top()) {
      for (const status of ['open', 'closed'] as const) {
        const body = await ok<SubtagsResponse>(
          `/v2/alpha/tag/${tag.t.slug}/subtags?status=${status}&limit=100`,
        );
        for (const s of body.subtags) {
          let paged = 0;
          let cursor: string | null = null;
          do {
            const page: { events: unknown[]; pagination: { pagination_key: string | null } } = await ok(
              `/v2/alpha/events/keyset?tag=${s.slug}&status=${status}&limit=100${cursor ? `&pagination_key=${cursor}` : ''}`,
            );
            paged += page.events.length;
            cursor = page.pagination.pagination_key;
          } while (cursor);
          expect(s.event_count, `${s.slug} ${status}`).toBe(paged);
          compared += paged;
        }
      }
    }
    expect(compared).toBeGreaterThan(0);
  });

  it('status defaults to open', async () => {
    const tag = top()[0]!;
    const dflt = await ok<SubtagsResponse>(`/v2/alpha/tag/${tag.t.slug}/subtags`);
    expect(dflt).toEqual(await ok<SubtagsResponse>(`/v2/alpha/tag/${tag.t.slug}/subtags?status=open`));
    expect(dflt.status).toBe('open');
  });

  it('status: an unknown status is a 422', async () => {
    const res = await get(`/v2/alpha/tag/${top()[0]!.t.slug}/subtags?status=resolved`);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(['query', 'status']);
  });

  it('limit: 1 to 100 (default 30, 422 outside) keeps the first subtags', async () => {
    const tag = top().find((x) => x.children.length >= 3)!;
    const all = await ok<SubtagsResponse>(`/v2/alpha/tag/${tag.t.slug}/subtags?limit=100`);
    const two = await ok<SubtagsResponse>(`/v2/alpha/tag/${tag.t.slug}/subtags?limit=2`);
    expect(two.subtags).toEqual(all.subtags.slice(0, 2));
    expect(two.count).toBe(2);
    for (const limit of ['0', '101']) {
      const res = await get(`/v2/alpha/tag/${tag.t.slug}/subtags?limit=${limit}`);
      expect(res.statusCode, limit).toBe(422);
    }
  });

  it('a tag below the top lists its own children; a leaf none', async () => {
    const mid = truth.tags.find((x) => x.parent_slug !== null && x.children.length > 0)!;
    const body = await ok<SubtagsResponse>(`/v2/alpha/tag/${mid.t.slug}/subtags?status=closed`);
    expect(body.subtags.map((s) => s.slug)).toEqual(expectedSubtags(mid, 'closed').map((w) => w.slug));
    const leaf = truth.tags.find((x) => x.children.length === 0)!;
    expect(await ok<SubtagsResponse>(`/v2/alpha/tag/${leaf.t.slug}/subtags`)).toEqual({
      tag: { slug: leaf.t.slug, label: leaf.t.label },
      status: 'open',
      subtags: [],
      count: 0,
    });
  });

  it('an unknown slug is a 404', async () => {
    const res = await get('/v2/alpha/tag/no-such-tag/subtags');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Not Found', message: expect.stringContaining('no-such-tag') });
  });
});

describe('GET /v2/alpha/categories', () => {
  it('serves every category with its events rolled up, by volume then slug (ground truth)', async () => {
    const { categories } = await ok<{ categories: AlphaCategory[] }>('/v2/alpha/categories');
    const want = [...truth.categories].sort(
      (a, b) => b.total_volume_usd - a.total_volume_usd || (a.slug < b.slug ? -1 : 1),
    );
    expect(categories.map((c) => c.category)).toEqual(want.map((c) => c.category));
    categories.forEach((c, i) => {
      const w = want[i]!;
      expect(c.slug).toBe(w.slug);
      expect(c.slug).toBe(searchWords(c.category).join('-'));
      expectRollup(c, w);
    });
  });
});
