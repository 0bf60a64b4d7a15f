/**
 * The venue market lists over what the ingestors stored from a small sim world's replicas: per venue, a
 * sync (the venue's own ingestor against its replica), then every market of the world's truth served
 * once across pages of `GET /v2/<venue>/markets` with its title, status, prices and volume, in the
 * default sort's order, and the status filter selecting the truth's open / closed-or-resolved markets.
 * The truth is computed from the world (test/support/<venue>-truth.ts), not from the tables. After the
 * canonical step (ingest/canonical/), each outcome serves the id `canonical_outcomes` holds for it, and the
 * `canonical_id` filter finds exactly the markets serving that id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANONICAL_ID_PATTERN } from '../core/canonical-id.ts';
import { assignCanonical } from '../ingest/canonical/index.ts';
import { createHttpClient } from '../ingest/http/client.ts';
import { runStream } from '../ingest/rest/runner.ts';
import { createBetaClient } from '../ingest/venues/beta/client.ts';
import { beta } from '../ingest/venues/beta/index.ts';
import { createDeltaClient } from '../ingest/venues/delta/client.ts';
import { delta } from '../ingest/venues/delta/index.ts';
import { createGammaClient } from '../ingest/venues/gamma/client.ts';
import { gamma } from '../ingest/venues/gamma/index.ts';
import { type Replicas, startReplicas } from '../sim/venues/index.ts';
import { type Catalog, generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState, type WorldState } from '../sim/world/state.ts';
import { type ApiTestContext, createApiTestContext } from './api-helpers.ts';
import { betaTruth } from './support/beta-truth.ts';
import { activatedTopics, deltaTruth } from './support/delta-truth.ts';
import { activeEvents, gammaTruth } from './support/gamma-truth.ts';

const START = Date.UTC(2026, 3, 1);
const HOUR = 3_600_000;

let catalog: Catalog;
let state: WorldState;
let replicas: Replicas;
let t: ApiTestContext;
let key: string;

type Item = Record<string, unknown>;

async function all(url: string): Promise<Item[]> {
  const out: Item[] = [];
  let cursor: string | null = null;
  for (let n = 0; n < 200; n++) {
    const sep = url.includes('?') ? '&' : '?';
    const res = await t.app.inject({
      method: 'GET',
      url: `${url}${sep}limit=7${cursor ? `&pagination_key=${encodeURIComponent(cursor)}` : ''}`,
      headers: { 'x-api-key': key },
    });
    expect(res.statusCode, res.body).toBe(200);
    const p = res.json() as { markets: Item[]; pagination: { has_more: boolean; pagination_key: string } };
    out.push(...p.markets);
    if (!p.pagination.has_more) return out;
    cursor = p.pagination.pagination_key;
  }
  throw new Error('too many pages');
}

const http = (url: string) =>
  createHttpClient({ baseUrl: url, timeoutMs: 5_000, baseDelayMs: 20, maxDelayMs: 100 });

/** Each outcome's id as canonical_outcomes holds it (market key → ids by outcome index). */
async function storedIds(venue: string): Promise<Map<string, string[]>> {
  const rows = await t.deps.clickhouse.query<{ market: string; outcome_index: number; id: string }>(
    'test.canonical',
    'SELECT market, outcome_index, id FROM canonical_outcomes FINAL WHERE venue = {venue:String}',
    { venue },
  );
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const ids = out.get(r.market) ?? [];
    ids[Number(r.outcome_index)] = r.id;
    out.set(r.market, ids);
  }
  return out;
}

/**
 * Every served outcome carries the stored id (`none` when it has none); filtering by an id shared with
 * a served market finds exactly the served markets carrying it.
 */
async function expectCanonical(venue: string, served: Item[], key: (m: Item) => string, none: '' | null) {
  const stored = await storedIds(venue);
  expect(stored.size).toBeGreaterThan(0);
  const carrying = new Map<string, Set<string>>();
  for (const m of served) {
    const ids = (m.outcomes as { canonical_id: string | null }[]).map((o) => o.canonical_id);
    const want = stored.get(key(m)) ?? [];
    expect(ids, key(m)).toEqual(ids.map((_, i) => want[i] ?? none));
    for (const id of ids) {
      if (id === null || id === '') continue;
      expect(id).toMatch(CANONICAL_ID_PATTERN);
      carrying.set(id, (carrying.get(id) ?? new Set()).add(key(m)));
    }
  }
  const picks = [...carrying.entries()].sort((a, b) => b[1].size - a[1].size).slice(0, 3);
  expect(picks.length).toBeGreaterThan(0);
  for (const [id, keys] of picks) {
    const found = await all(`/v2/${venue}/markets?canonical_id=${id}`);
    expect(found.map(key).sort(), id).toEqual([...keys].sort());
  }
}

