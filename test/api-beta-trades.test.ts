import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCES } from '../api/resources/index.ts';
import type { BetaTrade, BetaTradesResponse } from '../schemas/api/beta-trades.ts';
import { type ApiTestContext, createApiTestContext } from './api-helpers.ts';

let t: ApiTestContext;
let key: string;

/** A trade as seeded, with its time in Unix ms. */
interface Seeded extends Omit<BetaTrade, 'created_time'> {
  ms: number;
}

const T0 = Date.UTC(2026, 8, 1);
const EVENTS = ['KXNBA-26SEP01BOSLAL', 'KXNBA-26SEP01BOSLALX', 'KXFED-26SEP'];
const TICKERS = [
  `${EVENTS[0]}-BOS`,
  `${EVENTS[0]}-LAL`,
  `${EVENTS[1]}-DEN`,
  `${EVENTS[2]}-H25`,
  `${EVENTS[2]}-C25`,
];
const seeded: Seeded[] = [];

const chMs = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

async function get(url: string) {
  return t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
}

/** Every trade of a query, page by page (`limit` per page), each page checked. */
async function all(params: string, limit: number): Promise<BetaTrade[]> {
  const out: BetaTrade[] = [];
  let token: string | null = null;
  for (let pages = 0; pages < 1000; pages++) {
    const res = await get(
      `/v2/beta/trades?${params}&limit=${limit}${token ? `&pagination_key=${token}` : ''}`,
    );
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as BetaTradesResponse;
    expect(body.pagination.count).toBe(body.trades.length);
    expect(body.pagination.limit).toBe(limit);
    out.push(...body.trades);
    token = body.pagination.pagination_key;
    expect(body.pagination.has_more).toBe(token !== null);
    if (token === null) return out;
    expect(body.trades.length).toBe(limit);
  }
  throw new Error('too many pages');
}

interface Want {
  ticker?: string;
  event_ticker?: string;
  taker_side?: 'yes' | 'no';
  start_time?: number;
  end_time?: number;
  min_count?: number;
  order?: 'asc' | 'desc';
}

/** The truth of a query: the seeded trades that match, in the served order. */
function expected(w: Want): BetaTrade[] {
  const rows = seeded.filter(
    (s) =>
      (w.ticker === undefined || s.ticker === w.ticker) &&
      (w.event_ticker === undefined || s.ticker.startsWith(w.event_ticker)) &&
      (w.taker_side === undefined || s.taker_side === w.taker_side) &&
      (w.start_time === undefined || Math.floor(s.ms / 1000) >= w.start_time) &&
      (w.end_time === undefined || Math.floor(s.ms / 1000) <= w.end_time) &&
      (w.min_count === undefined || s.count >= w.min_count),
  );
  rows.sort((a, b) => a.ms - b.ms || (a.trade_id < b.trade_id ? -1 : a.trade_id > b.trade_id ? 1 : 0));
  if (w.order !== 'asc') rows.reverse();
  return rows.map(({ ms, ...rest }) => ({ ...rest, created_time: Math.floor(ms / 1000) }));
}

const query = (w: Want) =>
  Object.entries(w)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');

beforeAll(async () => {
  t = await createApiTestContext('api_beta_trades');
  key = await t.key('enterprise', 100_000);
  // 600 trades over 5 tickers of 3 events; times in ms with several trades in one second and some in
  // the same millisecond (ties broken by trade id); whole and fractional counts; both sides.
  for (let i = 0; i < 600; i++) {
    const ticker = TICKERS[(i * 7) % TICKERS.length]!;
    const yes = Math.round(((i * 37) % 97) + 1) / 100;
    seeded.push({
      trade_id: `t-${((i * 7919) % 600).toString().padStart(4, '0')}-${i % 3 === 0 ? 'a' : 'b'}`,
      ticker,
      count: i % 4 === 0 ? 1 + (i % 50) + 0.25 : 1 + (i % 50),
      yes_price: yes,
      no_price: Math.round((1 - yes) * 100) / 100,
      taker_side: i % 3 === 1 ? 'no' : 'yes',
      ms: T0 + Math.floor(i / 3) * 700 + (i % 3 === 2 ? 0 : (i % 3) * 1),
    });
  }
  await t.deps.clickhouse.insert(
    'test.seed',
    'beta_trades',
    seeded.map((s) => ({
      trade_id: s.trade_id,
      ticker: s.ticker,
      count: s.count,
      yes_price: s.yes_price,
      no_price: s.no_price,
      taker_side: s.taker_side,
      created_time: chMs(s.ms),
      observed_at: chMs(T0 + 10_000_000),
    })),
  );
}, 120_000);
afterAll(async () => t?.close());

