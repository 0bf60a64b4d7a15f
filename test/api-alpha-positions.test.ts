/**
 * The position endpoints of venue alpha (`/v2/alpha/positions`, `/v2/alpha/wallet/positions/{wallet}`,
 * `/v2/alpha/position/{token_id}/top-holders`) against rows written straight into alpha_positions,
 * alpha_token_prices, alpha_tokens and alpha_market_list: every parameter, bound, default and sort, the
 * 400 and 422 rules, each position paged exactly once, the derived numbers (base units ÷ 1e6 and the
 * brief's rules, recomputed here from the seeded integers), FINAL (superseded and deleted versions never
 * served), ranks across pages and the 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataVersions } from '../core/data-version.ts';
import type {
  AllUsersPosition,
  Position,
  PositionsSummary,
  TopHolderEntry,
} from '../schemas/api/alpha-positions.ts';
import { type ApiTestContext, addr, bytes32, chTime, createApiTestContext } from './api-helpers.ts';

let t: ApiTestContext;
let key: string;

// ---- the world ----------------------------------------------------------------------------------------

const C1 = bytes32(0xc1);
const C2 = bytes32(0xc2);
const C3 = bytes32(0xc3);
/** token → condition, outcome index; T1..T4 are in the catalog, T5/T6 (C3) are not. */
const TOKENS: Record<string, { condition: string; index: number }> = {
  '1001': { condition: C1, index: 0 },
  '1002': { condition: C1, index: 1 },
  '2001': { condition: C2, index: 0 },
  '2002': { condition: C2, index: 1 },
  '3001': { condition: C3, index: 0 },
  '3002': { condition: C3, index: 1 },
};
/** Known to alpha_tokens, no position at all. */
const EMPTY_TOKEN = '4001';
/** Current prices: a fill, a book, two payouts, none (3001: no row), a fill with many decimals. */
const PRICES: Record<string, { price: number | null; source: string }> = {
  '1001': { price: 0.6, source: 'fill' },
  '1002': { price: 0.4, source: 'book' },
  '2001': { price: 1, source: 'payout' },
  '2002': { price: 0, source: 'payout' },
  '3002': { price: 0.123457, source: 'fill' },
};
const CATALOG: Record<string, { slug: string; title: string; labels: string[] }> = {
  [C1]: { slug: 'trump-2028', title: 'Will Trump win in 2028?', labels: ['Trump wins', 'Trump loses'] },
  [C2]: { slug: 'rain-tomorrow', title: 'Rain tomorrow?', labels: ['Yes', 'No'] },
};

interface Pos {
  wallet: string;
  token: string;
  shares: number;
  avg: number;
  realized: number;
  bought: number;
  boughtUsd: number;
  fees: number;
  fills: number;
  firstFill: number | null;
  lastFill: number | null;
  firstBlock: number;
  lastBlock: number;
  logIndex: number;
  batchIndex: number;
}

const timeOf = (block: number) => 1_700_000_000 + block * 2;
const W = addr(0xabc);

/** The wallet under study: numbers chosen so the expected figures are easy to read. */
const WALLET_POSITIONS: Pos[] = [
  pos(W, '1001', { shares: 10_000_000, avg: 500_000, realized: 2_000_000, fees: 100_000, lastBlock: 150 }),
  pos(W, '1002', { shares: 4_000_000, avg: 450_000, realized: -1_500_000, fees: 50_000, lastBlock: 151 }),
  pos(W, '2001', { shares: 2_500_000, avg: 300_000, realized: 0, lastBlock: 152, firstBlock: 90 }),
  pos(W, '2002', { shares: 0, avg: 0, realized: -700_000, fees: 20_000, lastBlock: 153, firstFill: null }),
  pos(W, '3001', { shares: 7_000_000, avg: 333_333, realized: 0, lastBlock: 154, firstBlock: 90 }),
  pos(W, '3002', { shares: 3_000_001, avg: 100_001, realized: 55, lastBlock: 155 }),
];

function pos(wallet: string, token: string, o: Partial<Pos>): Pos {
  const lastBlock = o.lastBlock ?? 100;
  return {
    wallet,
    token,
    shares: 0,
    avg: 0,
    realized: 0,
    bought: (o.shares ?? 0) + 1_000_000,
    boughtUsd: 2_500_000,
    fees: 0,
    fills: 3,
    firstFill: o.firstFill === null ? null : timeOf(o.firstBlock ?? 80),
    lastFill: o.firstFill === null ? null : timeOf(lastBlock),
    firstBlock: 80,
    lastBlock,
    logIndex: 0,
    batchIndex: 0,
    ...o,
  } as Pos;
}

