/**
 * `/v2/beta/trades` and `/v2/markets/search` (venue beta) over a small sim world ingested by beta's own
 * sync (markets, events, series, trades) from the replica: every trade of the busiest tickers and of an
 * event served once across pages, equal to the world's trades; the search finds the beta markets whose
 * titles hold the query's words, with the stored titles, statuses and volumes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchWords } from '../core/search-words.ts';
import { createHttpClient } from '../ingest/http/client.ts';
import { runStream } from '../ingest/rest/runner.ts';
import { createBetaClient } from '../ingest/venues/beta/client.ts';
import { beta } from '../ingest/venues/beta/index.ts';
import type { BetaTrade, BetaTradesResponse } from '../schemas/api/beta-trades.ts';
import type { MarketsSearchResponse } from '../schemas/api/markets-search.ts';
import { type Replicas, startReplicas } from '../sim/venues/index.ts';
import { generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState } from '../sim/world/state.ts';
import { type ApiTestContext, createApiTestContext } from './api-helpers.ts';
import { type BetaTruth, betaTruth } from './support/beta-truth.ts';

const START = Date.UTC(2026, 3, 1);
const HOUR = 3_600_000;

let t: ApiTestContext;
let key: string;
let replicas: Replicas;
let truth: BetaTruth;

async function get<T>(url: string): Promise<T> {
  const res = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as T;
}

async function allTrades(params: string, limit: number): Promise<BetaTrade[]> {
  const out: BetaTrade[] = [];
  let token: string | null = null;
  do {
    const body: BetaTradesResponse = await get(
      `/v2/beta/trades?${params}&limit=${limit}${token ? `&pagination_key=${token}` : ''}`,
    );
    out.push(...body.trades);
    token = body.pagination.pagination_key;
  } while (token !== null);
  return out;
}

/** The world's trades matching `keep`, newest first (ties by trade id, descending), as served. */
function expected(keep: (ticker: string) => boolean) {
  return [...truth.trades.values()]
    .filter((x) => keep(x.ticker))
    .sort(
      (a, b) =>
        b.created_time - a.created_time || (a.trade_id < b.trade_id ? 1 : a.trade_id > b.trade_id ? -1 : 0),
    )
    .map((x) => ({
      trade_id: x.trade_id,
      ticker: x.ticker,
      count: x.count,
      yes_price: x.yes_price,
      taker_side: x.taker_side,
      created_time: Math.floor(x.created_time / 1000),
    }));
}

const served = (xs: BetaTrade[]) =>
  xs.map((x) => {
    expect(x.no_price).toBeCloseTo(1 - x.yes_price, 9);
    const { no_price: _, ...rest } = x;
    return rest;
  });

beforeAll(async () => {
  const catalog = generateCatalog({ seed: 'api-beta-trades', size: 'small', startTime: START });
  const state = createWorldState(catalog, { alpha: 'self' });
  replicas = await startReplicas({ catalog, state });
  t = await createApiTestContext('api_beta_trades_sim');
  key = await t.key('enterprise', 100_000);
  const client = createBetaClient({
    http: createHttpClient({ baseUrl: replicas.urls.beta, timeoutMs: 5_000 }),
  });
  // Three live polls of markets and trades.
  for (const at of [START + HOUR, START + 2 * HOUR, START + 3 * HOUR]) {
    state.tick(at);
    await runStream(beta, 'markets', { ...t.deps, client, now: () => at }, { mode: 'poll' });
    await runStream(beta, 'trades', { ...t.deps, client, now: () => at }, { mode: 'poll' });
  }
  truth = betaTruth(catalog, state);
}, 180_000);

afterAll(async () => {
  await t?.close();
  await replicas?.close();
});

describe('beta trades and search over an ingested sim world', () => {
  it("serves each of the busiest tickers' trades once across pages, equal to the world's", async () => {
    const perTicker = new Map<string, number>();
    for (const x of truth.trades.values()) perTicker.set(x.ticker, (perTicker.get(x.ticker) ?? 0) + 1);
    const busiest = [...perTicker.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3);
    expect(busiest[0]![1]).toBeGreaterThan(10);
    for (const [ticker] of busiest) {
      expect(served(await allTrades(`ticker=${ticker}`, 7))).toEqual(expected((x) => x === ticker));
    }
  });

  it("serves an event's trades by its ticker prefix, and all trades by a common prefix", async () => {
    const withTrades = new Set([...truth.trades.values()].map((x) => x.ticker));
    const market = [...truth.markets.values()].find((m) => m.event_key !== '' && withTrades.has(m.ticker))!;
    const event = market.event_key;
    expect(served(await allTrades(`event_ticker=${event}`, 50))).toEqual(
      expected((x) => x.startsWith(event)),
    );
    const all = await allTrades('event_ticker=K', 500);
    expect(served(all)).toEqual(expected((x) => x.startsWith('K')));
    expect(all.length).toBe(truth.trades.size);
  });

  it("finds beta's markets by the words of their titles, with their stored fields", async () => {
    const sample = [...truth.markets.values()].find((m) => searchWords(m.title).length >= 3)!;
    const q = searchWords(sample.title).slice(0, 2).join(' ');
    const body: MarketsSearchResponse = await get(
      `/v2/markets/search?venue=beta&status=${sample.status === 'open' ? 'open' : 'closed'}&limit=100&q=${encodeURIComponent(q)}`,
    );
    const want = [...truth.markets.values()].filter(
      (m) =>
        (sample.status === 'open' ? m.status === 'open' : m.status !== 'open') &&
        searchWords(q).every((w) => searchWords(m.title).some((x) => x.startsWith(w))),
    );
    expect(body.markets.map((m) => m.market_id).sort()).toEqual(want.map((m) => m.ticker).sort());
    expect(body.markets.some((m) => m.market_id === sample.ticker)).toBe(true);
    // Titles and statuses equal the world's; volume and price as the ingestor stored them.
    const stored = new Map(
      (
        await t.deps.clickhouse.query<{ ticker: string; volume_usd: number; price: number | null }>(
          'test.stored',
          'SELECT ticker, volume_usd, prices[1] AS price FROM beta_markets FINAL',
        )
      ).map((r) => [r.ticker, r]),
    );
    for (const m of body.markets) {
      const w = truth.markets.get(m.market_id!)!;
      expect(m.venue).toBe('beta');
      expect(m.title).toBe(w.title);
      expect(m.status).toBe(w.status === 'open' ? 'open' : 'closed');
      expect(m.volume).toBe(stored.get(m.market_id!)!.volume_usd);
      expect(m.price ?? null).toBe(stored.get(m.market_id!)!.price);
    }
  });
});
