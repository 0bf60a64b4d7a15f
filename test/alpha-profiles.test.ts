/**
 * Wallet profiles (analytics/profiles/, job alpha.profiles, GET /v2/alpha/wallets/profiles) against real
 * chDB and Redis: position changes and positions are seeded from a ledger of events
 * (test/support/seed-positions.ts), current prices in alpha_token_prices, prices at the windows' starts
 * as maker fills in alpha_fills, now as the newest alpha block. Every field of every window is computed
 * here from the events by the definitions of docs/profiles.md, without the profiles code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsProducts } from '../analytics/products.ts';
import { profiles as profilesProduct } from '../analytics/profiles/index.ts';
import { PROFILES_SOURCE, runProfiles } from '../analytics/profiles/run.ts';
import { createDataVersions } from '../core/data-version.ts';
import { PRODUCT_SCHEDULES, productJobOf } from '../jobs/products.ts';
import { ALL_JOBS } from '../jobs/registry.ts';
import { SCHEDULES } from '../jobs/schedules.ts';
import type { WalletProfile } from '../schemas/api/alpha-profiles.ts';
import { type ApiTestContext, addr, bytes32, chTime, createApiTestContext, fillRow } from './api-helpers.ts';
import { type ChangeFact, expectedProfile, profileDifferences } from './support/profiles-truth.ts';

const alphaProfilesJob = productJobOf('alpha-profiles');
const ALPHA_PROFILES_LEASE = profilesProduct.job.lease;

import {
  type Applied,
  ledger,
  type SeedEvent,
  seedPositions,
  seedTokenPrices,
} from './support/seed-positions.ts';

let t: ApiTestContext;
let key: string;

const DAY = 86_400;
const NOW = 1_705_000_000;
const ago = (days: number) => NOW - days * DAY;
const M = 1_000_000n;
const p6 = (x: number) => BigInt(Math.round(x * 1e6));

const W1 = addr(0x701);
const W2 = addr(0x702);
const W3 = addr(0x703);
const W5 = addr(0x705);
const UNKNOWN = addr(0x704);
const X = addr(0x7ff); // the counterparty whose maker fills price the tokens in the past
const cond = (n: number) => bytes32(0xc000 + n);

type Ev = Omit<SeedEvent, 'condition' | 'amount' | 'price'> & { amount: number; price: number };
const ev = (e: Ev): SeedEvent => ({
  ...e,
  condition: cond(Number(e.token.slice(0, 1))),
  amount: BigInt(e.amount) * M,
  price: p6(e.price),
});

const EVENTS: SeedEvent[] = [
  // W1: six positions, closes won, lost and even, fees and a refund, a transfer out.
  ev({ wallet: W1, token: '1001', t: ago(40), kind: 'buy', amount: 100, price: 0.4, fee: p6(0.5) }),
  ev({ wallet: W1, token: '1001', t: ago(35), kind: 'buy', amount: 50, price: 0.6 }),
  ev({ wallet: W1, token: '1001', t: ago(20), kind: 'sell', amount: 150, price: 0.7 }),
  ev({ wallet: W1, token: '2001', t: ago(20) + 3600, kind: 'buy', amount: 200, price: 0.3, fee: p6(1) }),
  ev({ wallet: W1, token: '4001', t: ago(15), kind: 'buy', amount: 10, price: 0.5 }),
  ev({ wallet: W1, token: '4001', t: ago(14), kind: 'sell', amount: 10, price: 0.6 }),
  // Exactly at the 7-day start: before the window (it is (now − 7 d, now]), in the holdings at its start.
  ev({ wallet: W1, token: '2001', t: ago(7), kind: 'sell', amount: 100, price: 0.2 }),
  ev({ wallet: W1, token: '1001', t: ago(5), kind: 'buy', amount: 100, price: 0.5 }),
  ev({ wallet: W1, token: '2001', t: ago(3), kind: 'sell', amount: 100, price: 0.25 }),
  ev({ wallet: W1, token: '3001', t: ago(2), kind: 'buy', amount: 50, price: 0.8 }),
  ev({ wallet: W1, token: '5001', t: ago(1.5), kind: 'buy', amount: 20, price: 0.5 }),
  ev({ wallet: W1, token: '5001', t: ago(1.2), kind: 'sell', amount: 20, price: 0.3 }),
  ev({ wallet: W1, token: '1001', t: ago(0.5), kind: 'sell', amount: 100, price: 0.5 }),
  ev({ wallet: W1, token: '1002', t: ago(0.25), kind: 'buy', amount: 40, price: 0.45, fee: p6(0.2) }),
  ev({ wallet: W1, token: '1002', t: ago(0.2), kind: 'fee_refund', amount: 0, price: 0, fee: -p6(0.1) }),
  ev({ wallet: W1, token: '3001', t: ago(0.1), kind: 'transfer_out', amount: 10, price: 0.8 }),
  // W2: large trades, a redemption.
  ev({ wallet: W2, token: '6001', t: ago(10), kind: 'buy', amount: 2000, price: 0.85 }),
  ev({ wallet: W2, token: '6001', t: ago(9), kind: 'buy', amount: 1500, price: 0.9 }),
  ev({ wallet: W2, token: '7001', t: ago(8), kind: 'buy', amount: 4000, price: 0.3 }),
  ev({ wallet: W2, token: '6001', t: ago(6), kind: 'sell', amount: 3500, price: 0.95 }),
  ev({ wallet: W2, token: '7001', t: ago(4), kind: 'redeem', amount: 4000, price: 1 }),
  ev({ wallet: W2, token: '8001', t: ago(0.5), kind: 'buy', amount: 2000, price: 0.82 }),
  // W3: shares received, never traded.
  ev({ wallet: W3, token: '1001', t: ago(2), kind: 'transfer_in', amount: 10, price: 0.5 }),
  // W5: profiled by the first run, its position gone before the second.
  ev({ wallet: W5, token: '1001', t: ago(3), kind: 'buy', amount: 10, price: 0.5 }),
];

/** Current prices (alpha_token_prices); 2001 is held by nobody now. */
const PRICES_NOW: Record<string, number | null> = { '3001': 0.9, '1002': 0.5, '8001': 0.8, '1001': 0.6 };

