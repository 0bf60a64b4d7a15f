/**
 * The venue columns a replica sends in its upstream's format reach the lists, end to end: replica → the
 * venue's sync → `<venue>_markets` → `GET /v2/<venue>/markets`, on a small sim world late enough that
 * markets have resolved and settled (docs/venues.md, docs/sim-venues.md):
 *
 * - delta: every market's `slug` (the slug `/market/slug/{slug}` takes), a categorical child's
 *   `event_slug` (its parent's slug); the `market_slug` and `event_slug` filters find them;
 * - gamma: every market's `image_url`;
 * - epsilon: every market's `market_variant` (the `market_variant` filter finds them) and `image_url`;
 * - beta: `determination_time` of every settled market (`settlement_ts` − `settlement_timer_seconds`),
 *   the world's resolution time.
 *
 * Each served value is compared with what the replica answers for that market, and none is empty.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from '../ingest/http/client.ts';
import { runStream } from '../ingest/rest/runner.ts';
import { createBetaClient } from '../ingest/venues/beta/client.ts';
import { beta } from '../ingest/venues/beta/index.ts';
import { createDeltaClient } from '../ingest/venues/delta/client.ts';
import { delta } from '../ingest/venues/delta/index.ts';
import { createEpsilonClient } from '../ingest/venues/epsilon/client.ts';
import { epsilon } from '../ingest/venues/epsilon/index.ts';
import { createGammaClient } from '../ingest/venues/gamma/client.ts';
import { gamma } from '../ingest/venues/gamma/index.ts';
import { type Replicas, startReplicas } from '../sim/venues/index.ts';
import { type Catalog, generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState, type WorldState } from '../sim/world/state.ts';
import { type ApiTestContext, createApiTestContext } from './api-helpers.ts';

const START = Date.UTC(2026, 3, 1);
const HOUR = 3_600_000;
/** Late in the 3-day world: most markets resolved, many settled more than an hour ago. */
const AT = START + 60 * HOUR;

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
      url: `${url}${sep}limit=50${cursor ? `&pagination_key=${encodeURIComponent(cursor)}` : ''}`,
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

async function replica(base: string, path: string): Promise<Item> {
  const res = await fetch(`${base}${path}`);
  expect(res.status, `${base}${path}`).toBe(200);
  return (await res.json()) as Item;
}

const http = (url: string) =>
  createHttpClient({ baseUrl: url, timeoutMs: 5_000, baseDelayMs: 20, maxDelayMs: 100 });
const deps = (client: unknown) => ({ ...t.deps, client, now: () => AT }) as never;

beforeAll(async () => {
  catalog = generateCatalog({ seed: 'cols-3', size: 'small', startTime: START });
  state = createWorldState(catalog, { alpha: 'self' });
  replicas = await startReplicas({ catalog, state });
  t = await createApiTestContext('api_venue_columns_sim');
  key = await t.key('enterprise', 100_000);
  state.tick(AT);
}, 120_000);

afterAll(async () => {
  await replicas?.close();
  await t?.close();
});

describe('delta: slug and event_slug', () => {
  it('serves the slug the replica sends for every market, and the slug filters find them', async () => {
    await runStream(delta, 'markets', deps(createDeltaClient({ http: http(replicas.urls.delta) })), {
      mode: 'reconcile',
    });
    const served = await all('/v2/delta/markets');
    expect(served.length).toBeGreaterThan(3);
    const parents = new Map<number, Item>();
    for (const m of served) {
      const id = Number(m.market_id);
      let sent: Item;
      if (m.event_id === null) {
        sent = ((await replica(replicas.urls.delta, `/market/${id}`)).result as { data: Item }).data;
        expect(m.event_slug, `${id}`).toBeNull();
      } else {
        const parentId = Number(m.event_id);
        if (!parents.has(parentId)) {
          const r = await replica(replicas.urls.delta, `/market/categorical/${parentId}`);
          parents.set(parentId, (r.result as { data: Item }).data);
        }
        const parent = parents.get(parentId)!;
        sent = (parent.childMarkets as Item[]).find((c) => Number(c.marketId) === id)!;
        expect(typeof parent.slug).toBe('string');
        expect(parent.slug).not.toBe('');
        expect(m.event_slug, `${id}`).toBe(parent.slug);
      }
      expect(typeof sent.slug).toBe('string');
      expect(sent.slug, `${id}`).not.toBe('');
      expect(m.slug, `${id}`).toBe(sent.slug);
    }
    expect(parents.size).toBeGreaterThan(0);

    for (const m of served.slice(0, 5)) {
      const found = await all(`/v2/delta/markets?market_slug=${encodeURIComponent(String(m.slug))}`);
      expect(found.map((x) => x.market_id)).toEqual([m.market_id]);
    }
    for (const [parentId, parent] of parents) {
      const found = await all(`/v2/delta/markets?event_slug=${encodeURIComponent(String(parent.slug))}`);
      const want = served.filter((x) => Number(x.event_id) === parentId).map((x) => Number(x.market_id));
      expect(found.map((x) => Number(x.market_id)).sort((a, b) => a - b)).toEqual(want.sort((a, b) => a - b));
    }
  });
});

