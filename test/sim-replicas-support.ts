/**
 * Shared set-up for the replica tests: a small world driven deterministically (alpha trades and a
 * resolution as the chain driver would record them, the other venues by tick()), its replicas, and one
 * request per served endpoint with the upstream schema that describes its answer.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ReplicaName, type Replicas, startReplicas } from '../sim/venues/index.ts';
import { loadUpstreamValidator, type UpstreamValidator } from '../sim/venues/upstream-schemas.ts';
import { type Catalog, type CatalogMarket, generateCatalog } from '../sim/world/catalog.ts';
import { createRng } from '../sim/world/rng.ts';
import { createWorldState, type WorldState } from '../sim/world/state.ts';

export const START = Date.UTC(2026, 3, 1);
const HOUR = 3_600_000;
const here = path.dirname(fileURLToPath(import.meta.url));
export const UPSTREAM_DIR = path.resolve(here, '../schemas/upstream');

export interface World {
  catalog: Catalog;
  state: WorldState;
  replicas: Replicas;
}

/** Drives alpha the way the chain driver does: trades on both tokens, UMA statuses, resolutions. */
function driveAlpha(catalog: Catalog, state: WorldState, seed: string): void {
  const rng = createRng(`${seed}|test-alpha-driver`);
  const markets = catalog.venues.alpha.markets;
  let t = START;
  for (let i = 0; i < 300; i++) {
    t += rng.int(10_000, 120_000);
    const m = rng.pick(markets);
    if (m.endTime <= t) continue;
    const outcome = rng.int(0, 1);
    const p0 = Math.min(0.97, Math.max(0.03, state.price('alpha', m.key).last + rng.normal(0, 0.02)));
    state.recordTrade({
      venue: 'alpha',
      marketKey: m.key,
      tokenId: m.tokenIds[outcome],
      side: rng.chance(0.5) ? 'buy' : 'sell',
      price: Number((outcome === 0 ? p0 : 1 - p0).toFixed(2)),
      shares: Number(rng.float(5, 500).toFixed(2)),
      time: t,
    });
  }
  const disputed = markets.find((m) => m.resolution?.disputed) as CatalogMarket;
  const c = disputed.alpha!.conditionId;
  state.setUmaStatus(c, 'proposed', t + 1000);
  state.setUmaStatus(c, 'disputed', t + 2000);
  state.setUmaStatus(c, 'proposed', t + 3000);
  state.recordResolution({ conditionId: c, winningIndex: disputed.resolution!.winningIndex, time: t + 4000 });
}

export async function startWorld(seed: string): Promise<World> {
  const catalog = generateCatalog({ seed, size: 'small', startTime: START });
  const state = createWorldState(catalog);
  driveAlpha(catalog, state, seed);
  state.tick(START + 12 * HOUR);
  const replicas = await startReplicas({ catalog, state });
  return { catalog, state, replicas };
}

export interface EndpointCase {
  server: ReplicaName;
  /** The path template in the upstream file. */
  template: string;
  url: string;
  method: 'GET' | 'POST';
  body?: unknown;
  /** The answer must hold at least one record (so schema validation is not vacuous); 'map': a non-empty map. */
  nonEmpty?: boolean | 'map';
}

const FILES: Record<ReplicaName, string> = {
  alpha_metadata: 'alpha-metadata-api.yaml',
  alpha_book: 'alpha-book-api.yaml',
  beta: 'beta-api.yaml',
  gamma: 'gamma-api.yaml',
  delta: 'delta-api.yaml',
  epsilon: 'epsilon-api.yaml',
};

/**
 * Validators per replica. One override, for a contradiction between a file and the live API: the CLOB
 * book `timestamp` is documented `format: date-time` but the live API sends Unix milliseconds as a string.
 */
export function loadValidators(): Record<ReplicaName, UpstreamValidator> {
  const out = {} as Record<ReplicaName, UpstreamValidator>;
  for (const [name, file] of Object.entries(FILES) as [ReplicaName, string][]) {
    out[name] = loadUpstreamValidator(path.join(UPSTREAM_DIR, file), (doc) => {
      if (name !== 'alpha_book') return;
      const schemas = (doc.components as { schemas: Record<string, { properties: Record<string, unknown> }> })
        .schemas;
      const ts = schemas.OrderBookSummary?.properties.timestamp as { format?: string };
      delete ts.format;
    });
  }
  return out;
}