/** Other wallets: 24 × 6 tokens (some skipped), last blocks and shares repeating (ties). */
function worldPositions(): Pos[] {
  const out: Pos[] = [];
  const tokens = Object.keys(TOKENS);
  for (let i = 0; i < 24; i++) {
    tokens.forEach((token, j) => {
      if ((i + j) % 3 === 0) return;
      out.push(
        pos(addr(0x100 + i), token, {
          shares: ((i * 5 + j) % 4) * 1_500_000,
          // From −0.1 (a conversion's negative yes price, docs/positions.md) to 0.7, 0 included.
          avg: 100_000 * (((i + j) % 9) - 1),
          realized: ((i * 3 + j) % 5) * 250_000 - 500_000,
          fees: j * 10_000,
          fills: i + j,
          firstBlock: 50 + i,
          lastBlock: 100 + ((i * 7 + j * 3) % 5),
          logIndex: (i + j) % 2,
          batchIndex: j % 2,
        }),
      );
    });
  }
  return out;
}

/** The current version of every position (what the endpoints must serve). */
let current: Pos[];

function positionRow(p: Pos, version: number, deleted = 0) {
  const token = TOKENS[p.token]!;
  return {
    chain_id: 137,
    wallet: p.wallet,
    token_id: p.token,
    condition_id: token.condition,
    outcome_index: token.index,
    shares: p.shares,
    avg_price: p.avg,
    realized_pnl: p.realized,
    total_bought: p.bought,
    total_bought_usd: p.boughtUsd,
    net_fees: p.fees,
    fills: p.fills,
    first_fill_at: p.firstFill === null ? null : chTime(p.firstFill),
    last_fill_at: p.lastFill === null ? null : chTime(p.lastFill),
    opened_at: chTime(timeOf(p.firstBlock)),
    open_realized_pnl: 0,
    first_block: p.firstBlock,
    first_at: chTime(timeOf(p.firstBlock)),
    last_block: p.lastBlock,
    last_log_index: p.logIndex,
    last_batch_index: p.batchIndex,
    last_block_hash: bytes32(p.lastBlock),
    last_at: chTime(timeOf(p.lastBlock)),
    version,
    deleted,
  };
}

beforeAll(async () => {
  t = await createApiTestContext('api_alpha_positions');
  key = await t.key('pro', 100_000);
  current = [...WALLET_POSITIONS, ...worldPositions()];
  const ch = t.deps.clickhouse;
  await ch.insert(
    'test.tokens',
    'alpha_tokens',
    [...Object.entries(TOKENS), [EMPTY_TOKEN, { condition: bytes32(0xc4), index: 0 }] as const].map(
      ([token, v]) => ({
        chain_id: 137,
        token_id: token,
        condition_id: v.condition,
        outcome_index: v.index,
        complement_token_id: '',
        neg_risk: false,
        source: 'test',
        block_number: 1,
        tx_hash: bytes32(1),
        log_index: 0,
      }),
    ),
  );
  // Older versions first, in parts of their own: FINAL must pick the newest and drop deleted ones.
  const superseded = pos(W, '1001', { shares: 99_000_000, avg: 900_000, lastBlock: 999 });
  const gone = pos(W, '1002', { shares: 1_000_000, avg: 1, lastBlock: 150 });
  const goneWorld = { ...gone, wallet: addr(0xdead) };
  // Held before, closed now: filters on shares apply to the newest version only.
  const wasOpen = pos(W, '2002', { shares: 5_000_000, avg: 200_000, lastBlock: 140 });
  await ch.insert('test.positions.v1', 'alpha_positions', [
    positionRow(superseded, 1),
    positionRow(gone, 1),
    positionRow(goneWorld, 1),
    positionRow(wasOpen, 1),
  ]);
  await ch.insert(
    'test.positions.v2',
    'alpha_positions',
    current.map((p) => positionRow(p, 2)),
  );
  // A position deleted by a reorg: its newest version carries deleted = 1.
  await ch.insert('test.positions.v3', 'alpha_positions', [positionRow(goneWorld, 3, 1)]);
  await ch.insert(
    'test.prices.v1',
    'alpha_token_prices',
    Object.keys(PRICES).map((token) => ({
      token_id: token,
      condition_id: TOKENS[token]!.condition,
      price: 0.99,
      source: 'fill',
      priced_at: chTime(1_700_000_000),
      version: 1,
    })),
  );
  await ch.insert(
    'test.prices.v2',
    'alpha_token_prices',
    Object.entries(PRICES).map(([token, p]) => ({
      token_id: token,
      condition_id: TOKENS[token]!.condition,
      price: p.price,
      source: p.source,
      priced_at: chTime(1_700_000_100),
      version: 2,
    })),
  );
  await ch.insert(
    'test.markets',
    'alpha_market_list',
    Object.entries(CATALOG).map(([condition, m], i) => ({
      market_id: String(500 + i),
      // The catalog keeps the metadata's case: matched lowercase.
      condition_id: i === 1 ? condition.toUpperCase().replace('0X', '0x') : condition,
      slug: m.slug,
      title: m.title,
      event_id: 'e1',
      token_ids: Object.keys(TOKENS).filter((tk) => TOKENS[tk]!.condition === condition),
      doc: JSON.stringify({
        condition_id: condition,
        market_slug: m.slug,
        outcomes: m.labels.map((label) => ({ label, token_id: null, canonical_id: null, price: null })),
      }),
    })),
  );
});
afterAll(async () => t?.close());

// ---- expected figures (the brief's rules, from the seeded integers) -----------------------------------

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