/** Maker fills of X: the prices at the windows' starts (newest at or before the start). */
const PAST_FILLS: { token: string; t: number; price: number }[] = [
  { token: '1001', t: ago(31), price: 0.55 },
  { token: '2001', t: ago(8), price: 0.22 },
  { token: '6001', t: ago(7.5), price: 0.93 },
  { token: '1001', t: ago(1.5), price: 0.52 },
  { token: '3001', t: ago(1.2), price: 0.85 },
];

// ---- expected profiles, from the events (test/support/profiles-truth.ts) ----

function priceAt(token: string, s: number): number | null {
  const before = PAST_FILLS.filter((f) => f.token === token && f.t <= s).sort((a, b) => b.t - a.t);
  return before[0]?.price ?? null;
}

const fact = (a: Applied): ChangeFact => ({
  wallet: a.e.wallet,
  token: a.e.token,
  time: a.e.t,
  kind: a.e.kind,
  fill: a.fill,
  usd: a.usd,
  amount: a.e.amount,
  deltaShares: a.deltaShares,
  deltaRealized: a.deltaRealized,
  deltaFees: a.e.fee ?? 0n,
  sharesAfter: a.sharesAfter,
  avgAfter: a.avgAfter,
  realizedAfter: a.realizedAfter,
  openedAt: a.openedAt / 1000,
  openRealized: a.openRealized,
});

const STARTS: Record<string, number> = { one_day: ago(1), seven_day: ago(7), thirty_day: ago(30) };

function expected(wallet: string) {
  const changes = ledger(EVENTS)
    .applied.filter((a) => a.e.wallet === wallet)
    .map(fact);
  return expectedProfile(
    wallet,
    changes,
    NOW,
    (tk) => PRICES_NOW[tk],
    (w, tk) => priceAt(tk, STARTS[w]!),
  );
}

