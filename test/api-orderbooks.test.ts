/**
 * The six order book history endpoints over rows written straight into their tables (orderbook_snapshots
 * through the one writer's `snapshotRow` / `recordSnapshots`, alpha_book_quotes as its sync writes them):
 * the rules that answer 422, 400 and 404 naming what was wrong, pages of one that return each snapshot
 * once, the integer-cent rounding of a sub-cent beta book, exact decimals, the OpenAPI listing, and the
 * response cache following `books:<venue>`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataVersions } from '../core/data-version.ts';
import { type BookSnapshot, recordSnapshots, snapshotRow } from '../ingest/orderbooks/store.ts';
import { chTime } from '../ingest/rest/store.ts';
import type { BookSource } from '../schemas/tables/orderbooks.ts';
import { type ApiTestContext, createApiTestContext } from './api-helpers.ts';

let t: ApiTestContext;
let key: string;

const T0 = Date.UTC(2026, 2, 10, 12);
const MIN = 60_000;
const TICKER = 'KXFED-26MAR-T4.25';
const OTHER_TICKER = 'KXFED-26MAR-T4.50';
const SLUG = 'will-btc-close-above-100k';
const AMM_SLUG = 'amm-market-slug';
const TOKEN = '1234567890123456789012345678901234567890';
const CONDITION = `0x${'ab'.repeat(32)}`;
const QUIET_TOKEN = '42';

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
const range = (from = T0 - MIN, to = T0 + 100 * MIN) => `start_time=${from}&end_time=${to}`;

interface Written {
  venue: string;
  source: BookSource;
  snapshot: BookSnapshot;
  observedAt: number;
}
const written: Written[] = [];

async function insertSnapshots(rows: Written[]) {
  written.push(...rows);
  await t.deps.clickhouse.insert(
    'test.orderbooks.insert',
    'orderbook_snapshots',
    rows.map((w) => {
      const r = snapshotRow(w.snapshot, w);
      return { ...r, ts: chTime(r.ts), observed_at: chTime(r.observed_at) };
    }),
  );
}

/** A plain decimal book: `n` levels a side around `mid` (cents), sizes varying with `i`. */
function book(market: string, token: string, ts: number, i: number, mid = 50): BookSnapshot {
  const lv = (c: number, k: number) => ({ price: (c / 100).toFixed(2), size: `${10 + i + k}.5` });
  return {
    market,
    token_id: token,
    ts,
    bids: [0, 1, 2].map((k) => lv(mid - 1 - k, k)),
    asks: [0, 1, 2].map((k) => lv(mid + 1 + k, k)),
  };
}