function expected(p: Pos): { position: Position; total: number } {
  const token = TOKENS[p.token]!;
  const pr = PRICES[p.token];
  const catalog = CATALOG[token.condition];
  const price = pr?.price ?? p.avg / 1e6;
  const costMicro = Math.round((p.shares * p.avg) / 1e6);
  const valueMicro = pr ? Math.round(p.shares * price) : costMicro;
  const unrealMicro = pr ? Math.round(p.shares * price - (p.shares * p.avg) / 1e6) : 0;
  const status =
    pr?.source === 'payout' ? (pr.price! > 0 ? 'resolved_win' : 'resolved_loss') : ('open' as const);
  return {
    total: p.realized + unrealMicro,
    position: {
      market: {
        condition_id: token.condition,
        market_slug: catalog?.slug ?? '',
        title: catalog?.title ?? '',
        side: token.index === 0 ? 'YES' : 'NO',
        side_label: catalog?.labels[token.index] ?? (token.index === 0 ? 'Yes' : 'No'),
        token_id: p.token,
        status,
      },
      position: {
        shares: p.shares / 1e6,
        total_shares_bought: p.bought / 1e6,
        total_bought_usd: p.boughtUsd / 1e6,
        avg_entry_price: p.avg / 1e6,
        total_cost_usd: costMicro / 1e6,
        net_fees_usd: p.fees / 1e6,
      },
      current: { price, value_usd: valueMicro / 1e6 },
      pnl: {
        unrealized_usd: unrealMicro / 1e6,
        // Against the cost basis, with the unrealized P&L's sign (a negative avg included); 0 at a 0 cost.
        unrealized_pct: costMicro === 0 ? 0 : round6((unrealMicro / Math.abs(costMicro)) * 100),
        realized_usd: p.realized / 1e6,
      },
    },
  };
}

function expectedAll(p: Pos): AllUsersPosition {
  return {
    user: p.wallet,
    ...expected(p).position,
    last_updated_at: timeOf(p.lastBlock),
    last_updated_block: p.lastBlock,
  };
}

// ---- requests -----------------------------------------------------------------------------------------

async function get(url: string, status = 200) {
  const res = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  expect(res.statusCode, res.body).toBe(status);
  return res.json();
}

interface Paged<T> {
  items: T[];
  pages: number;
}

/** Every page of a list, following pagination_key. */
async function all<T>(url: string, field: string): Promise<Paged<T>> {
  const items: T[] = [];
  let token: string | null = null;
  let pages = 0;
  do {
    const sep = url.includes('?') ? '&' : '?';
    const body = await get(token ? `${url}${sep}pagination_key=${token}` : url);
    items.push(...body[field]);
    expect(body.pagination.count).toBe(body[field].length);
    token = body.pagination.pagination_key;
    expect(body.pagination.has_more).toBe(token !== null);
    pages++;
  } while (token !== null && pages < 200);
  return { items, pages };
}

const posKey = (p: { user?: string; wallet?: string; market?: { token_id: string }; token?: string }) =>
  `${p.user ?? p.wallet}/${p.market?.token_id ?? p.token}`;

function chainOrder(orderBy: 'block' | 'timestamp', order: 'asc' | 'desc') {
  const dir = order === 'asc' ? 1 : -1;
  const key = (p: Pos) => [
    ...(orderBy === 'timestamp' ? [timeOf(p.lastBlock)] : []),
    p.lastBlock,
    p.logIndex,
    p.batchIndex,
  ];
  return (a: Pos, b: Pos) => {
    const ka = key(a);
    const kb = key(b);
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return dir * (ka[i]! - kb[i]!);
    if (a.wallet !== b.wallet) return dir * (a.wallet < b.wallet ? -1 : 1);
    return a.token === b.token ? 0 : dir * (a.token < b.token ? -1 : 1);
  };
}

// ---- GET /v2/alpha/positions ---------------------------------------------------------------------------

