/**
 * `GET /v2/alpha/markets` and `/v2/alpha/markets/keyset` against a synthetic catalog (sim/catalog-tables.ts)
 * written into the source tables and built into the lists by the catalog build: every filter, bound, sort
 * and 400 rule. Expected sets and orders are computed from the synthetic catalog (the ground truth), never
 * from the table under test.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildAlphaCatalogLists } from '../analytics/catalog/build.ts';
import { CANONICAL_ID_PATTERN, questionOutcomeId } from '../core/canonical-id.ts';
import { searchWords } from '../core/search-words.ts';
import type { AlphaMarket } from '../schemas/api/alpha-catalog.ts';
import { MARKET_SORTS, type MarketSort } from '../schemas/api/alpha-markets.ts';
import { type SyntheticCatalog, writeSyntheticCatalog } from '../sim/catalog-tables.ts';
import { type ApiTestContext, createApiTestContext, requestReads } from './api-helpers.ts';
import { matchesWords, rankWords } from './support/alpha-catalog-truth.ts';

/** Whole seconds, so end dates (now ± whole days) are whole seconds too. */
const NOW = Date.UTC(2026, 9, 15, 12, 0, 0);

let t: ApiTestContext;
let key: string;
let cat: SyntheticCatalog;
let truth: Truth[];
let byId: Map<string, Truth>;

interface Truth {
  id: string;
  conditionId: string;
  questionId: string;
  slug: string;
  eventSlug: string;
  title: string;
  words: string[];
  tags: string[];
  status: 'open' | 'closed' | 'resolved';
  price: number | null;
  volume: number;
  openInterest: number;
  rolling: Record<string, number>;
  createdAt: number;
  endDate: number | null;
  tokenIds: [string, string];
  canonicalIds: (string | null)[];
}

interface Page {
  markets: AlphaMarket[];
  pagination: { limit: number; count: number; pagination_key: string | null; has_more: boolean };
}

function truthOf(c: SyntheticCatalog): Truth[] {
  const events = new Map(c.events.map((e) => [e.id, e]));
  const tagSlugs = new Map(c.tags.map((x) => [x.id, x.slug]));
  return c.markets.map((m) => {
    const e = events.get(m.eventId)!;
    const payoutSum = m.payout ? m.payout[0] + m.payout[1] : 0;
    return {
      id: m.id,
      conditionId: m.conditionId,
      questionId: m.questionId,
      slug: m.slug,
      eventSlug: e.slug,
      title: m.question,
      words: searchWords(m.question),
      tags: e.tagIds.map((id) => tagSlugs.get(id)!),
      status: m.payout ? 'resolved' : m.closed ? 'closed' : 'open',
      price: m.payout ? m.payout[0] / payoutSum : m.mids[0],
      volume: m.volumeUsd,
      openInterest: m.openInterestUsd,
      rolling: { ...m.rolling },
      createdAt: m.createdAt,
      endDate: m.endDate,
      tokenIds: m.tokenIds,
      canonicalIds: m.outcomes.map((label) =>
        m.endDate === null
          ? null
          : questionOutcomeId({ question: m.question, resolutionDate: m.endDate, outcome: label }),
      ),
    };
  });
}

// ---- expected orders -----------------------------------------------------------------------------------

const cmpId = (a: Truth, b: Truth) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const descBy = (f: (m: Truth) => number) => (a: Truth, b: Truth) => f(b) - f(a) || cmpId(a, b);
/** Rows without a value last in either direction. */
const nullsLast =
  (f: (m: Truth) => number | null, dir: 1 | -1) =>
  (a: Truth, b: Truth): number => {
    const x = f(a);
    const y = f(b);
    if (x === null || y === null) return (x === null ? 1 : 0) - (y === null ? 1 : 0) || cmpId(a, b);
    return dir * (x - y) || cmpId(a, b);
  };

/** The search rank of catalog-search.ts, computed on the title's words. */
const rank = (m: Truth, q: string[]): number => rankWords(m.words, q);

