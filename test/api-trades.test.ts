import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type App, buildApp } from '../api/app.ts';
import type { ClickHouse } from '../core/clickhouse/index.ts';
import type { Trade } from '../schemas/api/alpha-trades.ts';
import {
  type ApiTestContext,
  addr,
  bytes32,
  createApiTestContext,
  fillRow,
  TEST_SECRET,
} from './api-helpers.ts';
import { testConfig } from './support/deps.ts';

let t: ApiTestContext;
let key: string;

const A = addr(0xa);
const B = addr(0xb);
const C = addr(0xc);
const SHARED_TX = bytes32(0x7777);
const SHARED_ORDER = bytes32(0x8888);
const BUILDER = bytes32(0xb0b);
const COND_X = bytes32(0xc1);
const COND_Y = bytes32(0xc2);

interface Page {
  trades: Trade[];
  pagination: { limit: number; count: number; pagination_key: string | null; has_more: boolean };
}

async function get(url: string, apiKey: string | null = key) {
  return t.app.inject({ method: 'GET', url, headers: apiKey ? { 'x-api-key': apiKey } : {} });
}

async function page(url: string): Promise<Page> {
  const res = await get(url);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Page;
}

beforeAll(async () => {
  t = await createApiTestContext('api_trades', {
    marketSlugs: {
      conditionIds: async (slug) => (slug === 'will-x-happen' ? [COND_X] : []),
      slugs: async (ids) => new Map(ids.filter((c) => c === COND_X).map((c) => [c, 'will-x-happen'])),
    },
  });
  // The Pro tier's 100 req/s leaves the assertions below clear of rate limits.
  key = await t.key('pro');
  const rows = [];
  // Wallet A: 137 fills over 70 blocks, several per block (ties broken by log_index), both tokens.
  for (let i = 0; i < 137; i++) {
    const block = 100 + Math.floor(i / 2);
    rows.push(
      fillRow({
        block,
        logIndex: 10 + (i % 2) * 5,
        maker: A,
        tokenId: i % 3 === 0 ? '2002' : '1001',
        conditionId: i % 3 === 0 ? COND_Y : COND_X,
        role: i % 4 === 0 ? 'taker' : 'maker',
        usd: 1_000_000 * (i + 1),
        shares: 2_000_000 * (i + 1),
      }),
    );
  }
  // Wallet B: 60 fills interleaved in the same blocks; V2 with a builder on half of them.
  for (let i = 0; i < 60; i++) {
    rows.push(
      fillRow({
        block: 100 + i,
        logIndex: 12,
        maker: B,
        version: 2,
        builder: i % 2 === 0 ? BUILDER : '',
        metadata: i % 2 === 0 ? bytes32(0xabc) : '',
        side: 'SELL',
      }),
    );
  }
  // Wallet C and one transaction with three fills (A, B, C) of one order hash for two of them.
  for (let i = 0; i < 10; i++) rows.push(fillRow({ block: 300 + i, logIndex: 1, maker: C }));
  rows.push(fillRow({ block: 400, logIndex: 1, maker: A, txHash: SHARED_TX, orderHash: SHARED_ORDER }));
  rows.push(fillRow({ block: 400, logIndex: 2, maker: B, txHash: SHARED_TX, orderHash: SHARED_ORDER }));
  rows.push(fillRow({ block: 400, logIndex: 3, maker: C, txHash: SHARED_TX, role: 'taker' }));
  await t.deps.clickhouse.insert('test.fills', 'alpha_fills', rows);
  await t.deps.clickhouse.insert('test.tokens', 'alpha_tokens', [
    {
      chain_id: 137,
      token_id: '1001',
      condition_id: COND_X,
      outcome_index: 0,
      complement_token_id: '1002',
      neg_risk: false,
      source: 'condition_prepared',
      block_number: 1,
      tx_hash: bytes32(1),
      log_index: 0,
    },
    {
      chain_id: 137,
      token_id: '2002',
      condition_id: COND_Y,
      outcome_index: 0,
      complement_token_id: '2003',
      neg_risk: false,
      source: 'condition_prepared',
      block_number: 1,
      tx_hash: bytes32(1),
      log_index: 1,
    },
  ]);
  // The app learns token → condition in the background (api/queries/alpha/tokens.ts, about every second):
  // wait until it knows the tokens just inserted. B's fills carry condition_id '' (token 1001 → COND_X).
  // Each poll asks another page size, so no response cache can answer it.
  let poll = 0;
  await vi.waitFor(
    async () => {
      const p = await page(`/v2/alpha/trades?wallet=${B}&limit=${1 + (poll++ % 200)}`);
      expect(p.trades[0]!.condition_id).toBe(COND_X);
    },
    { timeout: 15_000, interval: 100 },
  );
});
afterAll(async () => t?.close());

