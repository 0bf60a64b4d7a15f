import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCES } from '../api/resources/index.ts';
import { searchWords } from '../core/search-words.ts';
import type { MarketsSearchResponse, SearchMarket } from '../schemas/api/markets-search.ts';
import { SEARCH_CONTRACTS, type SearchVenue } from '../schemas/venues/index.ts';
import { type ApiTestContext, createApiTestContext } from './api-helpers.ts';

/** The venues searched, alphabetically (the answer's order). */
const SEARCH_VENUES: readonly SearchVenue[] = SEARCH_CONTRACTS.map((c) => c.code);

let t: ApiTestContext;
let key: string;

/** A seeded market of any venue, as the search should serve it. */
interface Seeded {
  venue: SearchVenue;
  /** The order's tie-break key as the venue's SQL sees it (a string). */
  key: string;
  title: string;
  status: 'open' | 'closed' | 'resolved';
  volume: number;
  served: SearchMarket;
}

const seeded: Seeded[] = [];
const T0 = Date.UTC(2026, 9, 1);
const chMs = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
const canonical = (n: number) =>
  `pmc_${n
    .toString(32)
    .replace(/[0189]/g, 'a')
    .padStart(12, 'b')}`;

const SUBJECTS = [
  'Bitcoin',
  'Ethereum',
  'Boston Celtics',
  'Lakers',
  'Fed',
  'Inflation',
  'Arsenal',
  'Taylor Swift',
];
const VERBS = ['reach', 'win', 'cut rates', 'beat', 'announce', 'stay above', 'release'];
const OBJECTS = ['100k', '$5,000', 'the title', 'in March', 'by December', 'the Lakers', 'an album'];

/** Deterministic pseudo-random in [0, 1). */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function title(r: () => number): string {
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
  return `Will ${pick(SUBJECTS)} ${pick(VERBS)} ${pick(OBJECTS)}?`;
}

async function get(url: string) {
  return t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
}