function comparator(sort: MarketSort, search?: string[]): (a: Truth, b: Truth) => number {
  const r = (k: string) => descBy((m) => m.rolling[k]!);
  switch (sort) {
    case 'volume':
      return descBy((m) => m.volume);
    case 'open_interest':
      return descBy((m) => m.openInterest);
    case 'price_desc':
      return nullsLast((m) => m.price, -1);
    case 'price_asc':
      return nullsLast((m) => m.price, 1);
    case 'expiration':
      return nullsLast((m) => m.endDate, -1);
    case 'expiration_asc':
      return nullsLast((m) => m.endDate, 1);
    case 'created':
      return nullsLast((m) => m.createdAt, -1);
    case 'created_asc':
      return nullsLast((m) => m.createdAt, 1);
    case 'relevance': {
      const byVolume = comparator('volume');
      return search ? (a, b) => rank(b, search) - rank(a, search) || byVolume(a, b) : byVolume;
    }
    default:
      return r(sort);
  }
}

const ids = (rows: { id?: string; market_id?: string }[]) => rows.map((m) => m.market_id ?? m.id);
const expected = (pred: (m: Truth) => boolean, sort: MarketSort = 'volume', search?: string[]) =>
  ids(truth.filter(pred).sort(comparator(sort, search)));

// ---- requests ------------------------------------------------------------------------------------------

async function get(url: string) {
  return t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
}

async function page(url: string): Promise<Page> {
  const res = await get(url);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Page;
}