const sortKey = (r: Trade) => r.block_number * 1e6 + r.log_index;

describe('GET /v2/alpha/trades', () => {
  it('answers newest first with exchange_version, role, builder and metadata on every row', async () => {
    const res = await get('/v2/alpha/trades?limit=20');
    expect(res.statusCode).toBe(200);
    expect(res.headers['ratelimit-limit']).toBe('100');
    expect(Number(res.headers['ratelimit-remaining'])).toBeGreaterThanOrEqual(0);
    expect(res.headers['ratelimit-reset']).toMatch(/^\d+$/);
    const body = res.json() as Page;
    expect(body.pagination).toMatchObject({ limit: 20, count: 20, has_more: true });
    expect(Object.keys(body.pagination).sort()).toEqual(['count', 'has_more', 'limit', 'pagination_key']);
    const keys = body.trades.map(sortKey);
    expect(keys).toEqual([...keys].sort((a, b) => b - a));
    expect(body.trades[0]).toMatchObject({
      block_number: 400,
      log_index: 3,
      role: 'taker',
      tx_hash: SHARED_TX,
    });
    for (const r of body.trades) {
      expect([1, 2]).toContain(r.exchange_version);
      expect(['maker', 'taker']).toContain(r.role);
      expect(typeof r.builder).toBe('string');
      expect(typeof r.metadata).toBe('string');
    }
    const v2 = (await page(`/v2/alpha/trades?wallet=${B}&limit=200`)).trades.filter(
      (r) => r.block_number < 400,
    );
    expect(v2.every((r) => r.exchange_version === 2)).toBe(true);
    expect(v2.filter((r) => r.builder === BUILDER)).toHaveLength(30);
    expect(v2.find((r) => r.builder === BUILDER)?.metadata).toBe(bytes32(0xabc));
    expect(v2.find((r) => r.builder === '')?.metadata).toBe('');
  });

  it('converts base units to numbers: total, shares and price', async () => {
    const rows = (await page(`/v2/alpha/trades?wallet=${A}&order=asc&limit=1`)).trades;
    expect(rows[0]).toMatchObject({
      total: 1,
      shares: 2,
      price: 0.5,
      side: 'BUY',
      maker: A,
      fee_asset: 'shares',
    });
    const v2 = (await page(`/v2/alpha/trades?wallet=${B}&order=asc&limit=1`)).trades;
    expect(v2[0]).toMatchObject({ exchange_version: 2, side: 'SELL', fee_asset: 'collateral', price: 0.5 });
  });

  it('rounds price to 6 decimals: 1 USD for 3 shares is 0.333333, a fee-noisy taker row 0.535', async () => {
    const wallet = addr(0x3333);
    await t.deps.clickhouse.insert('test.fills.noise', 'alpha_fills', [
      fillRow({ block: 9_000_001, logIndex: 1, maker: wallet, usd: 1_000_000, shares: 3_000_000 }),
      fillRow({
        block: 9_000_002,
        logIndex: 1,
        maker: wallet,
        usd: 5_350_003,
        shares: 10_000_000,
        role: 'taker',
      }),
    ]);
    const rows = (await page(`/v2/alpha/trades?wallet=${wallet}&order=asc&limit=2`)).trades;
    expect(rows.map((r) => r.price)).toEqual([0.333333, 0.535]);
  });

  it('yields identical rows and pagination keys for the same wallet list in any order with duplicates', async () => {
    const p1 = await page(`/v2/alpha/trades?wallet=${A},${B},${C}&limit=25`);
    const p2 = await page(
      `/v2/alpha/trades?wallet=${C.toUpperCase().replace('0X', '0x')},${B},${A},${B},%20${C}&limit=25`,
    );
    expect(p2).toEqual(p1);
    expect(p1.pagination.pagination_key).not.toBeNull();
    const k = encodeURIComponent(p1.pagination.pagination_key!);
    const n1 = await page(`/v2/alpha/trades?wallet=${A},${B},${C}&limit=25&pagination_key=${k}`);
    const n2 = await page(`/v2/alpha/trades?wallet=${B},${C},${A},${A}&limit=25&pagination_key=${k}`);
    expect(n2).toEqual(n1);
    expect(n1.trades[0]!.block_number).toBeLessThanOrEqual(p1.trades[24]!.block_number);
  });

  it('pages through every trade of a wallet exactly once, with an exact has_more', async () => {
    const seen: string[] = [];
    let url = `/v2/alpha/trades?wallet=${A}&limit=7`;
    let pages = 0;
    for (;;) {
      const p = await page(url);
      pages++;
      for (const r of p.trades) {
        expect(r.maker).toBe(A);
        seen.push(`${r.tx_hash}:${r.log_index}`);
      }
      if (!p.pagination.has_more) {
        expect(p.pagination.pagination_key).toBeNull();
        break;
      }
      expect(p.pagination.count).toBe(7);
      url = `/v2/alpha/trades?wallet=${A}&limit=7&pagination_key=${encodeURIComponent(p.pagination.pagination_key!)}`;
    }
    expect(seen).toHaveLength(138);
    expect(new Set(seen).size).toBe(138);
    expect(pages).toBe(Math.ceil(138 / 7));
  });

  it('pages oldest first exactly once with order=asc', async () => {
    const keys: number[] = [];
    let url = `/v2/alpha/trades?wallet=${B}&order=asc&limit=7`;
    for (;;) {
      const p = await page(url);
      keys.push(...p.trades.map(sortKey));
      if (!p.pagination.has_more) break;
      url = `/v2/alpha/trades?wallet=${B}&order=asc&limit=7&pagination_key=${encodeURIComponent(p.pagination.pagination_key!)}`;
    }
    expect(keys).toHaveLength(61);
    expect(keys).toEqual([...new Set(keys)].sort((a, b) => a - b));
  });

  it('reports has_more false when the last page is exactly full', async () => {
    const p = await page(`/v2/alpha/trades?wallet=${C}&limit=11`);
    expect(p.pagination).toEqual({ limit: 11, count: 11, pagination_key: null, has_more: false });
  });

  it('merges several wallets into one time-ordered feed, oldest first with order=asc', async () => {
    const desc = await page(`/v2/alpha/trades?wallet=${A},${B}&limit=200`);
    expect(new Set(desc.trades.map((r) => r.maker))).toEqual(new Set([A, B]));
    const keys = desc.trades.map(sortKey);
    expect(keys).toEqual([...keys].sort((a, b) => b - a));
    const asc = await page(`/v2/alpha/trades?wallet=${A},${B}&limit=200&order=asc`);
    const ascKeys = asc.trades.map(sortKey);
    expect(ascKeys).toEqual([...ascKeys].sort((a, b) => a - b));
    expect(asc.trades[0]!.block_number).toBe(100);
  });

  it('finds every fill of a transaction by tx_hash, alone or with other filters', async () => {
    const all = await page(`/v2/alpha/trades?tx_hash=${SHARED_TX.toUpperCase().replace('0X', '0x')}`);
    expect(all.trades.map((r) => r.maker).sort()).toEqual([A, B, C].sort());
    const withWallet = await page(`/v2/alpha/trades?tx_hash=${SHARED_TX}&wallet=${B}`);
    expect(withWallet.trades.map((r) => r.maker)).toEqual([B]);
    const byOrder = await page(`/v2/alpha/trades?order_hash=${SHARED_ORDER}`);
    expect(byOrder.trades.map((r) => r.log_index)).toEqual([2, 1]);
    const none = await page(`/v2/alpha/trades?tx_hash=${bytes32(0x1234567)}`);
    expect(none.trades).toEqual([]);
  });

  it('filters by token, condition, builder, role, minimum total and time range', async () => {
    const token = await page(`/v2/alpha/trades?token_id=2002&limit=200`);
    expect(token.trades.length).toBe(46);
    expect(token.trades.every((r) => r.token_id === '2002')).toBe(true);
    const cond = await page(`/v2/alpha/trades?condition_id=${COND_Y}&limit=200`);
    expect(cond.trades.map(sortKey)).toEqual(token.trades.map(sortKey));
    const builder = await page(`/v2/alpha/trades?builder=${BUILDER}&limit=200`);
    expect(builder.trades).toHaveLength(30);
    const takers = await page(`/v2/alpha/trades?wallet=${A}&role=taker&limit=200`);
    expect(takers.trades.every((r) => r.role === 'taker')).toBe(true);
    expect(takers.trades).toHaveLength(35);
    const big = await page(`/v2/alpha/trades?wallet=${A}&min_total=130&limit=200`);
    expect(big.trades.map((r) => r.total).sort((a, b) => a - b)).toEqual([
      130, 131, 132, 133, 134, 135, 136, 137,
    ]);
    // Blocks are 2 s apart from 1_700_000_000: blocks 110..119 inclusive.
    const range = await page(
      `/v2/alpha/trades?wallet=${B}&start_time=${1_700_000_000 + 220}&end_time=${1_700_000_000 + 238}&limit=200`,
    );
    expect(range.trades.map((r) => r.block_number)).toEqual([
      119, 118, 117, 116, 115, 114, 113, 112, 111, 110,
    ]);
  });

  it('filters by market slug, and answers an unknown slug with an empty page', async () => {
    const known = await page('/v2/alpha/trades?market_slug=will-x-happen&limit=200');
    expect(known.trades.length).toBeGreaterThan(0);
    expect(known.trades.every((r) => r.token_id === '1001' && r.market_slug === 'will-x-happen')).toBe(true);
    const unknown = await page('/v2/alpha/trades?market_slug=no-such-market');
    expect(unknown).toEqual({
      trades: [],
      pagination: { limit: 50, count: 0, pagination_key: null, has_more: false },
    });
  });
});