function openMarket(
  state: WorldState,
  markets: CatalogMarket[],
  pred: (m: CatalogMarket) => boolean = () => true,
) {
  const m = markets.find((x) => pred(x) && state.status(x.venue, x.key).status === 'open');
  if (!m) throw new Error(`no open market matching in ${markets[0]?.venue}`);
  return m;
}

/** One request per endpoint the replicas serve. */
export function endpointCases(w: World): EndpointCase[] {
  const { catalog, state, replicas } = w;
  const u = replicas.urls;
  const a = catalog.venues.alpha;
  const am = openMarket(state, a.markets, (m) => state.trades('alpha', m.key).length > 0);
  const ae = a.events.find((e) => e.marketKeys.includes(am.key))!;
  const as = a.series[0]!;
  const at = a.tags.find((t) => t.parentSlug === null)!;
  const b = catalog.venues.beta;
  const bm = openMarket(state, b.markets, (m) => state.trades('beta', m.key).length > 0);
  const bs = b.series.find((s) => s.key === bm.seriesKey)!;
  const g = catalog.venues.gamma;
  const gClob = openMarket(
    state,
    g.markets,
    (m) => m.kind === 'clob' && state.trades('gamma', m.key).length > 0,
  );
  const gAmm = openMarket(state, g.markets, (m) => m.kind === 'amm');
  const gGroup = g.events.find((e) => e.marketKeys.length > 1);
  const d = catalog.venues.delta;
  const dBinary = d.events.find((e) => e.marketKeys.length === 1)!;
  const dCat = d.events.find((e) => e.marketKeys.length > 1);
  const dm = openMarket(state, d.markets, (m) => state.trades('delta', m.key).length > 0);
  const e = catalog.venues.epsilon;
  const em = openMarket(state, e.markets, (m) => state.trades('epsilon', m.key).length > 0);
  const ee = e.events.find((x) => x.marketKeys.includes(em.key))!;
  const now = Math.floor(state.now() / 1000);
  const E = '/public/api/v1';
  const get = (server: ReplicaName, template: string, url: string, nonEmpty = false): EndpointCase => ({
    server,
    template,
    url,
    method: 'GET',
    nonEmpty,
  });
  const post = (server: ReplicaName, template: string, url: string, body: unknown): EndpointCase => ({
    server,
    template,
    url,
    method: 'POST',
    body,
    nonEmpty: true,
  });
  const cases: (EndpointCase | null)[] = [
    get('alpha_metadata', '/markets', `${u.alpha_metadata}/markets?limit=50&include_tag=true`, true),
    get('alpha_metadata', '/markets/{id}', `${u.alpha_metadata}/markets/${am.id}`),
    get('alpha_metadata', '/markets/{id}/tags', `${u.alpha_metadata}/markets/${am.id}/tags`, true),
    get('alpha_metadata', '/markets/slug/{slug}', `${u.alpha_metadata}/markets/slug/${am.slug}`),
    get('alpha_metadata', '/events', `${u.alpha_metadata}/events?limit=50`, true),
    get('alpha_metadata', '/events/{id}', `${u.alpha_metadata}/events/${ae.id}`),
    get('alpha_metadata', '/events/{id}/tags', `${u.alpha_metadata}/events/${ae.id}/tags`, true),
    get('alpha_metadata', '/events/slug/{slug}', `${u.alpha_metadata}/events/slug/${ae.slug}`),
    get('alpha_metadata', '/series', `${u.alpha_metadata}/series`, true),
    get('alpha_metadata', '/series/{id}', `${u.alpha_metadata}/series/${as.id}`),
    get('alpha_metadata', '/tags', `${u.alpha_metadata}/tags?limit=100`, true),
    get('alpha_metadata', '/tags/{id}', `${u.alpha_metadata}/tags/${at.id}`),
    get('alpha_metadata', '/tags/{id}/related-tags', `${u.alpha_metadata}/tags/${at.id}/related-tags`, true),
    get(
      'alpha_metadata',
      '/tags/{id}/related-tags/tags',
      `${u.alpha_metadata}/tags/${at.id}/related-tags/tags`,
      true,
    ),
    get('alpha_metadata', '/status', `${u.alpha_metadata}/status`),
    get('alpha_book', '/book', `${u.alpha_book}/book?token_id=${am.tokenIds[0]}`),
    post('alpha_book', '/books', `${u.alpha_book}/books`, [
      { token_id: am.tokenIds[0] },
      { token_id: am.tokenIds[1] },
    ]),
    get('alpha_book', '/price', `${u.alpha_book}/price?token_id=${am.tokenIds[1]}&side=BUY`),
    {
      ...get(
        'alpha_book',
        '/prices',
        `${u.alpha_book}/prices?token_ids=${am.tokenIds.join(',')}&sides=BUY,SELL`,
      ),
      nonEmpty: 'map',
    },
    {
      ...post('alpha_book', '/prices', `${u.alpha_book}/prices`, [
        { token_id: am.tokenIds[0], side: 'SELL' },
      ]),
      nonEmpty: 'map',
    },
    get('alpha_book', '/midpoint', `${u.alpha_book}/midpoint?token_id=${am.tokenIds[0]}`),
    {
      ...post('alpha_book', '/spreads', `${u.alpha_book}/spreads`, [{ token_id: am.tokenIds[0] }]),
      nonEmpty: 'map',
    },
    get(
      'alpha_book',
      '/prices-history',
      `${u.alpha_book}/prices-history?market=${am.tokenIds[0]}&interval=1d&fidelity=5`,
      true,
    ),
    get('alpha_book', '/markets-by-token/{token_id}', `${u.alpha_book}/markets-by-token/${am.tokenIds[1]}`),
    get('beta', '/markets', `${u.beta}/markets?limit=10`, true),
    get('beta', '/markets/{ticker}', `${u.beta}/markets/${bm.key}`),
    get('beta', '/events', `${u.beta}/events?with_nested_markets=true&limit=5`, true),
    get('beta', '/events/{event_ticker}', `${u.beta}/events/${bm.eventKey}`),
    get('beta', '/series', `${u.beta}/series?include_volume=true`, true),
    get('beta', '/series/{series_ticker}', `${u.beta}/series/${bs.ticker}`),
    get('beta', '/markets/trades', `${u.beta}/markets/trades?limit=50`, true),
    get('beta', '/markets/{ticker}/orderbook', `${u.beta}/markets/${bm.key}/orderbook`),
    get('beta', '/markets/orderbooks', `${u.beta}/markets/orderbooks?tickers=${bm.key}`, true),
    get(
      'beta',
      '/series/{series_ticker}/markets/{ticker}/candlesticks',
      `${u.beta}/series/${bs.ticker}/markets/${bm.key}/candlesticks?start_ts=${now - 12 * 3600}&end_ts=${now}&period_interval=60`,
      true,
    ),
    get(
      'beta',
      '/markets/candlesticks',
      `${u.beta}/markets/candlesticks?market_tickers=${bm.key}&start_ts=${now - 12 * 3600}&end_ts=${now}&period_interval=60`,
      true,
    ),
    get('gamma', '/markets/active', `${u.gamma}/markets/active?limit=25`, true),
    get('gamma', '/markets/active/{categoryId}', `${u.gamma}/markets/active/${g.categories[0]!.id}`),
    get('gamma', '/markets/categories/count', `${u.gamma}/markets/categories/count`),
    get('gamma', '/markets/active/slugs', `${u.gamma}/markets/active/slugs`, true),
    get('gamma', '/markets/{addressOrSlug}', `${u.gamma}/markets/${gClob.slug}`),
    get('gamma', '/markets/{addressOrSlug}', `${u.gamma}/markets/${gAmm.ammAddress}`),
    gGroup ? get('gamma', '/markets/{addressOrSlug}', `${u.gamma}/markets/${gGroup.ticker}`) : null,
    get('gamma', '/markets/{slug}/orderbook', `${u.gamma}/markets/${gClob.slug}/orderbook`),
    get(
      'gamma',
      '/markets/{slug}/historical-price',
      `${u.gamma}/markets/${gClob.slug}/historical-price?interval=1h`,
      true,
    ),
    get('gamma', '/markets/{slug}/events', `${u.gamma}/markets/${gClob.slug}/events`, true),
    get('delta', '/market', `${u.delta}/market?marketType=2&limit=20`, true),
    get('delta', '/market/{marketId}', `${u.delta}/market/${dBinary.marketKeys[0]}`),
    get('delta', '/market/slug/{slug}', `${u.delta}/market/slug/${dBinary.ticker}`),
    dCat ? get('delta', '/market/categorical/{marketId}', `${u.delta}/market/categorical/${dCat.id}`) : null,
    get('delta', '/token/latest-price', `${u.delta}/token/latest-price?token_id=${dm.tokenIds[0]}`),
    get('delta', '/token/orderbook', `${u.delta}/token/orderbook?token_id=${dm.tokenIds[1]}`),
    get(
      'delta',
      '/token/price-history',
      `${u.delta}/token/price-history?token_id=${dm.tokenIds[0]}&interval=1h`,
    ),
    get('delta', '/quoteToken', `${u.delta}/quoteToken`),
    get('epsilon', `${E}/events/`, `${u.epsilon}${E}/events/?status=all`, true),
    get('epsilon', `${E}/events/{id}`, `${u.epsilon}${E}/events/${ee.id}`),
    get('epsilon', `${E}/events/slug/{slug}`, `${u.epsilon}${E}/events/slug/${ee.ticker}`),
    get('epsilon', `${E}/events/{id}/tags`, `${u.epsilon}${E}/events/${ee.id}/tags`),
    get('epsilon', `${E}/markets/`, `${u.epsilon}${E}/markets/?event_id=${ee.id}`, true),
    get('epsilon', `${E}/markets/{id}`, `${u.epsilon}${E}/markets/${em.id}`),
    get('epsilon', `${E}/tags/`, `${u.epsilon}${E}/tags/`, true),
    get('epsilon', `${E}/book`, `${u.epsilon}${E}/book?token_id=${em.tokenIds[0]}`),
    get('epsilon', `${E}/midpoint`, `${u.epsilon}${E}/midpoint?token_id=${em.tokenIds[0]}`),
    get('epsilon', `${E}/price`, `${u.epsilon}${E}/price?token_id=${em.tokenIds[0]}&side=SELL`),
    {
      ...post('epsilon', `${E}/prices`, `${u.epsilon}${E}/prices`, [
        { token_id: em.tokenIds[0], side: 'BUY' },
      ]),
      nonEmpty: 'map',
    },
    get('epsilon', `${E}/prices-history`, `${u.epsilon}${E}/prices-history?market=${em.tokenIds[0]}`, true),
  ];
  // A world without a gamma group or a delta categorical market skips those two (the seed used by the
  // schema test has both; the test checks it).
  return cases.filter((c): c is EndpointCase => c !== null);
}

export async function call(c: EndpointCase): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(c.url, {
    method: c.method,
    headers: c.body === undefined ? {} : { 'content-type': 'application/json' },
    body: c.body === undefined ? undefined : JSON.stringify(c.body),
    signal: AbortSignal.timeout(5_000),
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** Whether a parsed body holds at least one record: a non-empty array anywhere ('map': a non-empty object). */
export function hasRecords(body: unknown, kind: true | 'map' = true): boolean {
  if (kind === 'map') return body !== null && typeof body === 'object' && Object.keys(body).length > 0;
  if (Array.isArray(body)) return body.length > 0;
  if (body && typeof body === 'object') {
    const values = Object.values(body);
    if (values.some((v) => Array.isArray(v) && v.length > 0)) return true;
    return values.some((v) => v && typeof v === 'object' && hasRecords(v));
  }
  return false;
}