/** `base` + `params`, every page of it (`limit` per page); checks each page's pagination object. */
async function all(params: string, limit = 200, base = '/v2/alpha/markets/keyset'): Promise<AlphaMarket[]> {
  const out: AlphaMarket[] = [];
  let cursor: string | null = null;
  for (let n = 0; n < 1000; n++) {
    const sep = params === '' ? '' : '&';
    const p = await page(
      `${base}?${params}${sep}limit=${limit}${cursor ? `&pagination_key=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(p.pagination.count).toBe(p.markets.length);
    expect(p.pagination.limit).toBe(limit);
    out.push(...p.markets);
    if (!p.pagination.has_more) {
      expect(p.pagination.pagination_key).toBeNull();
      expect(p.markets.length).toBeLessThanOrEqual(limit);
      return out;
    }
    expect(p.markets.length).toBe(limit);
    cursor = p.pagination.pagination_key;
    expect(cursor).not.toBeNull();
  }
  throw new Error('too many pages');
}

async function status(url: string, code: number): Promise<Record<string, unknown>> {
  const res = await get(url);
  expect(res.statusCode, res.body).toBe(code);
  return res.json() as Record<string, unknown>;
}

const q = (params: Record<string, string | number | (string | number)[]>) =>
  Object.entries(params)
    .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}=${encodeURIComponent(String(x))}`))
    .join('&');

beforeAll(async () => {
  t = await createApiTestContext('api_alpha_markets');
  key = await t.key('enterprise', 100_000);
  cat = await writeSyntheticCatalog(t.deps.clickhouse, { seed: 'api-alpha-markets', events: 300, now: NOW });
  await buildAlphaCatalogLists(t.deps, { now: NOW });
  truth = truthOf(cat);
  byId = new Map(truth.map((m) => [m.id, m]));
}, 300_000);
afterAll(async () => t?.close());

describe('GET /v2/alpha/markets', () => {
  it('answers a page of 20 markets by all-time volume, each as the catalog holds it', async () => {
    const p = await page('/v2/alpha/markets');
    expect(p.pagination).toMatchObject({ limit: 20, count: 20, has_more: true });
    expect(Object.keys(p).sort()).toEqual(['markets', 'pagination']);
    expect(ids(p.markets)).toEqual(expected(() => true).slice(0, 20));
    for (const m of p.markets) {
      const x = byId.get(m.market_id)!;
      expect(m).toMatchObject({
        condition_id: x.conditionId,
        question_id: x.questionId,
        market_slug: x.slug,
        title: x.title,
        status: x.status,
        event_slug: x.eventSlug,
        total_volume_usd: x.volume,
      });
      expect(m.outcomes.map((o) => o.token_id)).toEqual(x.tokenIds);
      expect(m.outcomes[0]!.price).toBe(x.price);
      expect(m.rolling_metrics).toMatchObject({
        volume_7d: x.rolling.volume_7d,
        trades_1d: x.rolling.trades_1d,
      });
    }
  });

  it('holds every market once; canonical ids are pmc_ + 12 base32, one per outcome, distinct', async () => {
    const every = await all('');
    expect(every.length).toBe(cat.markets.length);
    const seen = new Set<string>();
    for (const m of every) {
      const x = byId.get(m.market_id)!;
      expect(m.outcomes.map((o) => o.canonical_id)).toEqual(x.canonicalIds);
      for (const o of m.outcomes) {
        if (o.canonical_id === null) continue;
        expect(o.canonical_id).toMatch(CANONICAL_ID_PATTERN);
        expect(seen.has(o.canonical_id)).toBe(false);
        seen.add(o.canonical_id);
      }
    }
    expect(seen.size).toBeGreaterThan(cat.markets.length);
  });

  it('reads ClickHouse once per page, after a cursor and with filters too', async () => {
    const read = vi.spyOn(t.deps.clickhouse, 'read');
    try {
      // Page sizes no other test asks for: the response cache cannot answer.
      const first = await page(
        '/v2/alpha/markets/keyset?status=open&min_volume=100&tags=sports&sort=volume_7d&limit=17',
      );
      expect(requestReads(read.mock.calls)).toEqual(['api.alpha.markets']);
      read.mockClear();
      const k = encodeURIComponent(first.pagination.pagination_key!);
      await page(
        `/v2/alpha/markets?status=open&min_volume=100&tags=sports&sort=volume_7d&limit=19&pagination_key=${k}`,
      );
      expect(requestReads(read.mock.calls)).toEqual(['api.alpha.markets']);
    } finally {
      read.mockRestore();
    }
  });

  it('/markets/keyset is its own route beside /markets/{token_id}/volume and /{condition_id}/open_interest', async () => {
    const k = await page('/v2/alpha/markets/keyset?limit=3');
    expect(k.markets.length).toBe(3);
    const m = truth[0]!;
    const vol = await get(`/v2/alpha/markets/${m.tokenIds[0]}/volume`);
    expect(vol.statusCode, vol.body).toBe(200);
    expect(vol.json()).toHaveProperty('volume_over_time');
    const oi = await get(`/v2/alpha/markets/${m.conditionId}/open_interest`);
    expect(oi.statusCode, oi.body).toBe(200);
    expect(oi.json()).toHaveProperty('open_interest_over_time');
  });
});

describe('sorts', () => {
  for (const sort of MARKET_SORTS) {
    it(`sort=${sort}: pages hold every market exactly once, in order`, async () => {
      const every = await all(`sort=${sort}`, 150);
      expect(new Set(ids(every)).size).toBe(every.length);
      expect(ids(every)).toEqual(expected(() => true, sort));
    });
  }

  it('sort=relevance with search: search rank, then volume', async () => {
    // "will the": titles that begin "Will The ..." rank 5 (both words whole, and the title's start), those
    // with "the" later rank 4; "chi" only begins a word ("Chiefs"), so it adds no rank.
    for (const search of ['will the', 'the chi']) {
      const words = searchWords(search);
      const want = expected((m) => matches(m, words), 'relevance', words);
      expect(want.length).toBeGreaterThan(20);
      const every = await all(q({ search, sort: 'relevance' }), 50);
      expect(ids(every)).toEqual(want);
    }
    const words = searchWords('will the');
    const ranks = new Set(truth.filter((m) => matches(m, words)).map((m) => rank(m, words)));
    expect([...ranks].sort()).toEqual([4, 5]);
  });

  it('/markets pages (limit up to 100) the same order as /markets/keyset', async () => {
    const every = await all('sort=expiration', 100, '/v2/alpha/markets');
    expect(ids(every)).toEqual(expected(() => true, 'expiration'));
  });

  it('puts markets without a price or an end date last in both directions', async () => {
    expect(truth.some((m) => m.endDate === null)).toBe(true);
    for (const sort of ['expiration', 'expiration_asc'] as const) {
      const every = await all(`sort=${sort}`);
      const firstNull = every.findIndex((m) => m.end_time === null);
      expect(firstNull).toBeGreaterThan(0);
      expect(every.slice(firstNull).every((m) => m.end_time === null)).toBe(true);
    }
  });
});

/** The value at fraction `f` of the ascending values (one of them, so a bound hits it exactly). */
const quantile = (values: number[], f: number) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length * f)]!;

const matches = (m: Truth, words: string[]): boolean => matchesWords(m.words, words);

describe('filters', () => {
  /** The whole result of `params`, by volume, equals the truth's rows satisfying `pred`. */
  async function check(params: string, pred: (m: Truth) => boolean, minHits = 1) {
    const want = expected(pred);
    expect(want.length).toBeGreaterThanOrEqual(minHits);
    expect(want.length).toBeLessThan(truth.length);
    expect(ids(await all(params))).toEqual(want);
  }

  it('status=open', () => check('status=open', (m) => m.status === 'open', 100));
  it('status=closed matches closed and resolved markets', async () => {
    expect(truth.some((m) => m.status === 'resolved')).toBe(true);
    await check('status=closed', (m) => m.status !== 'open', 100);
  });
  it('status=resolved', () => check('status=resolved', (m) => m.status === 'resolved', 50));

  it('min_price is inclusive on the first outcome price (markets without one never match)', async () => {
    const v = truth.find((m) => m.status === 'open')!.price!;
    await check(`min_price=${v}`, (m) => m.price !== null && m.price >= v, 50);
  });
  it('max_price is inclusive', async () => {
    const v = truth.find((m) => m.status === 'open')!.price!;
    await check(`max_price=${v}`, (m) => m.price !== null && m.price <= v, 50);
  });
  it('min_price and max_price together; equal bounds allowed', async () => {
    await check('min_price=0.25&max_price=0.5', (m) => m.price !== null && m.price >= 0.25 && m.price <= 0.5);
    await check('min_price=1&max_price=1', (m) => m.price === 1, 10);
  });

  it('min_open_interest', async () => {
    const v = quantile(
      truth.map((m) => m.openInterest),
      0.8,
    );
    await check(`min_open_interest=${v}`, (m) => m.openInterest >= v, 10);
  });
  it('min_volume (all-time, inclusive)', async () => {
    const v = quantile(
      truth.map((m) => m.volume),
      0.7,
    );
    await check(`min_volume=${v}`, (m) => m.volume >= v, 10);
  });
  for (const w of ['1d', '7d', '30d'] as const) {
    it(`min_volume_${w}`, async () => {
      const v = 1_000;
      await check(`min_volume_${w}=${v}`, (m) => m.rolling[`volume_${w}`]! >= v, 10);
    });
    it(`min_trades_${w}`, async () => {
      const v = 20;
      await check(`min_trades_${w}=${v}`, (m) => m.rolling[`trades_${w}`]! >= v, 10);
    });
  }

  it('tags: any of the repeated slugs', async () => {
    const tags = ['nba', 'bitcoin-futures'];
    await check(q({ tags }), (m) => m.tags.some((x) => tags.includes(x)), 5);
  });
  it('event_slug: any of the repeated slugs', async () => {
    const slugs = [truth[3]!.eventSlug, truth[400]!.eventSlug];
    await check(q({ event_slug: slugs }), (m) => slugs.includes(m.eventSlug), 2);
  });
  it('search: every word begins a title word, in any order', async () => {
    const words = searchWords('bitc reach');
    await check(q({ search: 'bitc reach' }), (m) => matches(m, words), 2);
  });
  it('condition_id: any of them, case-insensitive', async () => {
    const want = [truth[5]!.conditionId, truth[900]!.conditionId];
    const asked = [want[0]!.toUpperCase().replace('0X', '0x'), want[1]!];
    await check(q({ condition_id: asked }), (m) => want.includes(m.conditionId), 2);
  });
  it('question_id', async () => {
    const want = [truth[6]!.questionId, truth[66]!.questionId];
    await check(q({ question_id: want }), (m) => want.includes(m.questionId), 2);
  });
  it('market_id', async () => {
    const want = [truth[8]!.id, truth[88]!.id, truth[888]!.id];
    await check(q({ market_id: want }), (m) => want.includes(m.id), 3);
  });
  it('market_slug', async () => {
    const want = [truth[9]!.slug, truth[99]!.slug];
    await check(q({ market_slug: want }), (m) => want.includes(m.slug), 2);
  });
  it('token_id matches either outcome', async () => {
    const want = [truth[10]!.tokenIds[0], truth[100]!.tokenIds[1]];
    await check(q({ token_id: want }), (m) => m.tokenIds.some((x) => want.includes(x)), 2);
  });
  it('canonical_id matches either outcome', async () => {
    const withIds = truth.filter((m) => m.canonicalIds[0] !== null);
    const want = [withIds[12]!.canonicalIds[0]!, withIds[120]!.canonicalIds[1]!];
    await check(
      q({ canonical_id: want }),
      (m) => m.canonicalIds.some((x) => x !== null && want.includes(x)),
      2,
    );
  });
  it('end_after: end strictly after (Unix seconds)', async () => {
    const s = truth.find((m) => m.endDate !== null && m.endDate > NOW)!.endDate! / 1000;
    await check(`end_after=${s}`, (m) => m.endDate !== null && m.endDate > s * 1000, 10);
  });
  it('end_before: end at or before (Unix seconds)', async () => {
    const s = truth.find((m) => m.endDate !== null && m.endDate > NOW)!.endDate! / 1000;
    await check(`end_before=${s}`, (m) => m.endDate !== null && m.endDate <= s * 1000, 10);
  });

  it('filters combine with AND, under a metric sort, paged', async () => {
    const params = q({ status: 'open', tags: ['sports', 'crypto'], min_volume_7d: 500, sort: 'trades_7d' });
    const want = expected(
      (m) =>
        m.status === 'open' &&
        m.tags.some((x) => x === 'sports' || x === 'crypto') &&
        m.rolling.volume_7d! >= 500,
      'trades_7d',
    );
    expect(want.length).toBeGreaterThan(10);
    expect(ids(await all(params, 10))).toEqual(want);
  });

  it('a list parameter given once is a list of one; 50 items are allowed', async () => {
    const one = truth[13]!.id;
    expect(ids((await page(`/v2/alpha/markets?market_id=${one}`)).markets)).toEqual([one]);
    const fifty = truth.slice(0, 50).map((m) => m.id);
    const p = await page(`/v2/alpha/markets/keyset?${q({ market_id: fifty })}&limit=200`);
    expect(ids(p.markets).sort()).toEqual([...fifty].sort());
  });
});

describe('validation (422)', () => {
  const cases: [string, string, string][] = [
    ['/v2/alpha/markets?limit=0', 'limit', 'greater_than_equal'],
    ['/v2/alpha/markets?limit=101', 'limit', 'less_than_equal'],
    ['/v2/alpha/markets/keyset?limit=201', 'limit', 'less_than_equal'],
    ['/v2/alpha/markets?min_price=1.01', 'min_price', 'less_than_equal'],
    ['/v2/alpha/markets?max_price=-0.1', 'max_price', 'greater_than_equal'],
    ['/v2/alpha/markets?min_volume=-1', 'min_volume', 'greater_than_equal'],
    ['/v2/alpha/markets?min_open_interest=-1', 'min_open_interest', 'greater_than_equal'],
    ['/v2/alpha/markets?min_trades_7d=1.5', 'min_trades_7d', 'type_error'],
    ['/v2/alpha/markets?status=pending', 'status', 'enum'],
    ['/v2/alpha/markets?sort=liquidity', 'sort', 'enum'],
    ['/v2/alpha/markets?search=ab', 'search', 'string_too_short'],
    ['/v2/alpha/markets?end_after=-5', 'end_after', 'greater_than_equal'],
    ['/v2/alpha/markets?end_before=soon', 'end_before', 'type_error'],
  ];
  for (const [url, param, type] of cases) {
    it(`${url} → 422 (${type})`, async () => {
      const body = await status(url, 422);
      expect(body.detail).toContainEqual(expect.objectContaining({ loc: ['query', param], type }));
    });
  }

  it('keyset accepts limit=200', async () => {
    expect((await page('/v2/alpha/markets/keyset?limit=200')).markets.length).toBe(200);
  });

  for (const param of [
    'tags',
    'event_slug',
    'condition_id',
    'question_id',
    'market_id',
    'market_slug',
    'token_id',
    'canonical_id',
  ]) {
    it(`${param} with 51 items → 422`, async () => {
      const items = Array.from({ length: 51 }, (_, i) =>
        param === 'condition_id' ? `0x${i.toString(16).padStart(64, '0')}` : `x${i}`,
      );
      const body = await status(`/v2/alpha/markets?${q({ [param]: items })}`, 422);
      expect(body.detail).toContainEqual(
        expect.objectContaining({ loc: ['query', param], type: 'too_long' }),
      );
    });
  }
});

describe('rules (400)', () => {
  it('offset other than 0 → 400; offset=0 is accepted', async () => {
    const body = await status('/v2/alpha/markets?offset=20', 400);
    expect(String(body.message)).toMatch(/offset/);
    await page('/v2/alpha/markets?offset=0');
  });

  it('min_price above max_price → 400 naming both', async () => {
    const body = await status('/v2/alpha/markets?min_price=0.6&max_price=0.4', 400);
    expect(String(body.message)).toMatch(/min_price.*max_price/);
  });

  it('a malformed condition_id → 400 naming the value', async () => {
    const good = truth[0]!.conditionId;
    const body = await status(`/v2/alpha/markets?${q({ condition_id: [good, '0x1234'] })}`, 400);
    expect(String(body.message)).toContain('condition_id');
    expect(String(body.message)).toContain('0x1234');
  });

  it('a search without letters or digits → 400', async () => {
    await status(`/v2/alpha/markets?${q({ search: '---' })}`, 400);
  });

  it('a cursor reused with other filters or another sort → 400; with the same ones it pages on', async () => {
    const first = await page('/v2/alpha/markets?status=open&sort=volume_7d&limit=5');
    const k = encodeURIComponent(first.pagination.pagination_key!);
    const other = await status(`/v2/alpha/markets?status=closed&sort=volume_7d&pagination_key=${k}`, 400);
    expect(String(other.message)).toMatch(/other filters or sort/);
    await status(`/v2/alpha/markets?status=open&sort=volume_30d&pagination_key=${k}`, 400);
    await status(`/v2/alpha/markets?status=open&sort=volume_7d&min_price=0.1&pagination_key=${k}`, 400);
    // The same filters written another way, and a new page size: the same list.
    const next = await page(
      `/v2/alpha/markets/keyset?sort=volume_7d&status=open&limit=7&pagination_key=${k}`,
    );
    const want = expected((m) => m.status === 'open', 'volume_7d');
    expect(ids(next.markets)).toEqual(want.slice(5, 12));
  });

  it('a forged pagination_key → 400', async () => {
    await status('/v2/alpha/markets?pagination_key=AAAAAAAAAAAAAAAAAAAAAAAAAAAA', 400);
  });
});