describe('GET /v2/alpha/trades errors', () => {
  const bad = async (url: string, status: number) => {
    const res = await get(url);
    expect(res.statusCode, res.body).toBe(status);
    return res.json();
  };

  it('answers 51 distinct wallets with 400, and accepts 50 with duplicates', async () => {
    const wallets = Array.from({ length: 51 }, (_, i) => addr(0x1000 + i));
    const body = await bad(`/v2/alpha/trades?wallet=${wallets.join(',')}`, 400);
    expect(body).toEqual({ error: 'Bad Request', message: expect.stringContaining('at most 50') });
    const fifty = wallets.slice(0, 50);
    await bad(`/v2/alpha/trades?wallet=${[...fifty, ...fifty].join(',')}`, 200);
  });

  it('answers an invalid address with 400 naming it', async () => {
    const body = await bad(`/v2/alpha/trades?wallet=${A},0x12345zz`, 400);
    expect(body.error).toBe('Bad Request');
    expect(body.message).toContain('0x12345zz');
  });

  it('answers a malformed tx_hash, order_hash, condition_id or builder with 400 naming the parameter', async () => {
    for (const [param, value] of [
      ['tx_hash', '0x1234'],
      ['order_hash', `${SHARED_ORDER}00`],
      ['condition_id', 'abc'],
      ['builder', `0x${'g'.repeat(64)}`],
    ] as const) {
      const body = await bad(`/v2/alpha/trades?${param}=${value}`, 400);
      expect(body).toEqual({ error: 'Bad Request', message: expect.stringContaining(param) });
    }
  });

  it('answers a pagination_key reused with changed filters with 400', async () => {
    const p = await page(`/v2/alpha/trades?wallet=${A}&limit=5`);
    const k = encodeURIComponent(p.pagination.pagination_key!);
    for (const changed of [
      `wallet=${B}`,
      `wallet=${A},${B}`,
      `wallet=${A}&order=asc`,
      `wallet=${A}&min_total=1`,
      `wallet=${A}&token_id=1001`,
    ]) {
      const body = await bad(`/v2/alpha/trades?${changed}&limit=5&pagination_key=${k}`, 400);
      expect(body.message).toMatch(/other filters/);
    }
    // The page size may change between pages.
    await bad(`/v2/alpha/trades?wallet=${A}&limit=9&pagination_key=${k}`, 200);
  });

  it('answers a tampered or foreign pagination_key with 400', async () => {
    const p = await page(`/v2/alpha/trades?wallet=${A}&limit=5`);
    const raw = Buffer.from(p.pagination.pagination_key!, 'base64url');
    const forged = Buffer.from(raw.toString('utf8').replace(/"k":\["\d+"/, '"k":["999999"'), 'utf8');
    await bad(`/v2/alpha/trades?wallet=${A}&pagination_key=${forged.toString('base64url')}`, 400);
    await bad(`/v2/alpha/trades?wallet=${A}&pagination_key=not-a-key`, 400);
    await bad(`/v2/alpha/trades?wallet=${A}&pagination_key=${encodeURIComponent('a+b/c=')}`, 400);
  });

  it('accepts offset=0 and answers any other offset with 400', async () => {
    await bad('/v2/alpha/trades?offset=0', 200);
    const body = await bad('/v2/alpha/trades?offset=50', 400);
    expect(body.message).toMatch(/offset/);
  });

  it('answers start_time after end_time with 400', async () => {
    await bad('/v2/alpha/trades?start_time=200&end_time=100', 400);
  });

  it('answers schema violations with 422 naming each field', async () => {
    const body = await bad('/v2/alpha/trades?limit=0&order=up&token_id=abc&min_total=-1&offset=-1', 422);
    const locs = (body.detail as { loc: string[] }[]).map((d) => d.loc.join('.')).sort();
    expect(locs).toEqual(['query.limit', 'query.min_total', 'query.offset', 'query.order', 'query.token_id']);
    const over = await bad('/v2/alpha/trades?limit=201', 422);
    expect(over.detail).toEqual([
      { loc: ['query', 'limit'], msg: 'Input should be less than or equal to 200', type: 'less_than_equal' },
    ]);
  });

  it('answers a missing, unknown or revoked key with 401 and no rate-limit headers', async () => {
    const missing = await get('/v2/alpha/trades', null);
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toEqual({ error: 'Unauthorized', message: expect.stringContaining('x-api-key') });
    const unknown = await get('/v2/alpha/trades', 'pmd_not-a-real-key');
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().error).toBe('Unauthorized');
    const { key: doomed, record } = await t.keys.create({ tier: 'dev', name: 'doomed' });
    expect((await get('/v2/alpha/trades?limit=1', doomed)).statusCode).toBe(200);
    await t.keys.revoke(record.id);
    const revoked = await get('/v2/alpha/trades?limit=1', doomed);
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json()).toEqual({ error: 'Unauthorized', message: expect.stringContaining('revoked') });
    expect(revoked.headers['ratelimit-limit']).toBeUndefined();
  });

  it('answers a misspelt path with a JSON 404', async () => {
    const res = await get('/v2/alpha/trade');
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('Not Found');
  });
});