async function search(params: string): Promise<MarketsSearchResponse> {
  const res = await get(`/v2/markets/search?${params}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as MarketsSearchResponse;
}

const relevance = (titleText: string, q: string) => {
  const w = searchWords(titleText);
  const qw = searchWords(q);
  return qw.filter((x) => w.includes(x)).length * 2 + (w.join(' ').startsWith(qw.join(' ')) ? 1 : 0);
};
const matches = (titleText: string, q: string) => {
  const w = searchWords(titleText);
  return searchWords(q).every((x) => w.some((y) => y.startsWith(x)));
};

/** The truth: each venue's matches by relevance, volume, key; round-robin in alphabetical venue order. */
function expected(
  q: string,
  status: 'open' | 'closed',
  limit: number,
  venues: readonly SearchVenue[] = SEARCH_VENUES,
): SearchMarket[] {
  const lists = [...venues].sort().map((v) =>
    seeded
      .filter(
        (s) =>
          s.venue === v &&
          (status === 'open' ? s.status === 'open' : s.status !== 'open') &&
          matches(s.title, q),
      )
      .sort(
        (a, b) =>
          relevance(b.title, q) - relevance(a.title, q) ||
          b.volume - a.volume ||
          (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
      )
      .slice(0, limit)
      .map((s) => s.served),
  );
  const out: SearchMarket[] = [];
  for (let i = 0; out.length < limit && lists.some((l) => i < l.length); i++) {
    for (const l of lists) if (i < l.length && out.length < limit) out.push(l[i]!);
  }
  return out;
}

const STATUSES = ['open', 'open', 'closed', 'resolved'] as const;

beforeAll(async () => {
  t = await createApiTestContext('api_markets_search');
  key = await t.key('enterprise', 100_000);
  const ch = t.deps.clickhouse;
  const r = rng(37);
  const observed = chMs(T0);
  const canon: object[] = [];
  const alpha: object[] = [];
  const venueRows: Record<string, object[]> = { beta: [], gamma: [], delta: [], epsilon: [] };
  let n = 0;
  for (const venue of SEARCH_VENUES) {
    for (let i = 0; i < 120; i++) {
      n++;
      const text = title(r);
      const status = STATUSES[Math.floor(r() * STATUSES.length)]!;
      // Some volumes repeat (ties broken by key), some prices and end times are unknown.
      const volume = i % 10 === 0 ? 5000 : Math.round(r() * 1_000_000) / 100;
      const price = i % 7 === 0 ? null : Math.round(r() * 100) / 100;
      const endMs = i % 5 === 0 ? null : T0 + i * 3_600_000;
      const yesId = i % 6 === 0 ? null : canonical(n);
      const served: SearchMarket = { venue, title: text, status: status === 'open' ? 'open' : 'closed' };
      if (price !== null) served.price = price;
      served.volume = volume;
      const common = {
        title: text,
        words: searchWords(text),
        status,
        prices: [price, price === null ? null : Math.round((1 - price) * 100) / 100],
        volume_usd: volume,
        end_time: endMs === null ? null : chMs(endMs),
        outcomes: ['Yes', 'No'],
        observed_at: observed,
      };
      let marketKey: string;
      if (venue === 'alpha') {
        marketKey = String(500_000 + i);
        const conditionId = `0x${n.toString(16).padStart(64, '0')}`;
        served.market_slug = `alpha-market-${i}`;
        served.condition_id = conditionId;
        alpha.push({
          market_id: marketKey,
          condition_id: conditionId,
          slug: served.market_slug,
          event_id: String(i % 9),
          title: text,
          words: searchWords(text),
          status,
          canonical_ids: [yesId ?? '', canonical(n + 100_000)],
          price,
          volume,
          end_date: endMs === null ? null : chMs(endMs),
        });
      } else if (venue === 'beta') {
        marketKey = `KXTEST-${i.toString().padStart(3, '0')}`;
        served.market_id = marketKey;
        venueRows.beta!.push({ ...common, ticker: marketKey });
      } else if (venue === 'gamma') {
        marketKey = `gamma-market-${i}`;
        served.market_slug = marketKey;
        venueRows.gamma!.push({ ...common, slug: marketKey });
      } else if (venue === 'delta') {
        marketKey = String(7000 + i * 13);
        served.market_id = marketKey;
        venueRows.delta!.push({ ...common, market_id: Number(marketKey) });
      } else {
        marketKey = String(90_000 + i);
        served.market_slug = `epsilon-market-${i}`;
        venueRows.epsilon!.push({ ...common, market_id: Number(marketKey), market_slug: served.market_slug });
      }
      if (yesId !== null) served.canonical_id = yesId;
      if (endMs !== null) served.end_time = new Date(endMs).toISOString();
      if (venue !== 'alpha') {
        for (const [index, id] of [
          [0, yesId],
          [1, canonical(n + 100_000)],
        ] as const) {
          if (id === null) continue;
          canon.push({
            venue,
            market: marketKey,
            outcome_index: index,
            token_id: '',
            key: `k${n}:${index}`,
            id,
            assigned_at: observed,
          });
        }
      }
      seeded.push({ venue, key: marketKey, title: text, status, volume, served });
    }
  }
  await ch.insert('test.seed', 'alpha_market_list', alpha);
  for (const [venue, rows] of Object.entries(venueRows))
    await ch.insert('test.seed', `${venue}_markets`, rows);
  await ch.insert('test.seed', 'canonical_outcomes', canon);
}, 120_000);
afterAll(async () => t?.close());

describe('GET /v2/markets/search', () => {
  it('interleaves each venue’s matches round-robin, each venue by relevance then volume (ground truth)', async () => {
    let seen = 0;
    for (const q of ['bitc', 'will boston', 'Lakers', 'cut rates', 'reach 100k', 'swift album', 'ethereum']) {
      for (const status of ['open', 'closed'] as const) {
        for (const limit of [1, 7, 20, 100]) {
          const body = await search(`q=${encodeURIComponent(q)}&status=${status}&limit=${limit}`);
          const want = expected(q, status, limit);
          expect(body.markets, `${q} ${status} ${limit}`).toEqual(want);
          expect(body.count).toBe(want.length);
          expect(body.query).toBe(q);
          expect(body.venues_searched).toEqual(['alpha', 'beta', 'delta', 'epsilon', 'gamma']);
          expect(body.venues_failed).toEqual([]);
          seen += want.length;
        }
      }
    }
    expect(seen).toBeGreaterThan(500);
    // The first five of a broad query come from the five venues, one each, in alphabetical order.
    const first = (await search('q=will&limit=5')).markets.map((m) => m.venue);
    expect(first).toEqual(['alpha', 'beta', 'delta', 'epsilon', 'gamma']);
  });

  it('defaults to status open and 20 results', async () => {
    const body = await search('q=will');
    expect(body.markets).toEqual(expected('will', 'open', 20));
    expect(body.count).toBe(20);
  });

  it('omits fields without a value; ids by venue', async () => {
    const body = await search('q=will&limit=100&status=closed');
    const rows = [...body.markets, ...(await search('q=will&limit=100')).markets];
    expect(rows.some((m) => !('price' in m))).toBe(true);
    expect(rows.some((m) => !('end_time' in m))).toBe(true);
    expect(rows.some((m) => !('canonical_id' in m))).toBe(true);
    for (const m of rows) {
      for (const v of Object.values(m)) expect(v).not.toBeNull();
      expect('condition_id' in m).toBe(m.venue === 'alpha');
      expect('market_id' in m).toBe(m.venue === 'beta' || m.venue === 'delta');
      expect('market_slug' in m).toBe(m.venue === 'alpha' || m.venue === 'gamma' || m.venue === 'epsilon');
      if (m.canonical_id !== undefined) expect(m.canonical_id).toMatch(/^pmc_[a-z2-7]{12}$/);
    }
  });

  it('searches the venues named, whatever their order, case or repetition', async () => {
    const a = await search('q=will&venue=gamma,alpha&limit=30');
    const b = await search('q=will&venue=ALPHA,%20gamma,gamma&limit=30');
    expect(a).toEqual(b);
    expect(a.venues_searched).toEqual(['alpha', 'gamma']);
    expect(a.markets).toEqual(expected('will', 'open', 30, ['alpha', 'gamma']));
    expect(new Set(a.markets.map((m) => m.venue))).toEqual(new Set(['alpha', 'gamma']));
    const one = await search('q=will&venue=delta&limit=100');
    expect(one.markets).toEqual(expected('will', 'open', 100, ['delta']));
  });

  it('answers 422 naming the field for a 2- or 201-character q, limit 0 or 101, an unknown venue, a bad status', async () => {
    for (const [params, field] of [
      ['q=ab', 'q'],
      [`q=${'a'.repeat(201)}`, 'q'],
      ['', 'q'],
      ['q=will&limit=0', 'limit'],
      ['q=will&limit=101', 'limit'],
      ['q=bitcoin&limit=1e309', 'limit'],
      ['q=bitcoin&limit=Infinity', 'limit'],
      ['q=will&venue=alpha,zeta', 'venue'],
      ['q=will&venue=,', 'venue'],
      ['q=will&status=resolved', 'status'],
    ] as const) {
      const res = await get(`/v2/markets/search?${params}`);
      expect(res.statusCode, params).toBe(422);
      expect(res.json().detail[0].loc).toEqual(['query', field]);
    }
    // 200 characters are accepted; a q without a letter or digit is a 400 naming q.
    expect((await get(`/v2/markets/search?q=${'a'.repeat(200)}`)).statusCode).toBe(200);
    const blank = await get('/v2/markets/search?q=---');
    expect(blank.statusCode).toBe(400);
    expect(blank.json().message).toMatch(/q/);
  });

  it('is metered: any tier, counted toward the monthly quota', () => {
    expect(RESOURCES.find((r) => r.path === '/v2/markets/search')?.access).toEqual({
      kind: 'keyed',
      minTier: 'free',
      metered: true,
    });
  });

  // Last: drops a table.
  it('a venue that cannot be read: the others answer and venues_failed names it; every venue failing is a 500', async () => {
    await t.deps.clickhouse.command('test.drop', 'DROP TABLE gamma_markets');
    const body = await search('q=will&limit=100');
    expect(body.venues_searched).toEqual(['alpha', 'beta', 'delta', 'epsilon', 'gamma']);
    expect(body.venues_failed).toEqual(['gamma']);
    expect(body.markets).toEqual(expected('will', 'open', 100, ['alpha', 'beta', 'delta', 'epsilon']));
    expect(body.markets.length).toBe(100);
    expect(body.markets.some((m) => m.venue === 'gamma')).toBe(false);
    // Nothing could be read: not an empty 200 but the server fault, with the general body.
    for (const params of ['q=will&venue=gamma', 'q=bitcoin&venue=gamma,gamma&limit=5']) {
      const res = await get(`/v2/markets/search?${params}`);
      expect(res.statusCode, params).toBe(500);
      expect(res.json()).toEqual({
        error: 'Internal Server Error',
        message: expect.stringMatching(/request id/),
      });
    }
    // The venues that can be read still answer alone.
    const alpha = await search('q=will&venue=alpha,delta&limit=10');
    expect(alpha.venues_failed).toEqual([]);
    expect(alpha.markets).toEqual(expected('will', 'open', 10, ['alpha', 'delta']));
  });
});