const near = (a: unknown, b: number | null) =>
  b === null ? a === null : typeof a === 'number' && Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));

/** Served in descending `value`, ties by `key` ascending. */
function expectOrdered(items: Item[], value: (m: Item) => number, key: (m: Item) => string) {
  for (let i = 1; i < items.length; i++) {
    const [a, b] = [items[i - 1]!, items[i]!];
    const ok = value(a) > value(b) || (value(a) === value(b) && key(a) < key(b));
    expect(ok, `${key(a)} (${value(a)}) before ${key(b)} (${value(b)})`).toBe(true);
  }
}

beforeAll(async () => {
  catalog = generateCatalog({ seed: 'api-venue-markets', size: 'small', startTime: START });
  state = createWorldState(catalog, { alpha: 'self' });
  replicas = await startReplicas({ catalog, state });
  t = await createApiTestContext('api_venue_markets_sim');
  key = await t.key('enterprise', 100_000);
}, 120_000);

afterAll(async () => {
  await replicas?.close();
  await t?.close();
});

describe('GET /v2/gamma/markets over the gamma replica', () => {
  it('serves every market of the truth once, by volume, with its title, status, prices, volume and OI', async () => {
    const at = START + 3 * HOUR;
    state.tick(at);
    const events = activeEvents(catalog, state);
    await runStream(
      gamma,
      'markets',
      { ...t.deps, client: createGammaClient({ http: http(replicas.urls.gamma) }), now: () => at },
      { mode: 'poll' },
    );
    await assignCanonical(t.deps, 'gamma', { now: () => at });
    const truth = gammaTruth(catalog, state, events).markets;
    expect(truth.size).toBeGreaterThan(10);

    const served = await all('/v2/gamma/markets');
    const slugs = served.map((m) => String(m.market_slug));
    expect(new Set(slugs).size).toBe(slugs.length);
    expect([...slugs].sort()).toEqual([...truth.keys()].sort());
    expectOrdered(
      served,
      (m) => m.total_volume_usd as number,
      (m) => String(m.market_slug),
    );
    for (const m of served) {
      const x = truth.get(String(m.market_slug))!;
      expect(m.title).toBe(x.title);
      expect(m.status).toBe(x.status);
      expect(m.trade_type).toBe(x.trade_type);
      expect(m.condition_id).toBe(x.condition_id);
      expect(near(m.total_volume_usd, x.volume_usd), `${x.slug} volume`).toBe(true);
      expect(near(m.open_interest_usd, x.open_interest_usd), `${x.slug} open interest`).toBe(true);
      const outcomes = m.outcomes as { label: string; token_id: string; price: number | null }[];
      expect(outcomes.map((o) => o.label)).toEqual(x.outcomes);
      expect(outcomes.map((o) => o.token_id)).toEqual(x.token_ids);
      outcomes.forEach((o, i) => {
        expect(Math.abs((o.price ?? -1) - x.prices[i]!), `${x.slug} price ${i}`).toBeLessThanOrEqual(
          0.0000501,
        );
      });
    }

    const open = await all('/v2/gamma/markets?status=open');
    expect(open.map((m) => String(m.market_slug)).sort()).toEqual(
      [...truth.values()]
        .filter((x) => x.status === 'open')
        .map((x) => x.slug)
        .sort(),
    );
    const clob = await all('/v2/gamma/markets?trade_type=clob&sort=created');
    expect(clob.map((m) => String(m.market_slug)).sort()).toEqual(
      [...truth.values()]
        .filter((x) => x.trade_type === 'clob')
        .map((x) => x.slug)
        .sort(),
    );
    expect(clob.every((m) => m.open_interest_usd === null)).toBe(true);
    await expectCanonical('gamma', served, (m) => String(m.market_slug), '');
  });
});

describe('GET /v2/beta/markets over the beta replica', () => {
  it('serves every market of the truth once, by dollar volume, with its title, status, prices and volume', async () => {
    const at = START + 3 * HOUR;
    state.tick(at);
    await runStream(
      beta,
      'markets',
      { ...t.deps, client: createBetaClient({ http: http(replicas.urls.beta) }), now: () => at },
      { mode: 'poll' },
    );
    await assignCanonical(t.deps, 'beta', { now: () => at });
    const truth = betaTruth(catalog, state).markets;
    expect(truth.size).toBeGreaterThan(10);

    const served = await all('/v2/beta/markets');
    const tickers = served.map((m) => String(m.ticker));
    expect(new Set(tickers).size).toBe(tickers.length);
    expect([...tickers].sort()).toEqual([...truth.keys()].sort());
    expectOrdered(
      served,
      (m) => m.dollar_volume as number,
      (m) => String(m.ticker),
    );
    for (const m of served) {
      const x = truth.get(String(m.ticker))!;
      expect(m.title).toBe(x.title);
      expect(m.status).toBe(x.status);
      expect(m.result).toBe(x.result);
      expect(m.event_ticker).toBe(x.event_key);
      expect(near(m.last_price, x.last_price), `${x.ticker} last price`).toBe(true);
      expect(m.dollar_volume).toBe(x.dollar_volume);
      expect(m.volume).toBe(Math.floor(x.volume));
      expect((m.outcomes as { label: string }[]).map((o) => o.label)).toEqual(['Yes', 'No']);
    }

    const closed = await all('/v2/beta/markets?status=closed&sort=close_time');
    expect(closed.map((m) => String(m.ticker)).sort()).toEqual(
      [...truth.values()]
        .filter((x) => x.status !== 'open')
        .map((x) => x.ticker)
        .sort(),
    );
    await expectCanonical('beta', served, (m) => String(m.ticker), null);
  });
});