async function get(url: string, apiKey = key) {
  return t.app.inject({ method: 'GET', url, headers: { 'x-api-key': apiKey } });
}
async function profiles(addresses: string): Promise<WalletProfile[]> {
  const res = await get(`/v2/alpha/wallets/profiles?addresses=${addresses}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as WalletProfile[];
}

beforeAll(async () => {
  t = await createApiTestContext('alpha_profiles');
  key = await t.key('dev');
  const ch = t.deps.clickhouse;
  await seedPositions(ch, EVENTS);
  await seedTokenPrices(ch, PRICES_NOW, NOW);
  await ch.insert(
    'test.fills',
    'alpha_fills',
    PAST_FILLS.map((f, i) =>
      fillRow({
        block: 100 + i,
        logIndex: 0,
        maker: X,
        tokenId: f.token,
        usd: Math.round(f.price * 100) * 1e6,
        shares: 100e6,
        time: f.t,
      }),
    ),
  );
  await ch.insert('test.blocks', 'alpha_blocks', [
    {
      chain_id: 137,
      number: 5000,
      hash: bytes32(5000),
      parent_hash: bytes32(4999),
      timestamp: chTime(NOW - 600),
    },
    { chain_id: 137, number: 5001, hash: bytes32(5001), parent_hash: bytes32(5000), timestamp: chTime(NOW) },
  ]);
  await runProfiles({
    clickhouse: ch,
    log: t.deps.log,
    versions: createDataVersions({ redis: t.deps.redis }),
  });
});
afterAll(async () => t?.close());

describe('wallet profiles', () => {
  it('computes every field of every window from the position changes (now = the newest block)', async () => {
    const served = await profiles([W1, W2, W3].join(','));
    expect(served.map((p) => p.user)).toEqual([W1, W2, W3]);
    for (const p of served) expect(profileDifferences(p, expected(p.user))).toEqual([]);
    // The comparison sees a difference: a served number moved by a cent is reported.
    const moved = structuredClone(served[0]!);
    moved.metrics.seven_day.volume += 0.01;
    expect(profileDifferences(moved, expected(W1))).toHaveLength(1);
  });

  it('exercises the rules: window edges, streaks, breaks, prices at the starts, styles', async () => {
    const [w1, w2, w3] = await profiles([W1, W2, W3].join(','));
    // W1: the sell at exactly now − 7 d is outside seven_day; B1's last sell is inside.
    expect(w1!.metrics.seven_day.trades).toBe(7);
    expect(w1!.metrics.all_time.max_win_streak).toBe(2);
    expect(w1!.metrics.all_time.max_loss_streak).toBe(2);
    expect(w1!.metrics.all_time.positions_closed).toBe(5);
    expect(w1!.metrics.all_time.wins).toBe(2);
    expect(w1!.metrics.all_time.losses).toBe(2);
    expect(w1!.metrics.all_time.fees_paid).toBeCloseTo(1.6, 9);
    expect(w1!.metrics.one_day.fees_paid).toBeCloseTo(0.1, 9);
    expect(w1!.trading_styles.is_value_hunter).toBe(true);
    expect(w1!.trading_styles.primary_style).toBe('UNKNOWN');
    // seven_day total P&L moves with B1 priced at 0.22 at its start (held 100 @ 0.30).
    const e1 = expected(W1);
    expect(e1.metrics.seven_day!.total_pnl).not.toBeCloseTo(
      e1.metrics.seven_day!.realized_pnl! + e1.unrealized_pnl - e1.metrics.seven_day!.fees_paid!,
      3,
    );
    // W2: a whale holding its positions; a redemption closes without being a trade.
    expect(w2!.trading_styles.is_whale).toBe(true);
    expect(w2!.trading_styles.is_buy_and_hold).toBe(true);
    expect(w2!.trading_styles.primary_style).toBe('WHALE');
    expect(w2!.metrics.all_time.trades).toBe(5);
    expect(w2!.metrics.all_time.positions_closed).toBe(2);
    expect(w2!.metrics.all_time.profit_factor).toBe(1000);
    // W3: no fill → no trade times, every style off.
    expect(w3!.first_trade_at).toBeNull();
    expect(w3!.metrics.all_time.trades).toBe(0);
    expect(w3!.metrics.all_time.active_positions).toBe(1);
    expect(w3!.unrealized_pnl).toBeCloseTo(1, 9);
    expect(w3!.trading_styles.primary_style).toBe('UNKNOWN');
  });

  it('answers in request order, ignores case and duplicates, omits wallets without a profile', async () => {
    const upper = (a: string) => `0x${a.slice(2).toUpperCase()}`;
    const served = await profiles([W2, UNKNOWN, upper(W1), W2, W1].join(','));
    expect(served.map((p) => p.user)).toEqual([W2, W1]);
    expect(await profiles(UNKNOWN)).toEqual([]);
  });

  it('refuses Free keys (403)', async () => {
    const res = await get(`/v2/alpha/wallets/profiles?addresses=${W1}`, await t.key('free'));
    expect(res.statusCode).toBe(403);
  });

  it('400: more than 20 distinct addresses, a malformed address (named), an empty list; 422 without addresses', async () => {
    const many = Array.from({ length: 21 }, (_, i) => addr(0x1000 + i)).join(',');
    const tooMany = await get(`/v2/alpha/wallets/profiles?addresses=${many}`);
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().message).toContain('21');
    // 20 distinct (one repeated in another case) are fine.
    const twenty = [
      ...Array.from({ length: 20 }, (_, i) => addr(0x1000 + i)),
      addr(0x1000).toUpperCase().replace('0X', '0x'),
    ];
    expect((await get(`/v2/alpha/wallets/profiles?addresses=${twenty.join(',')}`)).statusCode).toBe(200);
    const bad = await get(`/v2/alpha/wallets/profiles?addresses=${W1},0xnothex`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: 'Bad Request', message: expect.stringContaining('"0xnothex"') });
    expect((await get('/v2/alpha/wallets/profiles?addresses=,')).statusCode).toBe(400);
    const missing = await get('/v2/alpha/wallets/profiles');
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail[0].loc).toEqual(['query', 'addresses']);
  });

  it('a later run drops wallets whose positions are gone and bumps analytics:alpha-profiles', async () => {
    expect((await profiles(W5)).map((p) => p.user)).toEqual([W5]);
    const [before] = await createDataVersions({ redis: t.deps.redis }).read([PROFILES_SOURCE]);
    const ch = t.deps.clickhouse;
    const [row] = await ch.query<Record<string, unknown>>(
      'test.w5',
      'SELECT * FROM alpha_positions FINAL WHERE wallet = {w:String}',
      { w: W5 },
    );
    await ch.insert('test.w5.delete', 'alpha_positions', [{ ...row, version: 2, deleted: 1 }]);
    const run = await runProfiles({
      clickhouse: ch,
      log: t.deps.log,
      versions: createDataVersions({ redis: t.deps.redis }),
    });
    expect(run.removed).toBe(1);
    expect(run.wallets).toBe(3);
    expect(await profiles(W5)).toEqual([]);
    expect((await profiles(W1)).map((p) => p.user)).toEqual([W1]);
    const [after] = await createDataVersions({ redis: t.deps.redis }).read([PROFILES_SOURCE]);
    expect(after).not.toBe(before);
    // Its freshness: the run's version, the newest of its rows (what the status page showed before).
    const [newest] = await ch.query<{ v: string }>(
      'test.v',
      'SELECT max(version) AS v FROM alpha_wallet_profiles',
    );
    expect(Number(newest!.v)).toBe(run.version);
    const product = analyticsProducts(ch).find((p) => p.product === 'alpha-profiles')!;
    expect(await product.computedAt()).toBe(run.version);
  });

  it('the job runs a profiles run under its lease; with the lease taken it completes without one', async () => {
    const ctx = {
      deps: t.deps,
      log: t.deps.log,
      job: {} as never,
      signal: new AbortController().signal,
      enqueue: async () => undefined,
    };
    const done = await alphaProfilesJob.process(ctx);
    expect(done).toMatchObject({ computedAt: NOW * 1000, wallets: 3 });
    await t.deps.redis.set(ALPHA_PROFILES_LEASE, 'someone-else', 'PX', 60_000);
    expect(await alphaProfilesJob.process(ctx)).toEqual({ ran: false });
    await t.deps.redis.del(ALPHA_PROFILES_LEASE);
  });

  it('the job alpha.profiles runs on queue analytics every ALPHA_PROFILES_INTERVAL_S, registered and scheduled', () => {
    expect(alphaProfilesJob.queue).toBe('analytics');
    expect(ALL_JOBS).toContain(alphaProfilesJob);
    const scheduled = PRODUCT_SCHEDULES.filter((s) => s.job === alphaProfilesJob);
    expect(scheduled.map((s) => [s.id, s.everyMs(t.deps.config)])).toEqual([['alpha:profiles', 300_000]]);
    expect(SCHEDULES).toEqual(expect.arrayContaining(scheduled));
  });
});