describe('GET /v2/alpha/trades reads', () => {
  const D = addr(0xd);
  const COND_Z = bytes32(0xc3);
  let app: App;
  /** Labels of the ClickHouse reads the app ran (the real engine answers them: this only records). */
  let reads: string[];

  beforeAll(async () => {
    reads = [];
    const clickhouse: ClickHouse = {
      ...t.deps.clickhouse,
      read: (label, sql, params) => {
        reads.push(label);
        return t.deps.clickhouse.read(label, sql, params);
      },
      query: (label, sql, params) => {
        reads.push(label);
        return t.deps.clickhouse.query(label, sql, params);
      },
    };
    const config = testConfig('api_trades', { API_CACHE_BYTES: '0' });
    app = await buildApp({ ...t.deps, config, clickhouse, secret: TEST_SECRET });
  });
  afterAll(async () => app?.close());

  /** One request's reads, apart from the token map's background refresh. */
  async function requestReads(url: string) {
    reads = [];
    const res = await app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    expect(res.statusCode, res.body).toBe(200);
    return { body: res.json() as Page, reads: reads.filter((l) => !l.startsWith('api.alpha.tokens.')) };
  }

  it('maps a token learnt after start once the background refresh ran, with one read per request', async () => {
    // A fill ingested before its token's condition was known (condition_id ''), of a token not known yet.
    await t.deps.clickhouse.insert('test.fills', 'alpha_fills', [
      fillRow({ block: 50, logIndex: 1, maker: D, tokenId: '3003' }),
    ]);
    const before = await requestReads(`/v2/alpha/trades?wallet=${D}`);
    expect(before.reads).toEqual(['api.alpha.trades']);
    expect(before.body.trades[0]).toMatchObject({ token_id: '3003', condition_id: null, outcome_index: 0 });

    await t.deps.clickhouse.insert('test.tokens', 'alpha_tokens', [
      {
        chain_id: 137,
        token_id: '3003',
        condition_id: COND_Z,
        outcome_index: 1,
        complement_token_id: '3004',
        neg_risk: false,
        source: 'condition_prepared',
        block_number: 50,
        tx_hash: bytes32(50),
        log_index: 0,
      },
    ]);
    await vi.waitFor(
      async () => {
        const after = await requestReads(`/v2/alpha/trades?wallet=${D}`);
        expect(after.reads).toEqual(['api.alpha.trades']);
        expect(after.body.trades[0]).toMatchObject({ token_id: '3003', condition_id: COND_Z });
      },
      { timeout: 15_000, interval: 100 },
    );
  });

  it('answers a page of many wallets and tokens with one read', async () => {
    const r = await requestReads(`/v2/alpha/trades?wallet=${A},${B},${C}&limit=200`);
    expect(r.body.trades.length).toBe(200);
    expect(r.reads).toEqual(['api.alpha.trades']);
    const slug = await requestReads('/v2/alpha/trades?market_slug=no-such-market');
    expect(slug.reads).toEqual([]);
  });
});