describe('GET /v2/delta/markets over the delta replica', () => {
  it('serves every market of the truth once, by volume, with its title, status, prices and volume', async () => {
    const at = START + 3 * HOUR;
    state.tick(at);
    const topics = activatedTopics(catalog, state);
    await runStream(
      delta,
      'markets',
      { ...t.deps, client: createDeltaClient({ http: http(replicas.urls.delta) }), now: () => at },
      { mode: 'poll' },
    );
    await assignCanonical(t.deps, 'delta', { now: () => at });
    const truth = deltaTruth(catalog, state, topics).markets;
    expect(truth.size).toBeGreaterThan(10);

    const served = await all('/v2/delta/markets');
    const ids = served.map((m) => Number(m.market_id));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort((a, b) => a - b)).toEqual([...truth.keys()].sort((a, b) => a - b));
    expectOrdered(
      served,
      (m) => m.total_volume_usd as number,
      (m) => String(m.market_id).padStart(20, '0'),
    );
    for (const m of served) {
      const x = truth.get(Number(m.market_id))!;
      expect(m.title).toBe(x.title);
      expect(m.status).toBe(x.status);
      expect(m.market_type).toBe(x.market_type);
      expect(m.condition_id).toBe(x.condition_id);
      expect(m.result_token_id).toBe(x.result_token_id);
      expect(near(m.total_volume_usd, x.volume_usd), `${x.market_id} volume`).toBe(true);
      const outcomes = m.outcomes as { label: string; token_id: string; price: number | null }[];
      expect(outcomes.map((o) => o.label)).toEqual(x.outcomes);
      expect(outcomes.map((o) => o.token_id)).toEqual(x.token_ids);
      outcomes.forEach((o, i) => {
        expect(Math.abs((o.price ?? -1) - x.prices[i]!), `${x.market_id} price ${i}`).toBeLessThanOrEqual(
          0.0000501,
        );
      });
    }
    const categorical = await all('/v2/delta/markets?market_type=categorical&sort=created');
    expect(categorical.map((m) => Number(m.market_id)).sort((a, b) => a - b)).toEqual(
      [...truth.values()]
        .filter((x) => x.market_type === 'categorical')
        .map((x) => x.market_id)
        .sort((a, b) => a - b),
    );
    await expectCanonical('delta', served, (m) => String(m.market_id), '');
  });
});

describe('canonical ids across venues', () => {
  it('an id served on both beta and gamma finds its market on each list', async () => {
    const ids = async (venue: string) => {
      const out = new Set<string>();
      for (const m of await all(`/v2/${venue}/markets`)) {
        for (const o of m.outcomes as { canonical_id: string | null }[]) {
          if (o.canonical_id) out.add(o.canonical_id);
        }
      }
      return out;
    };
    const beta = await ids('beta');
    const shared = [...(await ids('gamma'))].filter((id) => beta.has(id));
    expect(shared.length).toBeGreaterThan(0);
    for (const venue of ['beta', 'gamma']) {
      const found = await all(`/v2/${venue}/markets?canonical_id=${shared[0]}`);
      expect(found.length, venue).toBeGreaterThan(0);
      for (const m of found) {
        const carried = (m.outcomes as { canonical_id: string | null }[]).map((o) => o.canonical_id);
        expect(carried).toContain(shared[0]);
      }
    }
  });
});

describe('cursors', () => {
  it("a list's pagination_key is a 400 on another venue's list", async () => {
    const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    const beta = (await get('/v2/beta/markets?limit=2')).json() as { pagination: { pagination_key: string } };
    const k = encodeURIComponent(beta.pagination.pagination_key);
    for (const venue of ['gamma', 'delta']) {
      const res = await get(`/v2/${venue}/markets?limit=2&pagination_key=${k}`);
      expect(res.statusCode, res.body).toBe(400);
    }
  });
});
