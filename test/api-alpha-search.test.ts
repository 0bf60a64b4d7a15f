import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAlphaCatalogLists } from '../analytics/catalog/build.ts';
import { searchWords } from '../core/search-words.ts';
import type { SearchResponse } from '../schemas/api/alpha-search.ts';
import { writeSyntheticCatalog } from '../sim/catalog-tables.ts';
import { type ApiTestContext, createApiTestContext } from './api-helpers.ts';
import { catalogTruth, matches, ranked, relevance, type Truth } from './support/alpha-catalog-truth.ts';

let t: ApiTestContext;
let key: string;
let truth: Truth;
const NOW = Date.UTC(2026, 5, 1);

async function get(url: string) {
  return t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
}

async function search(params: string): Promise<SearchResponse> {
  const res = await get(`/v2/alpha/search?${params}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as SearchResponse;
}

/** The ground truth of a search: every match of each type in rank order. */
function expected(q: string, status: 'open' | 'closed') {
  const marketStatuses = status === 'open' ? ['open'] : ['closed', 'resolved'];
  const markets = ranked(
    truth.markets.filter((x) => marketStatuses.includes(x.status)),
    q,
    (x) => ({ title: x.m.question, volume: x.m.volumeUsd, id: x.m.id }),
  );
  const events = ranked(
    truth.events.filter((x) => x.status === status),
    q,
    (x) => ({ title: x.e.title, volume: x.volume, id: x.e.id }),
  );
  const tags = ranked(truth.tags, q, (x) => ({ title: x.t.label, volume: x.total_volume_usd, id: x.t.id }));
  return { markets, events, tags };
}

beforeAll(async () => {
  t = await createApiTestContext('api_alpha_search');
  key = await t.key('pro');
  const cat = await writeSyntheticCatalog(t.deps.clickhouse, { seed: 'search', events: 300, now: NOW });
  await buildAlphaCatalogLists(t.deps, { now: NOW });
  truth = catalogTruth(cat);
}, 120_000);
afterAll(async () => t?.close());

describe('GET /v2/alpha/search', () => {
  it('finds markets, events and tags by word prefix, ranked, with the total matches per type (ground truth)', async () => {
    for (const q of ['bitc', 'the fed', 'Will Arsenal', 'nba', 'raise rates', 'futures']) {
      for (const status of ['open', 'closed'] as const) {
        const body = await search(`q=${encodeURIComponent(q)}&status=${status}&limit_per_type=50`);
        const want = expected(q, status);
        expect(body.query).toBe(q);
        expect(body.counts, `${q} ${status}`).toEqual({
          markets: want.markets.length,
          events: want.events.length,
          tags: want.tags.length,
        });
        expect(body.markets.map((m) => m.market_id)).toEqual(want.markets.slice(0, 50).map((x) => x.m.id));
        expect(body.events.map((e) => e.id)).toEqual(want.events.slice(0, 50).map((x) => x.e.id));
        expect(body.tags.map((x) => x.id)).toEqual(want.tags.slice(0, 50).map((x) => x.t.id));
      }
    }
    // The queries above find rows of every type.
    const some = expected('bitc', 'open');
    expect(some.markets.length).toBeGreaterThan(10);
    expect(some.events.length).toBeGreaterThan(10);
    expect(expected('futures', 'open').tags.length).toBeGreaterThan(0);
  });

  it('a word prefix matches: "bitc" finds titles with "Bitcoin", and nothing else', async () => {
    const body = await search('q=bitc&limit_per_type=50');
    expect(body.markets.length).toBeGreaterThan(0);
    for (const m of body.markets) expect(searchWords(m.title).some((w) => w.startsWith('bitc'))).toBe(true);
    for (const e of body.events) expect(searchWords(e.title).some((w) => w.startsWith('bitc'))).toBe(true);
    // "itcoin" is inside "bitcoin" but begins no word.
    expect((await search('q=itcoin')).counts).toEqual({ markets: 0, events: 0, tags: 0 });
  });

  it('requires every word: "bitcoin reach" finds fewer than "bitcoin", each holding both', async () => {
    const both = await search('q=bitcoin%20reach&limit_per_type=50');
    const one = await search('q=bitcoin&limit_per_type=50');
    expect(both.counts.markets).toBeGreaterThan(0);
    expect(both.counts.markets).toBeLessThan(one.counts.markets);
    for (const m of both.markets) {
      expect(matches(m.title, 'bitcoin')).toBe(true);
      expect(matches(m.title, 'reach')).toBe(true);
    }
    // Word order does not matter.
    expect((await search('q=reach%20bitcoin&limit_per_type=50')).counts).toEqual(both.counts);
  });

  it('ranks titles with the exact word above titles where it only begins a word', async () => {
    // Event 100's title ends "... 100?": the word "100" whole; "100k" titles hold it only as a prefix.
    const e100 = truth.events.find((x) => x.e.id === '10100')!;
    const body = await search(`q=100&types=events,markets&status=${e100.status}&limit_per_type=50`);
    expect(body.events[0]!.id).toBe('10100');
    const ranks = body.events.map((e) => relevance(e.title, '100'));
    expect(ranks[0]).toBe(2);
    expect(ranks.slice(1).every((r) => r === 0)).toBe(true);
    expect(body.events.length).toBeGreaterThan(1);
    // Its markets come first among the markets, then the others by volume.
    const mine = body.markets.filter((m) => m.event_id === '10100').length;
    expect(mine).toBe(e100.markets.filter((x) => (e100.status === 'open') === (x.status === 'open')).length);
    expect(body.markets.slice(0, mine).every((m) => m.event_id === '10100')).toBe(true);
    const rest = body.markets.slice(mine).map((m) => m.total_volume_usd);
    expect(rest).toEqual([...rest].sort((a, b) => b - a));
  });

  it('types: only the listed types are searched; the others are [] with count 0', async () => {
    const body = await search('q=nba&types=tags');
    expect(body.markets).toEqual([]);
    expect(body.events).toEqual([]);
    expect(body.counts.markets).toBe(0);
    expect(body.counts.events).toBe(0);
    expect(body.counts.tags).toBeGreaterThan(0);
    const two = await search('q=bitcoin&types=EVENTS,%20markets,events');
    expect(two.tags).toEqual([]);
    expect(two.counts.tags).toBe(0);
    expect(two.counts.events).toBeGreaterThan(0);
    expect(two.counts.markets).toBeGreaterThan(0);
  });

  it('types: an unknown type is a 400 naming it', async () => {
    const res = await get('/v2/alpha/search?q=bitcoin&types=markets,wallets');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Bad Request', message: expect.stringContaining('"wallets"') });
    expect((await get('/v2/alpha/search?q=bitcoin&types=,')).statusCode).toBe(400);
  });

  it('status defaults to open; closed markets include resolved ones', async () => {
    const dflt = await search('q=will&limit_per_type=50');
    expect(dflt).toEqual(await search('q=will&status=open&limit_per_type=50'));
    expect(dflt.markets.every((m) => m.status === 'open')).toBe(true);
    expect(dflt.events.every((e) => e.status === 'open')).toBe(true);
    const closed = await search('q=will&status=closed&limit_per_type=50');
    expect(new Set(closed.markets.map((m) => m.status))).toEqual(new Set(['closed', 'resolved']));
    expect(closed.events.every((e) => e.status === 'closed')).toBe(true);
    expect(closed.counts.markets).toBe(truth.markets.filter((x) => x.status !== 'open').length);
    expect(closed.counts.events).toBe(truth.events.filter((x) => x.status === 'closed').length);
    // Tags have no status.
    expect(closed.counts.tags).toBe(dflt.counts.tags);
    expect((await get('/v2/alpha/search?q=will&status=resolved')).statusCode).toBe(422);
  });

  it('limit_per_type: 1 to 50, default 10; counts stay the total matches', async () => {
    const dflt = await search('q=will');
    expect(dflt.markets.length).toBe(10);
    expect(dflt.events.length).toBe(10);
    const one = await search('q=will&limit_per_type=1');
    expect(one.markets).toEqual(dflt.markets.slice(0, 1));
    expect(one.events).toEqual(dflt.events.slice(0, 1));
    expect(one.counts).toEqual(dflt.counts);
    expect(one.counts.markets).toBe(truth.markets.filter((x) => x.status === 'open').length);
    for (const n of ['0', '51']) {
      const res = await get(`/v2/alpha/search?q=will&limit_per_type=${n}`);
      expect(res.statusCode, n).toBe(422);
      expect(res.json().detail[0].loc).toEqual(['query', 'limit_per_type']);
    }
  });

  it('q: required, 3 to 100 characters (422), with a letter or digit (400)', async () => {
    expect((await get('/v2/alpha/search')).statusCode).toBe(422);
    expect((await get('/v2/alpha/search?q=ab')).statusCode).toBe(422);
    expect((await get(`/v2/alpha/search?q=${'a'.repeat(101)}`)).statusCode).toBe(422);
    expect((await get(`/v2/alpha/search?q=${'a'.repeat(100)}`)).statusCode).toBe(200);
    const res = await get('/v2/alpha/search?q=%2B%2B%2B');
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/^q /);
  });

  it('answers whole resources: markets as the markets list, events without markets, tags with rollups', async () => {
    const body = await search('q=bitcoin&limit_per_type=5');
    const m = body.markets[0]!;
    const want = truth.markets.find((x) => x.m.id === m.market_id)!;
    expect(m).toMatchObject({
      condition_id: want.m.conditionId,
      title: want.m.question,
      status: want.status,
      total_volume_usd: want.m.volumeUsd,
    });
    expect(m.outcomes.map((o) => o.label)).toEqual(['Yes', 'No']);
    for (const e of body.events) expect(e.markets).toBeNull();
    const e = truth.events.find((x) => x.e.id === body.events[0]!.id)!;
    expect(body.events[0]).toMatchObject({ title: e.e.title, market_count: e.markets.length });
    const tags = await search('q=nba&types=tags');
    const nba = tags.tags.find((x) => x.slug === 'nba')!;
    expect(nba.event_count).toBe(truth.tagBySlug.get('nba')!.event_count);
  });
});