describe('GET /v2/alpha/positions', () => {
  it('serves every current position once, newest update first by default, with the derived numbers', async () => {
    const first = await get('/v2/alpha/positions');
    expect(first.pagination).toMatchObject({ limit: 100, count: 100, has_more: true });
    const { items } = await all<AllUsersPosition>('/v2/alpha/positions?limit=500', 'positions');
    const want = [...current].sort(chainOrder('timestamp', 'desc'));
    expect(items.map(posKey)).toEqual(want.map(posKey));
    expect(items).toEqual(want.map(expectedAll));
    expect(first.positions).toEqual(items.slice(0, 100));
    // Closed positions are included; the deleted and the superseded versions are not.
    expect(items.some((p) => p.position.shares === 0)).toBe(true);
    expect(items.some((p) => p.user === addr(0xdead))).toBe(false);
    expect(items.find((p) => posKey(p) === `${W}/1001`)?.position.shares).toBe(10);
  });

  it('pages through each position exactly once in both orders of both order_by values', async () => {
    for (const orderBy of ['block', 'timestamp'] as const) {
      for (const order of ['asc', 'desc'] as const) {
        const { items, pages } = await all<AllUsersPosition>(
          `/v2/alpha/positions?order_by=${orderBy}&order=${order}&limit=7`,
          'positions',
        );
        const want = [...current].sort(chainOrder(orderBy, order));
        expect(items.map(posKey), `${orderBy} ${order}`).toEqual(want.map(posKey));
        expect(pages).toBe(Math.ceil(current.length / 7));
      }
    }
  });

  it('filters by wallet (any case), token, condition, block and time bounds (inclusive, on the last update)', async () => {
    const match = async (query: string, keep: (p: Pos) => boolean) => {
      const { items } = await all<AllUsersPosition>(`/v2/alpha/positions?${query}&limit=13`, 'positions');
      const want = current.filter(keep).sort(chainOrder('timestamp', 'desc'));
      expect(want.length, query).toBeGreaterThan(0);
      expect(items.map(posKey), query).toEqual(want.map(posKey));
    };
    await match(`wallet=${W.toUpperCase().replace('0X', '0x')}`, (p) => p.wallet === W);
    await match('token_id=2002', (p) => p.token === '2002');
    await match(
      `condition_id=${C1.toUpperCase().replace('0X', '0x')}`,
      (p) => TOKENS[p.token]!.condition === C1,
    );
    await match('min_block=102&max_block=103', (p) => p.lastBlock >= 102 && p.lastBlock <= 103);
    await match('min_block=150', (p) => p.lastBlock >= 150);
    await match('max_block=100', (p) => p.lastBlock <= 100);
    await match(`min_timestamp=${timeOf(103)}`, (p) => p.lastBlock >= 103);
    await match(`max_timestamp=${timeOf(101)}`, (p) => p.lastBlock <= 101);
    await match(`min_timestamp=${timeOf(101)}&max_timestamp=${timeOf(101)}`, (p) => p.lastBlock === 101);
    await match(`wallet=${W}&token_id=1001`, (p) => p.wallet === W && p.token === '1001');
    // The superseded version's block (999) is not the current one.
    expect((await get('/v2/alpha/positions?min_block=999')).positions).toEqual([]);
    // W's 2002 was last updated at block 140 in its older version only.
    expect((await get('/v2/alpha/positions?min_block=140&max_block=149')).positions).toEqual([]);
    expect((await get(`/v2/alpha/positions?wallet=${addr(0xdead)}`)).positions).toEqual([]);
  });

  it('answers the 400 rules', async () => {
    const bad = await get('/v2/alpha/positions?wallet=0x1234', 400);
    expect(bad).toEqual({ error: 'Bad Request', message: expect.stringContaining('0x1234') });
    expect((await get(`/v2/alpha/positions?wallet=${W},${addr(1)}`, 400)).message).toMatch(/wallet/);
    expect((await get('/v2/alpha/positions?condition_id=0xabc', 400)).message).toMatch(/condition_id/);
    expect((await get('/v2/alpha/positions?min_block=5&max_block=4', 400)).message).toMatch(/min_block/);
    expect((await get('/v2/alpha/positions?min_timestamp=5&max_timestamp=4', 400)).message).toMatch(
      /min_timestamp/,
    );
    expect((await get('/v2/alpha/positions?offset=10', 400)).message).toMatch(/offset/);
    const p = await get('/v2/alpha/positions?limit=5');
    const k = p.pagination.pagination_key as string;
    // Reused with other filters or sort.
    for (const other of ['order=asc', 'order_by=block', `wallet=${W}`, 'token_id=1001', 'min_block=1']) {
      const body = await get(`/v2/alpha/positions?limit=5&${other}&pagination_key=${k}`, 400);
      expect(body.message, other).toMatch(/other filters/);
    }
    // limit may change between pages.
    await get(`/v2/alpha/positions?limit=6&pagination_key=${k}`);
    const raw = Buffer.from(k, 'base64url');
    const forged = Buffer.from(raw.toString('latin1').replace(/"k":\["\d/, '"k":["9'), 'latin1');
    await get(`/v2/alpha/positions?limit=5&pagination_key=${forged.toString('base64url')}`, 400);
    await get('/v2/alpha/positions?pagination_key=not-a-key', 400);
  });

  it('answers schema violations with 422', async () => {
    expect((await get('/v2/alpha/positions?limit=501', 422)).detail).toEqual([
      { loc: ['query', 'limit'], msg: 'Input should be less than or equal to 500', type: 'less_than_equal' },
    ]);
    const body = await get(
      '/v2/alpha/positions?limit=0&order=up&order_by=size&token_id=abc&min_block=-1',
      422,
    );
    const locs = (body.detail as { loc: string[] }[]).map((d) => d.loc.join('.')).sort();
    expect(locs).toEqual([
      'query.limit',
      'query.min_block',
      'query.order',
      'query.order_by',
      'query.token_id',
    ]);
    await get('/v2/alpha/positions?limit=500');
    await get('/v2/alpha/positions?limit=1');
  });
});

// ---- GET /v2/alpha/wallet/positions/{wallet} ----------------------------------------------------------

const SORTS = [
  'value',
  'unrealized_pnl',
  'realized_pnl',
  'cost',
  'avg_price',
  'current_price',
  'entry_date',
] as const;

/** The sort value of a position (from the served resource, whose numbers are checked separately). */
function sortValue(sort: (typeof SORTS)[number], p: Pos): number {
  const e = expected(p).position;
  switch (sort) {
    case 'value':
      return e.current.value_usd;
    case 'unrealized_pnl':
      return e.pnl.unrealized_usd;
    case 'realized_pnl':
      return e.pnl.realized_usd;
    case 'cost':
      return e.position.total_cost_usd;
    case 'avg_price':
      return e.position.avg_entry_price;
    case 'current_price':
      return e.current.price;
    case 'entry_date':
      return timeOf(p.firstBlock);
  }
}

function walletOrder(sort: (typeof SORTS)[number], order: 'asc' | 'desc') {
  const dir = order === 'asc' ? 1 : -1;
  return (a: Pos, b: Pos) =>
    dir * (sortValue(sort, a) - sortValue(sort, b) || (a.token < b.token ? -1 : a.token > b.token ? 1 : 0));
}

function expectedSummary(ps: Pos[]): PositionsSummary {
  const sum = (f: (e: Position) => number) =>
    Math.round(ps.reduce((s, p) => s + f(expected(p).position) * 1e6, 0)) / 1e6;
  const wins = ps.filter((p) => expected(p).total > 0).length;
  const losses = ps.filter((p) => expected(p).total < 0).length;
  const fees = ps.reduce((s, p) => s + p.fees, 0) / 1e6;
  return {
    total_positions: ps.length,
    total_value_usd: sum((e) => e.current.value_usd),
    total_cost_usd: sum((e) => e.position.total_cost_usd),
    total_unrealized_pnl_usd: sum((e) => e.pnl.unrealized_usd),
    total_realized_pnl_usd: sum((e) => e.pnl.realized_usd),
    win_rate: wins + losses === 0 ? 0 : wins / (wins + losses),
    winning_positions: wins,
    losing_positions: losses,
    fees_paid: fees,
    fees_refunded: 0,
    net_fees: fees,
  };
}

const open = WALLET_POSITIONS.filter((p) => p.shares > 0);

describe('GET /v2/alpha/wallet/positions/{wallet}', () => {
  it('serves open positions by value, descending, with the summary of all that match', async () => {
    const body = await get(`/v2/alpha/wallet/positions/${W.toUpperCase().replace('0X', '0x')}`);
    expect(body.wallet_address).toBe(W);
    const want = [...open].sort(walletOrder('value', 'desc'));
    expect(body.positions).toEqual(want.map((p) => expected(p).position));
    expect(body.summary).toEqual(expectedSummary(open));
    expect(body.pagination).toEqual({
      limit: 100,
      count: open.length,
      pagination_key: null,
      has_more: false,
    });
  });

  it('derives each number from base units by the one rule', async () => {
    const body = await get(
      `/v2/alpha/wallet/positions/${W}?include_closed=true&sort_by=entry_date&order=asc`,
    );
    const byToken = new Map((body.positions as Position[]).map((p) => [p.market.token_id, p]));
    // A fill price, catalog labels: value 10 × 0.6, cost 10 × 0.5, unrealized 1 (20 %).
    expect(byToken.get('1001')).toEqual({
      market: {
        condition_id: C1,
        market_slug: 'trump-2028',
        title: 'Will Trump win in 2028?',
        side: 'YES',
        side_label: 'Trump wins',
        token_id: '1001',
        status: 'open',
      },
      position: {
        shares: 10,
        total_shares_bought: 11,
        total_bought_usd: 2.5,
        avg_entry_price: 0.5,
        total_cost_usd: 5,
        net_fees_usd: 0.1,
      },
      current: { price: 0.6, value_usd: 6 },
      pnl: { unrealized_usd: 1, unrealized_pct: 20, realized_usd: 2 },
    });
    const no = byToken.get('1002')!;
    expect(no.market).toMatchObject({ side: 'NO', side_label: 'Trump loses', status: 'open' });
    expect(no.pnl).toEqual({ unrealized_usd: -0.2, unrealized_pct: -11.111111, realized_usd: -1.5 });
    expect(no.current).toEqual({ price: 0.4, value_usd: 1.6 });
    // Payouts: resolved_win at 1, resolved_loss at 0 (closed: 0 shares, realized kept).
    expect(byToken.get('2001')!.market.status).toBe('resolved_win');
    expect(byToken.get('2001')!.current).toEqual({ price: 1, value_usd: 2.5 });
    expect(byToken.get('2001')!.pnl.unrealized_usd).toBe(1.75);
    expect(byToken.get('2002')!.market.status).toBe('resolved_loss');
    expect(byToken.get('2002')!.position.shares).toBe(0);
    expect(byToken.get('2002')!.pnl).toEqual({ unrealized_usd: 0, unrealized_pct: 0, realized_usd: -0.7 });
    // Not in the catalog, no price: '' slug and title, Yes, the avg price as price, unrealized 0.
    expect(byToken.get('3001')).toMatchObject({
      market: { market_slug: '', title: '', side: 'YES', side_label: 'Yes', status: 'open' },
      position: { shares: 7, avg_entry_price: 0.333333, total_cost_usd: 2.333331 },
      current: { price: 0.333333, value_usd: 2.333331 },
      pnl: { unrealized_usd: 0, unrealized_pct: 0 },
    });
    // A product of many digits: rounded to the base unit.
    const odd = byToken.get('3002')!;
    expect(odd.market.side_label).toBe('No');
    expect(odd.position.total_cost_usd).toBe(0.300003); // 3.000001 × 0.100001 = 0.300003100001
    expect(odd.current.value_usd).toBe(0.370371); // 3.000001 × 0.123457 = 0.370371123457
    expect(odd.pnl.unrealized_usd).toBeCloseTo(0.370371123457 - 0.300003100001, 6);
    expect(odd.pnl.realized_usd).toBe(0.000055);
  });

  it('sorts by each sort_by in both orders (ties by token id) and pages each position once', async () => {
    for (const sort of SORTS) {
      for (const order of ['asc', 'desc'] as const) {
        const want = [...WALLET_POSITIONS].sort(walletOrder(sort, order)).map((p) => p.token);
        const whole = await get(
          `/v2/alpha/wallet/positions/${W}?include_closed=true&sort_by=${sort}&order=${order}`,
        );
        expect(
          whole.positions.map((p: Position) => p.market.token_id),
          `${sort} ${order}`,
        ).toEqual(want);
        const { items, pages } = await all<Position>(
          `/v2/alpha/wallet/positions/${W}?include_closed=true&sort_by=${sort}&order=${order}&limit=2`,
          'positions',
        );
        expect(
          items.map((p) => p.market.token_id),
          `${sort} ${order} paged`,
        ).toEqual(want);
        expect(pages).toBe(3);
      }
    }
    // Ties exist in the world: realized 0 twice (2001, 3001), entry block 90 twice.
    const realized = await get(`/v2/alpha/wallet/positions/${W}?sort_by=realized_pnl&order=asc`);
    const tokens = realized.positions.map((p: Position) => p.market.token_id);
    expect(tokens.indexOf('2001')).toBe(tokens.indexOf('3001') - 1);
  });

  it('filters: include_closed, min_shares, condition_id, market_slug; the summary covers every page', async () => {
    const check = async (query: string, keep: (p: Pos) => boolean) => {
      const body = await get(`/v2/alpha/wallet/positions/${W}?${query}&limit=1`);
      const want = WALLET_POSITIONS.filter(keep);
      expect(body.summary, query).toEqual(expectedSummary(want));
      const { items } = await all<Position>(`/v2/alpha/wallet/positions/${W}?${query}&limit=1`, 'positions');
      expect(items.map((p) => p.market.token_id).sort(), query).toEqual(want.map((p) => p.token).sort());
    };
    await check('include_closed=true', () => true);
    await check('include_closed=false', (p) => p.shares > 0);
    await check('min_shares=4', (p) => p.shares >= 4_000_000);
    await check('min_shares=3.000001', (p) => p.shares >= 3_000_001);
    await check('min_shares=3.0000015', (p) => p.shares >= 4_000_000);
    await check('min_shares=0&include_closed=true', () => true);
    await check(`condition_id=${C2}&include_closed=true`, (p) => TOKENS[p.token]!.condition === C2);
    await check('market_slug=trump-2028', (p) => TOKENS[p.token]!.condition === C1);
    await check('market_slug=rain-tomorrow&include_closed=true', (p) => TOKENS[p.token]!.condition === C2);
    await check('market_slug=unknown-slug', () => false);
    const summary = (await get(`/v2/alpha/wallet/positions/${W}?include_closed=true`)).summary;
    // 1001 (2 + 1), 2001 (1.75), 3002 (55e-6 + 0.07) win; 1002 (−1.7) and 2002 (−0.7) lose; 3001 is even.
    expect(summary).toMatchObject({ winning_positions: 3, losing_positions: 2, win_rate: 0.6 });
    expect(summary.fees_paid).toBe(0.17);
    expect(summary.net_fees).toBe(0.17);
    expect(summary.fees_refunded).toBe(0);
  });

  it('answers a wallet without positions with an empty list and a zero summary', async () => {
    for (const w of [addr(0x777), addr(0xdead)]) {
      const body = await get(`/v2/alpha/wallet/positions/${w}?include_closed=true`);
      expect(body).toEqual({
        wallet_address: w,
        positions: [],
        summary: expectedSummary([]),
        pagination: { limit: 100, count: 0, pagination_key: null, has_more: false },
      });
    }
  });

  it('answers the 400 and 422 rules', async () => {
    const bad = await get('/v2/alpha/wallet/positions/0xnot-an-address', 400);
    expect(bad).toEqual({ error: 'Bad Request', message: expect.stringContaining('0xnot-an-address') });
    expect((await get(`/v2/alpha/wallet/positions/${W}?condition_id=0x12`, 400)).message).toMatch(
      /condition_id/,
    );
    const p = await get(`/v2/alpha/wallet/positions/${W}?limit=2`);
    const k = p.pagination.pagination_key as string;
    for (const other of [
      'sort_by=cost',
      'order=asc',
      'include_closed=true',
      'min_shares=1',
      'market_slug=x',
    ]) {
      const body = await get(`/v2/alpha/wallet/positions/${W}?limit=2&${other}&pagination_key=${k}`, 400);
      expect(body.message, other).toMatch(/other filters/);
    }
    await get(`/v2/alpha/wallet/positions/${addr(0x101)}?limit=2&pagination_key=${k}`, 400);
    const raw = Buffer.from(k, 'base64url').toString('latin1');
    const forged = Buffer.from(raw.replace(/"k":\["/, '"k":["1'), 'latin1').toString('base64url');
    await get(`/v2/alpha/wallet/positions/${W}?limit=2&pagination_key=${forged}`, 400);
    expect((await get(`/v2/alpha/wallet/positions/${W}?limit=201`, 422)).detail).toEqual([
      { loc: ['query', 'limit'], msg: 'Input should be less than or equal to 200', type: 'less_than_equal' },
    ]);
    const body = await get(
      `/v2/alpha/wallet/positions/${W}?limit=0&sort_by=size&order=up&min_shares=-1&include_closed=maybe`,
      422,
    );
    const locs = (body.detail as { loc: string[] }[]).map((d) => d.loc.join('.')).sort();
    expect(locs).toEqual([
      'query.include_closed',
      'query.limit',
      'query.min_shares',
      'query.order',
      'query.sort_by',
    ]);
    await get(`/v2/alpha/wallet/positions/${W}?limit=200`);
  });
});

// ---- GET /v2/alpha/position/{token_id}/top-holders --------------------------------------------------

describe('GET /v2/alpha/position/{token_id}/top-holders', () => {
  const holders = (token: string) =>
    current
      .filter((p) => p.token === token && p.shares > 0)
      .sort((a, b) => b.shares - a.shares || (a.wallet < b.wallet ? -1 : 1));

  function entry(p: Pos, rank: number): TopHolderEntry {
    const e = expected(p);
    const token = TOKENS[p.token]!;
    return {
      rank,
      user: p.wallet,
      token_id: p.token,
      position_shares: e.position.position.shares,
      position_value_usd: e.position.current.value_usd,
      side: e.position.market.side_label,
      outcome_index: token.index,
      avg_price: e.position.position.avg_entry_price,
      realized_pnl: e.position.pnl.realized_usd,
      unrealized_pnl: e.position.pnl.unrealized_usd,
      total_pnl: (p.realized + Math.round(e.position.pnl.unrealized_usd * 1e6)) / 1e6,
      trade_count: p.fills,
      first_trade_at: p.firstFill,
      last_trade_at: p.lastFill,
    };
  }

  it('ranks the holders by shares (ties by address) across pages, rank continuing', async () => {
    for (const token of Object.keys(TOKENS)) {
      const want = holders(token);
      expect(want.length).toBeGreaterThan(3);
      expect(new Set(want.map((p) => p.shares)).size).toBeLessThan(want.length); // ties
      const { items, pages } = await all<TopHolderEntry>(
        `/v2/alpha/position/${token}/top-holders?limit=3`,
        'entries',
      );
      expect(items, token).toEqual(want.map((p, i) => entry(p, i + 1)));
      expect(pages).toBe(Math.ceil(want.length / 3));
    }
  });

  it('answers the market, the default page and include_count', async () => {
    const body = await get('/v2/alpha/position/1002/top-holders');
    const want = holders('1002');
    // W held 2002 in an older version only.
    const closed = await all<TopHolderEntry>('/v2/alpha/position/2002/top-holders?limit=100', 'entries');
    expect(closed.items.map((e) => e.user)).not.toContain(W);
    expect(body).toEqual({
      condition_id: C1,
      title: 'Will Trump win in 2028?',
      market_slug: 'trump-2028',
      side: null,
      total_count: null,
      entries: want.map((p, i) => entry(p, i + 1)),
      pagination: { limit: 100, count: want.length, pagination_key: null, has_more: false },
    });
    expect(body.entries[0].side).toBe('Trump loses');
    const counted = await get('/v2/alpha/position/1002/top-holders?include_count=true&limit=2');
    expect(counted.total_count).toBe(want.length);
    expect(counted.entries).toHaveLength(2);
    // include_count changes no row: the cursor works without it.
    const next = await get(
      `/v2/alpha/position/1002/top-holders?limit=2&pagination_key=${counted.pagination.pagination_key}`,
    );
    expect(next.entries.map((e: TopHolderEntry) => e.rank)).toEqual([3, 4]);
    expect(next.total_count).toBeNull();
    const unknownMarket = await get('/v2/alpha/position/3001/top-holders?include_count=true');
    expect(unknownMarket).toMatchObject({
      condition_id: C3,
      title: '',
      market_slug: '',
      total_count: holders('3001').length,
    });
    expect(unknownMarket.entries[0].side).toBe('Yes');
    const empty = await get(`/v2/alpha/position/${EMPTY_TOKEN}/top-holders?include_count=true`);
    expect(empty).toMatchObject({ entries: [], total_count: 0, pagination: { has_more: false, count: 0 } });
  });

  it('answers 404 for an unknown token and the 400 / 422 rules', async () => {
    const missing = await get('/v2/alpha/position/999999/top-holders', 404);
    expect(missing).toEqual({ error: 'Not Found', message: expect.stringContaining('999999') });
    const p = await get('/v2/alpha/position/1001/top-holders?limit=2');
    const k = p.pagination.pagination_key as string;
    expect(
      (await get(`/v2/alpha/position/1002/top-holders?limit=2&pagination_key=${k}`, 400)).message,
    ).toMatch(/other filters/);
    const raw = Buffer.from(k, 'base64url').toString('latin1');
    const forged = Buffer.from(raw.replace(/"k":\["/, '"k":["1'), 'latin1').toString('base64url');
    await get(`/v2/alpha/position/1001/top-holders?pagination_key=${forged}`, 400);
    expect((await get('/v2/alpha/position/1001/top-holders?limit=101', 422)).detail).toEqual([
      { loc: ['query', 'limit'], msg: 'Input should be less than or equal to 100', type: 'less_than_equal' },
    ]);
    expect((await get('/v2/alpha/position/abc/top-holders', 422)).detail[0].loc).toEqual([
      'path',
      'token_id',
    ]);
    const body = await get('/v2/alpha/position/1001/top-holders?limit=0&include_count=perhaps', 422);
    const locs = (body.detail as { loc: string[] }[]).map((d) => d.loc.join('.')).sort();
    expect(locs).toEqual(['query.include_count', 'query.limit']);
    await get('/v2/alpha/position/1001/top-holders?limit=100');
  });
});

describe('OpenAPI', () => {
  it('lists the three routes with their parameters and error responses', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    const doc = res.json();
    const names = (p: string) =>
      (doc.paths[p].get.parameters as { name: string; in: string }[]).map((x) => `${x.in}.${x.name}`).sort();
    expect(names('/v2/alpha/positions')).toEqual(
      [
        'order_by',
        'order',
        'min_block',
        'max_block',
        'min_timestamp',
        'max_timestamp',
        'wallet',
        'token_id',
        'condition_id',
        'limit',
        'pagination_key',
        'offset',
      ]
        .map((n) => `query.${n}`)
        .sort(),
    );
    expect(names('/v2/alpha/wallet/positions/{wallet}')).toEqual(
      [
        'path.wallet',
        ...[
          'include_closed',
          'min_shares',
          'market_slug',
          'condition_id',
          'sort_by',
          'order',
          'limit',
          'pagination_key',
          'offset',
        ].map((n) => `query.${n}`),
      ].sort(),
    );
    expect(names('/v2/alpha/position/{token_id}/top-holders')).toEqual(
      ['path.token_id', 'query.include_count', 'query.limit', 'query.pagination_key', 'query.offset'].sort(),
    );
    const holders = doc.paths['/v2/alpha/position/{token_id}/top-holders'].get;
    expect(Object.keys(holders.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '422']));
    const wallet = doc.paths['/v2/alpha/wallet/positions/{wallet}'].get;
    expect(wallet.parameters.find((x: { name: string }) => x.name === 'sort_by').schema).toMatchObject({
      enum: ['value', 'unrealized_pnl', 'realized_pnl', 'cost', 'avg_price', 'current_price', 'entry_date'],
      default: 'value',
    });
    const limit = doc.paths['/v2/alpha/positions'].get.parameters.find(
      (x: { name: string }) => x.name === 'limit',
    );
    expect(limit.schema).toMatchObject({ minimum: 1, maximum: 500, default: 100 });
  });
});

describe('response cache', () => {
  it('keeps the answers until the positions job bumps analytics:alpha-positions', async () => {
    const C = addr(0xcace);
    const urls = [
      `/v2/alpha/wallet/positions/${C}`,
      `/v2/alpha/positions?wallet=${C}`,
      `/v2/alpha/position/1001/top-holders?limit=1`,
    ];
    const shares = async () => {
      const [w, all, top] = await Promise.all(urls.map((u) => get(u)));
      return [w.positions[0]?.position.shares, all.positions[0]?.position.shares, top.entries[0]?.user];
    };
    const ch = t.deps.clickhouse;
    await ch.insert('test.cache.v1', 'alpha_positions', [
      positionRow(pos(C, '1001', { shares: 1_000_000, avg: 500_000, lastBlock: 160 }), 1),
    ]);
    const top = (await get('/v2/alpha/position/1001/top-holders?limit=1')).entries[0].user;
    expect(await shares()).toEqual([1, 1, top]);
    // A write without a bump is not seen: the answers are cached under the same data versions.
    await ch.insert('test.cache.v2', 'alpha_positions', [
      positionRow(pos(C, '1001', { shares: 900_000_000, avg: 500_000, lastBlock: 161 }), 2),
    ]);
    expect(await shares()).toEqual([1, 1, top]);
    await createDataVersions({ redis: t.deps.redis }).bump('analytics:alpha-positions');
    expect(await shares()).toEqual([900, 900, C]);
  });
});