describe('gamma: image_url', () => {
  it('serves the image_url the replica sends for every market', async () => {
    await runStream(gamma, 'markets', deps(createGammaClient({ http: http(replicas.urls.gamma) })), {
      mode: 'reconcile',
    });
    const served = await all('/v2/gamma/markets');
    expect(served.length).toBeGreaterThan(5);
    for (const m of served) {
      const sent = await replica(replicas.urls.gamma, `/markets/${m.market_slug}`);
      expect(typeof sent.image_url).toBe('string');
      expect(sent.image_url, String(m.market_slug)).not.toBe('');
      expect(m.image_url, String(m.market_slug)).toBe(sent.image_url);
    }
  });
});

describe('epsilon: market_variant and image_url', () => {
  it('serves the variant and image the replica sends for every market; the variant filter finds them', async () => {
    await runStream(
      epsilon,
      'markets',
      deps(createEpsilonClient({ pageSize: 20, http: http(replicas.urls.epsilon) })),
      {
        mode: 'reconcile',
      },
    );
    const served = await all('/v2/epsilon/markets');
    expect(served.length).toBeGreaterThan(5);
    const byVariant = new Map<string, number[]>();
    for (const m of served) {
      const sent = await replica(replicas.urls.epsilon, `/public/api/v1/markets/${m.market_id}`);
      expect(sent.marketVariant, String(m.market_id)).toBeTruthy();
      expect(sent.image, String(m.market_id)).toBeTruthy();
      expect(m.market_variant, String(m.market_id)).toBe(sent.marketVariant);
      expect(m.image_url, String(m.market_id)).toBe(sent.image);
      const ids = byVariant.get(String(m.market_variant)) ?? [];
      ids.push(Number(m.market_id));
      byVariant.set(String(m.market_variant), ids);
    }
    expect([...byVariant.keys()].sort()).toEqual(['DEFAULT', 'SPORTS_TEAM_MATCH']);
    for (const [variant, ids] of byVariant) {
      const found = await all(`/v2/epsilon/markets?market_variant=${variant}`);
      expect(found.map((x) => Number(x.market_id)).sort((a, b) => a - b)).toEqual(ids.sort((a, b) => a - b));
    }
  });
});

describe('beta: determination_time', () => {
  it('serves settlement_ts − settlement_timer_seconds for every settled market: the world’s resolution', async () => {
    await runStream(beta, 'markets', deps(createBetaClient({ http: http(replicas.urls.beta) })), {
      mode: 'reconcile',
    });
    const served = await all('/v2/beta/markets');
    expect(served.length).toBeGreaterThan(10);
    let settled = 0;
    for (const m of served) {
      const sent = (await replica(replicas.urls.beta, `/markets/${m.ticker}`)).market as Item;
      if (typeof sent.settlement_ts !== 'string') {
        expect(m.determination_time, String(m.ticker)).toBeNull();
        continue;
      }
      settled++;
      const determined = Date.parse(sent.settlement_ts) - Number(sent.settlement_timer_seconds) * 1000;
      expect(Date.parse(String(m.determination_time)), String(m.ticker)).toBe(determined);
      expect(determined).toBe(state.status('beta', String(m.ticker)).resolvedAt);
      expect(Date.parse(String(m.settlement_time)), String(m.ticker)).toBe(Date.parse(sent.settlement_ts));
    }
    expect(settled).toBeGreaterThan(3);
  });
});