describe('GET /v2/beta/trades', () => {
  it('serves the trades of a ticker newest first, each once across pages, with their fields', async () => {
    const got = await all(`ticker=${TICKERS[0]}`, 17);
    const want = expected({ ticker: TICKERS[0] });
    expect(want.length).toBeGreaterThan(100);
    expect(got).toEqual(want);
    expect(new Set(got.map((x) => x.trade_id)).size).toBe(got.length);
  });

  it('event_ticker matches every ticker it begins (a prefix), alone or with ticker', async () => {
    // EVENTS[0] is a prefix of EVENTS[1]'s tickers too: a prefix match includes them.
    const got = await all(`event_ticker=${EVENTS[0]}`, 50);
    const want = expected({ event_ticker: EVENTS[0] });
    expect(new Set(got.map((x) => x.ticker))).toEqual(new Set([TICKERS[0], TICKERS[1], TICKERS[2]]));
    expect(got).toEqual(want);
    expect(await all(`event_ticker=${EVENTS[2]}&ticker=${TICKERS[3]}`, 500)).toEqual(
      expected({ event_ticker: EVENTS[2], ticker: TICKERS[3] }),
    );
    expect(await all(`event_ticker=${EVENTS[2]}&ticker=${TICKERS[0]}`, 500)).toEqual([]);
  });

  it('every filter and both orders equal the truth, paged with each row once', async () => {
    const startS = Math.floor((T0 + 40_000) / 1000);
    const endS = Math.floor((T0 + 100_000) / 1000);
    const cases: Want[] = [
      { ticker: TICKERS[3], order: 'asc' },
      { event_ticker: 'KX', taker_side: 'no' },
      { event_ticker: 'KX', taker_side: 'yes', order: 'asc' },
      { event_ticker: EVENTS[2], start_time: startS },
      { event_ticker: EVENTS[2], end_time: endS },
      { event_ticker: 'KXNBA', start_time: startS, end_time: endS, order: 'asc' },
      { event_ticker: 'KX', start_time: startS, end_time: startS },
      { ticker: TICKERS[1], min_count: 25 },
      { event_ticker: 'KX', min_count: 50, taker_side: 'yes' },
      { ticker: 'NOPE' },
    ];
    for (const w of cases) {
      const want = expected(w);
      for (const limit of [7, 500]) {
        expect(await all(query(w), limit), `${query(w)} limit ${limit}`).toEqual(want);
      }
    }
    // The cases select something (ties within a second and a millisecond included).
    expect(expected(cases[6]!).length).toBeGreaterThan(1);
    expect(expected(cases[7]!).length).toBeGreaterThan(0);
  });

  it('count is fractional where the trade was, whole otherwise', async () => {
    const got = await all('event_ticker=KX', 500);
    expect(got.length).toBe(600);
    expect(got.some((x) => !Number.isInteger(x.count))).toBe(true);
    expect(got.some((x) => Number.isInteger(x.count))).toBe(true);
    for (const x of got) {
      expect(x.yes_price).toBeGreaterThanOrEqual(0);
      expect(x.yes_price).toBeLessThanOrEqual(1);
      expect(x.taker_side === 'yes' || x.taker_side === 'no').toBe(true);
    }
  });

  it('defaults to 100 per page, takes up to 500', async () => {
    const res = await get('/v2/beta/trades?event_ticker=KX');
    expect((res.json() as BetaTradesResponse).trades.length).toBe(100);
    const big = await get('/v2/beta/trades?event_ticker=KX&limit=500');
    expect((big.json() as BetaTradesResponse).trades.length).toBe(500);
  });

  it('answers 400 without ticker and event_ticker, for start_time after end_time, and for a foreign pagination_key', async () => {
    const none = await get('/v2/beta/trades?taker_side=yes');
    expect(none.statusCode).toBe(400);
    expect(none.json().message).toMatch(/ticker or event_ticker/);
    const range = await get(`/v2/beta/trades?ticker=${TICKERS[0]}&start_time=200&end_time=100`);
    expect(range.statusCode).toBe(400);
    expect(range.json().message).toMatch(/start_time/);
    const first = (await (
      await get(`/v2/beta/trades?ticker=${TICKERS[0]}&limit=5`)
    ).json()) as BetaTradesResponse;
    const k = first.pagination.pagination_key!;
    // The key of another ticker's query, of another order, of another route's digest, and a forged one.
    for (const url of [
      `/v2/beta/trades?ticker=${TICKERS[1]}&limit=5&pagination_key=${k}`,
      `/v2/beta/trades?ticker=${TICKERS[0]}&order=asc&limit=5&pagination_key=${k}`,
      `/v2/beta/trades?ticker=${TICKERS[0]}&limit=5&pagination_key=${k.slice(0, -2)}AA`,
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().message).toMatch(/pagination_key/);
    }
    // The same query with another limit keeps its key.
    expect((await get(`/v2/beta/trades?ticker=${TICKERS[0]}&limit=9&pagination_key=${k}`)).statusCode).toBe(
      200,
    );
  });

  it('answers 422 naming the field for limit 0 and 501, min_count 0, an unknown taker_side or order', async () => {
    for (const [params, field] of [
      ['limit=0', 'limit'],
      ['limit=501', 'limit'],
      ['min_count=0', 'min_count'],
      ['taker_side=maybe', 'taker_side'],
      ['order=up', 'order'],
      ['start_time=-1', 'start_time'],
    ] as const) {
      const res = await get(`/v2/beta/trades?ticker=${TICKERS[0]}&${params}`);
      expect(res.statusCode, params).toBe(422);
      expect(res.json().detail[0].loc).toEqual(['query', field]);
    }
  });

  it('is metered: any tier, counted toward the monthly quota', () => {
    expect(RESOURCES.find((r) => r.path === '/v2/beta/trades')?.access).toEqual({
      kind: 'keyed',
      minTier: 'free',
      metered: true,
    });
  });
});