async function pages(url: string, limit: number): Promise<unknown[]> {
  const out: unknown[] = [];
  let token: string | null = null;
  for (let n = 0; n < 500; n++) {
    const res = await get(`${url}&limit=${limit}${token ? `&pagination_key=${token}` : ''}`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { snapshots: unknown[]; pagination: { pagination_key: string | null } };
    out.push(...body.snapshots);
    token = body.pagination.pagination_key;
    if (token === null) return out;
  }
  throw new Error('too many pages');
}

beforeAll(async () => {
  t = await createApiTestContext('api_orderbooks');
  key = await t.key('enterprise', 100_000);
  const ch = t.deps.clickhouse;
  const at = chTime(T0 - 10 * MIN);
  await ch.insert('test.markets', 'beta_markets', [
    { ticker: TICKER, status: 'open', observed_at: at },
    { ticker: OTHER_TICKER, status: 'open', observed_at: at },
  ]);
  await ch.insert('test.markets', 'gamma_markets', [
    { slug: SLUG, trade_type: 'clob', token_ids: ['71', '72'], observed_at: at },
    { slug: AMM_SLUG, trade_type: 'amm', observed_at: at },
  ]);
  await ch.insert('test.markets', 'delta_markets', [{ market_id: 7, observed_at: at }]);
  await ch.insert('test.markets', 'epsilon_markets', [{ market_id: 9, observed_at: at }]);
  await ch.insert('test.markets', 'alpha_markets', [
    { condition_id: CONDITION, clob_token_ids: [TOKEN, QUIET_TOKEN] },
  ]);

  const rows: Written[] = [];
  for (let i = 0; i < 7; i++) {
    // Two snapshots share a book time (the payload's time did not move): `sequence` orders them.
    const ts = T0 + Math.min(i, 5) * MIN;
    const observedAt = T0 + i * MIN + 500;
    rows.push({ venue: 'beta', source: 'rest', snapshot: book(TICKER, '', ts, i), observedAt });
    rows.push({ venue: 'beta', source: 'rest', snapshot: book(OTHER_TICKER, '', ts, i, 30), observedAt });
    // A ws snapshot sharing (ts, sequence) with a rest one: the sub-cent key includes the source.
    rows.push({ venue: 'beta', source: 'ws', snapshot: book(TICKER, '', ts, i + 100), observedAt });
    rows.push({
      venue: 'gamma',
      source: 'rest',
      snapshot: { ...book(SLUG, '71', ts, i), midpoint: '0.5', adjusted_midpoint: '0.505' },
      observedAt,
    });
    rows.push({ venue: 'delta', source: 'rest', snapshot: book('7', '701', ts, i), observedAt });
    rows.push({ venue: 'epsilon', source: 'rest', snapshot: book('9', '', ts, i), observedAt });
  }
  await insertSnapshots(rows);
  await ch.insert(
    'test.alpha',
    'alpha_book_quotes',
    [0, 1, 2, 3].map((i) => ({
      token_id: TOKEN,
      observed_at: chTime(T0 + i * MIN + 250),
      condition_id: CONDITION,
      book_time: chTime(T0 + Math.min(i, 2) * MIN),
      hash: `0xhash${i}`,
      best_bid: 0.48,
      best_ask: 0.52,
      mid: 0.5,
      bid_prices: [0.48, 0.47],
      bid_sizes: [100.25, 12 + i],
      ask_prices: [0.52, 0.535],
      ask_sizes: [7, 1234.5678],
      tick_size: '0.001',
    })),
  );
});
afterAll(async () => t?.close());

const detailLoc = (body: string) =>
  (JSON.parse(body) as { detail: { loc: string[] }[] }).detail.map((d) => d.loc.join('.'));

describe('order book history: rules', () => {
  const markets: Record<string, string> = {
    alpha: `token_id=${TOKEN}`,
    beta: `ticker=${TICKER}`,
    'beta-subcent': `ticker=${TICKER}`,
    gamma: `market_slug=${SLUG}`,
    delta: 'market_id=7',
    epsilon: 'market_id=9',
  };
  const path = (v: string) => (v === 'beta-subcent' ? '/v2/beta/orderbooks-subcent' : `/v2/${v}/orderbooks`);
  const max: Record<string, number> = {
    alpha: 2000,
    beta: 2000,
    'beta-subcent': 2000,
    gamma: 200,
    delta: 200,
    epsilon: 200,
  };

  it('answers 422 naming limit for 0 and for one above its maximum, and accepts the maximum', async () => {
    for (const [v, m] of Object.entries(markets)) {
      for (const limit of [0, max[v]! + 1]) {
        const res = await get(`${path(v)}?${m}&${range()}&limit=${limit}`);
        expect(res.statusCode, `${v} limit=${limit}`).toBe(422);
        expect(detailLoc(res.body)).toEqual(['query.limit']);
      }
      expect((await get(`${path(v)}?${m}&${range()}&limit=${max[v]}`)).statusCode, v).toBe(200);
    }
  });

  it('answers 422 naming the missing market, start_time or end_time', async () => {
    for (const [v, m] of Object.entries(markets)) {
      const param = m.slice(0, m.indexOf('='));
      expect(detailLoc((await get(`${path(v)}?${range()}`)).body), v).toEqual([`query.${param}`]);
      expect(detailLoc((await get(`${path(v)}?${m}&end_time=${T0}`)).body), v).toEqual(['query.start_time']);
      expect(detailLoc((await get(`${path(v)}?${m}&start_time=${T0}`)).body), v).toEqual(['query.end_time']);
    }
  });

  it('answers 422 naming market_id when it is not an integer, and sources when it lists anything else', async () => {
    for (const v of ['delta', 'epsilon']) {
      const res = await get(`/v2/${v}/orderbooks?market_id=abc&${range()}`);
      expect(res.statusCode).toBe(422);
      expect(detailLoc(res.body)).toEqual(['query.market_id']);
    }
    for (const sources of ['book', 'rest,wss', 'rest,,ws']) {
      const res = await get(`/v2/beta/orderbooks-subcent?ticker=${TICKER}&${range()}&sources=${sources}`);
      expect(res.statusCode, sources).toBe(422);
      expect(detailLoc(res.body)).toEqual(['query.sources']);
    }
  });

  it('answers 400 naming both times when start_time is after end_time', async () => {
    for (const [v, m] of Object.entries(markets)) {
      const res = await get(`${path(v)}?${m}&start_time=${T0 + 1}&end_time=${T0}`);
      expect(res.statusCode, v).toBe(400);
      expect(res.json().message).toMatch(/start_time.*end_time/);
    }
  });

  it('answers 400 for a cursor reused with another market', async () => {
    const first = await get(`/v2/beta/orderbooks?ticker=${TICKER}&${range()}&limit=1`);
    const cursor = first.json().pagination.pagination_key as string;
    expect(cursor).toBeTruthy();
    const other = await get(
      `/v2/beta/orderbooks?ticker=${OTHER_TICKER}&${range()}&limit=1&pagination_key=${cursor}`,
    );
    expect(other.statusCode).toBe(400);
    expect(other.json().message).toMatch(/pagination_key/);
    // Nor with another venue's endpoint, nor with other sources.
    const subcent = await get(
      `/v2/beta/orderbooks-subcent?ticker=${TICKER}&${range()}&limit=1&pagination_key=${cursor}`,
    );
    expect(subcent.statusCode).toBe(400);
  });

  it('answers 404 for an unknown market of each venue and for an AMM market, naming why', async () => {
    const unknown: Record<string, string> = {
      alpha: 'token_id=999',
      beta: 'ticker=NOPE-1',
      'beta-subcent': 'ticker=NOPE-1',
      gamma: 'market_slug=nope',
      delta: 'market_id=70',
      epsilon: 'market_id=90',
    };
    for (const [v, m] of Object.entries(unknown)) {
      const res = await get(`${path(v)}?${m}&${range()}`);
      expect(res.statusCode, v).toBe(404);
      expect(res.json().message, v).toMatch(/Unknown/);
    }
    const amm = await get(`/v2/gamma/orderbooks?market_slug=${AMM_SLUG}&${range()}`);
    expect(amm.statusCode).toBe(404);
    expect(amm.json().message).toMatch(/AMM market: it has no order book/);
  });

  it('answers an empty page for a known market with nothing recorded in the range', async () => {
    for (const [v, m] of Object.entries(markets)) {
      const res = await get(`${path(v)}?${m}&${range(T0 - 10 * MIN, T0 - 5 * MIN)}`);
      expect(res.statusCode, v).toBe(200);
      expect(res.json()).toEqual({
        snapshots: [],
        pagination: { limit: 100, count: 0, pagination_key: null, has_more: false },
      });
    }
    // A token of a listed market whose books were never observed.
    expect((await get(`/v2/alpha/orderbooks?token_id=${QUIET_TOKEN}&${range()}`)).statusCode).toBe(200);
  });
});

describe('order book history: pages', () => {
  it('returns each snapshot once, oldest first, paging by 1 as at the maximum', async () => {
    const urls = [
      `/v2/alpha/orderbooks?token_id=${TOKEN}`,
      `/v2/beta/orderbooks?ticker=${TICKER}`,
      `/v2/beta/orderbooks-subcent?ticker=${TICKER}`,
      `/v2/beta/orderbooks-subcent?ticker=${TICKER}&sources=ws`,
      `/v2/gamma/orderbooks?market_slug=${SLUG}`,
      `/v2/delta/orderbooks?market_id=7`,
      `/v2/epsilon/orderbooks?market_id=9`,
    ];
    const counts = [4, 7, 14, 7, 7, 7, 7];
    for (const [i, url] of urls.entries()) {
      const whole = await pages(
        `${url}&${range()}`,
        url.includes('alpha') || url.includes('beta') ? 2000 : 200,
      );
      expect(whole, url).toHaveLength(counts[i]!);
      expect(await pages(`${url}&${range()}`, 1), url).toEqual(whole);
      const times = whole.map((s) => (s as { timestamp: number }).timestamp);
      expect(times, url).toEqual([...times].sort((a, b) => a - b));
    }
  });

  it('keeps to the range, both ends inclusive', async () => {
    const res = await get(`/v2/delta/orderbooks?market_id=7&start_time=${T0 + MIN}&end_time=${T0 + 3 * MIN}`);
    expect(res.json().snapshots.map((s: { timestamp: number }) => s.timestamp)).toEqual([
      T0 + MIN,
      T0 + 2 * MIN,
      T0 + 3 * MIN,
    ]);
  });

  it("serves alpha's books in §17.1's camelCase shape, numbers as recorded", async () => {
    const res = await get(`/v2/alpha/orderbooks?token_id=${TOKEN}&${range()}&limit=1`);
    expect(res.json().snapshots).toEqual([
      {
        asks: [
          { size: 7, price: 0.52 },
          { size: 1234.5678, price: 0.535 },
        ],
        bids: [
          { size: 100.25, price: 0.48 },
          { size: 12, price: 0.47 },
        ],
        hash: '0xhash0',
        assetId: TOKEN,
        timestamp: T0,
        tickSize: '0.001',
        indexedAt: T0 + 250,
        market: CONDITION,
      },
    ]);
  });

  it('serves gamma, delta and epsilon snapshots in their shapes, decimals exact', async () => {
    const q = `start_time=${T0}&end_time=${T0}&limit=1`;
    const levels = {
      bids: [
        { price: 0.49, size: 10.5 },
        { price: 0.48, size: 11.5 },
        { price: 0.47, size: 12.5 },
      ],
      asks: [
        { price: 0.51, size: 10.5 },
        { price: 0.52, size: 11.5 },
        { price: 0.53, size: 12.5 },
      ],
    };
    expect((await get(`/v2/gamma/orderbooks?market_slug=${SLUG}&${q}`)).json().snapshots).toEqual([
      {
        market_slug: SLUG,
        token_id: '71',
        timestamp: T0,
        ...levels,
        midpoint: 0.5,
        adjusted_midpoint: 0.505,
      },
    ]);
    const summary = { best_bid: 0.49, best_ask: 0.51, bid_depth: 34.5, ask_depth: 34.5 };
    expect((await get(`/v2/delta/orderbooks?market_id=7&${q}`)).json().snapshots).toEqual([
      { market_id: 7, token_id: '701', timestamp: T0, ...levels, ...summary },
    ]);
    expect((await get(`/v2/epsilon/orderbooks?market_id=9&${q}`)).json().snapshots).toEqual([
      { market_id: 9, timestamp: T0, ...levels, ...summary },
    ]);
  });
});

describe('beta: integer cents and sub-cent', () => {
  const SUB = 'KXSUB-26MAR-B1';
  const TS = T0 + 50 * MIN;
  const subBook: BookSnapshot = {
    market: SUB,
    token_id: '',
    ts: TS,
    // Best first. 0.455 and 0.451 floor to 45 and merge with 0.45; 0.005 floors to 0 cents (left out).
    bids: [
      { price: '0.455', size: '10.5' },
      { price: '0.451', size: '0.75' },
      { price: '0.45', size: '2' },
      { price: '0.449', size: '0.4' },
      { price: '0.005', size: '1000' },
    ],
    // 0.461 ceils to 47, 0.47 is 47: merged; 0.999 ceils to 100 (left out).
    asks: [
      { price: '0.461', size: '1.25' },
      { price: '0.47', size: '3.5' },
      { price: '0.5', size: '0.99' },
      { price: '0.999', size: '5' },
    ],
  };

  beforeAll(async () => {
    await t.deps.clickhouse.insert('test.markets', 'beta_markets', [
      { ticker: SUB, status: 'open', observed_at: chTime(T0) },
    ]);
    await insertSnapshots([{ venue: 'beta', source: 'rest', snapshot: subBook, observedAt: TS + 1 }]);
  });

  it('rounds a sub-cent book to whole cents: bids floored, asks ceiled, merged, whole contracts', async () => {
    const res = await get(`/v2/beta/orderbooks?ticker=${SUB}&${range()}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().snapshots).toEqual([
      {
        ticker: SUB,
        timestamp: TS,
        // 45: 10.5 + 0.75 + 2 = 13.25 → 13; 44: 0.4 → 0 whole contracts (left out).
        yes_bids: [{ price: 45, size: 13 }],
        // 47: 1.25 + 3.5 = 4.75 → 4; 50: 0.99 → 0 (left out).
        yes_asks: [{ price: 47, size: 4 }],
        best_bid: 45,
        best_ask: 47,
        bid_depth: 13,
        ask_depth: 4,
        sequence: TS + 1,
      },
    ]);
  });

  it('serves the same book exactly in the sub-cent endpoint, with its source', async () => {
    const res = await get(`/v2/beta/orderbooks-subcent?ticker=${SUB}&${range()}&sources=ws,rest`);
    expect(res.json().snapshots).toEqual([
      {
        ticker: SUB,
        timestamp: TS,
        source: 'rest',
        yes_bids: subBook.bids.map((l) => ({ price: Number(l.price), size: Number(l.size) })),
        yes_asks: subBook.asks.map((l) => ({ price: Number(l.price), size: Number(l.size) })),
        best_bid: 0.455,
        best_ask: 0.461,
        bid_depth: 1013.65,
        ask_depth: 10.74,
        sequence: TS + 1,
      },
    ]);
  });

  it('serves null best prices and zero depths for an empty side', async () => {
    const res = await get(`/v2/beta/orderbooks?ticker=${SUB}&${range()}`);
    expect(res.json().snapshots[0].best_bid).toBe(45);
    const EMPTY = 'KXSUB-26MAR-EMPTY';
    await insertSnapshots([
      {
        venue: 'beta',
        source: 'rest',
        snapshot: { market: EMPTY, token_id: '', ts: TS, bids: [], asks: [{ price: '0.6', size: '3' }] },
        observedAt: TS,
      },
    ]);
    const body = (await get(`/v2/beta/orderbooks?ticker=${EMPTY}&${range()}`)).json();
    expect(body.snapshots[0]).toMatchObject({ yes_bids: [], best_bid: null, bid_depth: 0, best_ask: 60 });
  });
});

describe('order book history: OpenAPI and cache', () => {
  it('lists the six routes, the integer-cent one deprecated', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const paths = Object.keys(doc.paths).filter((p) => p.includes('orderbooks'));
    expect(paths.sort()).toEqual(
      [
        '/v2/alpha/orderbooks',
        '/v2/beta/orderbooks',
        '/v2/beta/orderbooks-subcent',
        '/v2/delta/orderbooks',
        '/v2/epsilon/orderbooks',
        '/v2/gamma/orderbooks',
      ].sort(),
    );
    expect(doc.paths['/v2/beta/orderbooks'].get.deprecated).toBe(true);
    expect(doc.paths['/v2/beta/orderbooks-subcent'].get.deprecated).toBeUndefined();
  });

  it('keeps an answer until books:<venue> is bumped, then serves the new snapshot', async () => {
    const url = `/v2/epsilon/orderbooks?market_id=9&${range()}&limit=200`;
    const before = await get(url);
    expect(before.json().snapshots).toHaveLength(7);
    // Written without a bump (a manual insert): the cached answer stays.
    await insertSnapshots([
      {
        venue: 'epsilon',
        source: 'rest',
        snapshot: book('9', '', T0 + 20 * MIN, 20),
        observedAt: T0 + 20 * MIN,
      },
    ]);
    expect((await get(url)).body).toBe(before.body);
    // The writer bumps books:epsilon: the next answer has both new snapshots.
    const versions = createDataVersions({ redis: t.deps.redis });
    await recordSnapshots(t.deps.clickhouse, [book('9', '', T0 + 21 * MIN, 21)], {
      venue: 'epsilon',
      source: 'rest',
      observedAt: T0 + 21 * MIN,
      keepaliveMs: 900_000,
      versions,
    });
    expect((await get(url)).json().snapshots).toHaveLength(9);
    // Another venue's bump leaves it alone.
    await insertSnapshots([
      {
        venue: 'epsilon',
        source: 'rest',
        snapshot: book('9', '', T0 + 22 * MIN, 22),
        observedAt: T0 + 22 * MIN,
      },
    ]);
    await versions.bump('books:delta');
    expect((await get(url)).json().snapshots).toHaveLength(9);
    await versions.bump('books:epsilon');
    expect((await get(url)).json().snapshots).toHaveLength(10);
  });
});
