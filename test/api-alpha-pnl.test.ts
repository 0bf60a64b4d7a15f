/**
 * `GET /v2/alpha/wallet/pnl/{wallet}` against real chDB: position changes, positions and token prices are
 * seeded from a ledger of events (test/support/seed-positions.ts); every expected number is computed here
 * from those events (realized deltas, fees, holdings × prices) and UTC periods computed here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PnlResponse } from '../schemas/api/alpha-pnl.ts';
import { type ApiTestContext, addr, bytes32, createApiTestContext } from './api-helpers.ts';
import { ledger, type SeedEvent, seedPositions, seedTokenPrices } from './support/seed-positions.ts';

let t: ApiTestContext;
let key: string;

const W = addr(0x501);
const OTHER = addr(0x502);
const CA = bytes32(0xca);
const CB = bytes32(0xcb);
const A1 = '5001';
const A2 = '5002';
const B1 = '6001';
const M = 1_000_000n;
const sh = (x: number) => BigInt(Math.round(x * 1e6));

/** Unix seconds of a UTC date-time. */
const at = (iso: string) => Date.parse(`${iso}Z`) / 1000;

const EVENTS: SeedEvent[] = [
  {
    wallet: W,
    token: A1,
    condition: CA,
    t: at('2023-12-20T10:00:00'),
    kind: 'buy',
    amount: 100n * M,
    price: sh(0.4),
  },
  {
    wallet: W,
    token: A1,
    condition: CA,
    t: at('2023-12-28T12:00:00'),
    kind: 'sell',
    amount: 50n * M,
    price: sh(0.6),
  },
  {
    wallet: W,
    token: B1,
    condition: CB,
    t: at('2024-01-03T09:00:00'),
    kind: 'buy',
    amount: 200n * M,
    price: sh(0.5),
    fee: sh(1),
  },
  {
    wallet: W,
    token: A1,
    condition: CA,
    t: at('2024-01-03T15:00:00'),
    kind: 'sell',
    amount: 50n * M,
    price: sh(0.3),
  },
  {
    wallet: W,
    token: B1,
    condition: CB,
    t: at('2024-01-10T08:00:00'),
    kind: 'sell',
    amount: 100n * M,
    price: sh(0.7),
  },
  {
    wallet: W,
    token: A2,
    condition: CA,
    outcome: 1,
    t: at('2024-02-05T11:00:00'),
    kind: 'buy',
    amount: 100n * M,
    price: sh(0.55),
    fee: sh(0.5),
  },
  {
    wallet: W,
    token: A2,
    condition: CA,
    outcome: 1,
    t: at('2024-02-06T13:30:00'),
    kind: 'sell',
    amount: 40n * M,
    price: sh(0.45),
  },
  // Another wallet on the same tokens: never in W's answers.
  {
    wallet: OTHER,
    token: A1,
    condition: CA,
    t: at('2024-01-05T00:00:00'),
    kind: 'buy',
    amount: 10n * M,
    price: sh(0.9),
  },
  {
    wallet: OTHER,
    token: A1,
    condition: CA,
    t: at('2024-01-06T00:00:00'),
    kind: 'sell',
    amount: 10n * M,
    price: sh(0.1),
  },
];
const PRICES: Record<string, number | null> = { [A1]: 0.2, [A2]: 0.4, [B1]: 0.65 };

// ---- expected values, from the events ----

const applied = ledger(EVENTS).applied.filter((a) => a.e.wallet === W);
const inMarket = (cond?: string) => applied.filter((a) => cond === undefined || a.e.condition === cond);

function expectedSummary(cond?: string) {
  const rows = inMarket(cond);
  const realized = rows.reduce((s, a) => s + Number(a.deltaRealized), 0) / 1e6;
  const fees = rows.reduce((s, a) => s + Number(a.e.fee ?? 0n), 0) / 1e6;
  const last = new Map<string, (typeof rows)[number]>();
  for (const a of rows) last.set(a.e.token, a);
  let unrealized = 0;
  for (const [token, a] of last) {
    const p = PRICES[token];
    if (a.sharesAfter > 0n && p !== null && p !== undefined) {
      // Base units, each position rounded to the base unit.
      unrealized += Math.round(
        Number(a.sharesAfter) * p - (Number(a.sharesAfter) * Number(a.avgAfter)) / 1e6,
      );
    }
  }
  return { realized, fees, unrealized: unrealized / 1e6 };
}

type Period = 'day' | 'week' | 'month' | 'year';
function startOf(s: number, p: Period): number {
  const d = new Date(s * 1000);
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) / 1000;
  if (p === 'day') return day;
  if (p === 'week') return day - ((d.getUTCDay() + 6) % 7) * 86_400; // Monday
  if (p === 'month') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
  return Date.UTC(d.getUTCFullYear(), 0, 1) / 1000;
}
function after(s: number, p: Period): number {
  const d = new Date(s * 1000);
  if (p === 'day') return s + 86_400;
  if (p === 'week') return s + 7 * 86_400;
  if (p === 'month') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
  return Date.UTC(d.getUTCFullYear() + 1, 0, 1) / 1000;
}

/** Cumulative realized at the end of each period (events after `end` left out). */
function expectedSeries(p: Period, o: { start?: number; end: number; cond?: string }) {
  const rows = inMarket(o.cond).filter((a) => a.e.t <= o.end);
  if (rows.length === 0) return [];
  const first = Math.max(rows[0]!.e.t, o.start ?? 0);
  const out: { timestamp: number; pnl_to_date: number }[] = [];
  for (let s = startOf(first, p); s <= o.end; s = after(s, p)) {
    const sum = rows.filter((a) => a.e.t < after(s, p)).reduce((x, a) => x + Number(a.deltaRealized), 0);
    out.push({ timestamp: s, pnl_to_date: sum / 1e6 });
  }
  return out;
}

async function get(url: string, apiKey = key) {
  return t.app.inject({ method: 'GET', url, headers: { 'x-api-key': apiKey } });
}
async function ok(url: string): Promise<PnlResponse> {
  const res = await get(url);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as PnlResponse;
}

beforeAll(async () => {
  t = await createApiTestContext('api_alpha_pnl');
  key = await t.key('pro');
  await seedPositions(t.deps.clickhouse, EVENTS);
  await seedTokenPrices(t.deps.clickhouse, PRICES, at('2024-02-07T00:00:00'));
});
afterAll(async () => t?.close());

describe('GET /v2/alpha/wallet/pnl/{wallet}', () => {
  it('sums realized, unrealized (shares × (price − avg)) and net fees of the positions; total = r + u − fees', async () => {
    const body = await ok(`/v2/alpha/wallet/pnl/${W}?granularity=all`);
    const e = expectedSummary();
    expect(e.realized).toBe(21);
    expect(body.wallet_address).toBe(W);
    expect(body.realized_pnl).toBe(e.realized);
    expect(body.unrealized_pnl).toBe(e.unrealized);
    expect(body.fees_paid).toBe(e.fees);
    expect(body.fees_refunded).toBe(0);
    expect(body.total_pnl).toBeCloseTo(e.realized + e.unrealized - e.fees, 6);
    expect(body.granularity).toBe('all');
  });

  it('is free: a Free key is served', async () => {
    const res = await get(`/v2/alpha/wallet/pnl/${W}?granularity=all`, await t.key('free'));
    expect(res.statusCode, res.body).toBe(200);
  });

  it('accepts the wallet in any case and answers it lowercase', async () => {
    const body = await ok(`/v2/alpha/wallet/pnl/${W.toUpperCase().replace('0X', '0x')}?granularity=all`);
    expect(body.wallet_address).toBe(W);
    expect(body.realized_pnl).toBe(21);
  });

  it('counts realized P&L before start_time into pnl_to_date (weeks from Monday)', async () => {
    const start = at('2024-01-02T00:00:00');
    const end = at('2024-02-10T00:00:00');
    const body = await ok(`/v2/alpha/wallet/pnl/${W}?granularity=week&start_time=${start}&end_time=${end}`);
    const expected = expectedSeries('week', { start, end });
    expect(body.pnl_over_time).toEqual(expected);
    expect(body.pnl_over_time[0]).toEqual({ timestamp: at('2024-01-01T00:00:00'), pnl_to_date: 5 });
    expect(body.pnl_over_time.at(-1)).toEqual({ timestamp: at('2024-02-05T00:00:00'), pnl_to_date: 21 });
    expect(body.start_time).toBe(start);
    expect(body.end_time).toBe(end);
  });

  it('days from the first change by default; a change after end_time (same day) is left out', async () => {
    const end = at('2024-01-03T12:00:00');
    const body = await ok(`/v2/alpha/wallet/pnl/${W}?granularity=day&end_time=${end}`);
    expect(body.pnl_over_time).toEqual(expectedSeries('day', { end }));
    expect(body.pnl_over_time).toHaveLength(15);
    expect(body.pnl_over_time.at(-1)).toEqual({ timestamp: at('2024-01-03T00:00:00'), pnl_to_date: 10 });
    expect(body.start_time).toBe(at('2023-12-20T10:00:00'));
  });

  it('months and years', async () => {
    const end = at('2024-02-10T00:00:00');
    const month = await ok(`/v2/alpha/wallet/pnl/${W}?granularity=month&end_time=${end}`);
    expect(month.pnl_over_time).toEqual(expectedSeries('month', { end }));
    expect(month.pnl_over_time.map((p) => p.pnl_to_date)).toEqual([10, 25, 21]);
    const year = await ok(`/v2/alpha/wallet/pnl/${W}?granularity=year&end_time=${end}`);
    expect(year.pnl_over_time).toEqual(expectedSeries('year', { end }));
    expect(year.pnl_over_time).toEqual([
      { timestamp: at('2023-01-01T00:00:00'), pnl_to_date: 10 },
      { timestamp: at('2024-01-01T00:00:00'), pnl_to_date: 21 },
    ]);
  });

  it('all: one point at end_time with the realized P&L up to it', async () => {
    const end = at('2024-01-05T00:00:00');
    const body = await ok(`/v2/alpha/wallet/pnl/${W}?granularity=all&end_time=${end}`);
    expect(body.pnl_over_time).toEqual([{ timestamp: end, pnl_to_date: 5 }]);
  });

  it('end_time defaults to now: the series reaches the period of now', async () => {
    const before = Math.floor(Date.now() / 1000);
    const body = await ok(`/v2/alpha/wallet/pnl/${W}?granularity=month`);
    const after = Math.floor(Date.now() / 1000);
    expect(body.end_time).toBeGreaterThanOrEqual(before);
    expect(body.end_time).toBeLessThanOrEqual(after);
    expect(body.pnl_over_time).toEqual(expectedSeries('month', { end: body.end_time }));
    expect(body.pnl_over_time.at(-1)!.pnl_to_date).toBe(21);
  });

  it('condition_id keeps both outcomes of one market', async () => {
    const end = at('2024-02-10T00:00:00');
    const body = await ok(
      `/v2/alpha/wallet/pnl/${W}?granularity=month&end_time=${end}&condition_id=${CA.toUpperCase().replace('0X', '0x')}`,
    );
    const e = expectedSummary(CA);
    expect(e.realized).toBe(1);
    expect(body.realized_pnl).toBe(e.realized);
    expect(body.fees_paid).toBe(e.fees);
    expect(body.unrealized_pnl).toBe(e.unrealized);
    expect(body.total_pnl).toBeCloseTo(e.realized + e.unrealized - e.fees, 6);
    expect(body.pnl_over_time).toEqual(expectedSeries('month', { end, cond: CA }));
    expect(body.pnl_over_time.map((p) => p.pnl_to_date)).toEqual([10, 5, 1]);
  });

  it('a wallet without positions: 200, zeros and an empty series', async () => {
    const body = await ok(`/v2/alpha/wallet/pnl/${addr(0x999)}?granularity=day&start_time=100&end_time=200`);
    expect(body).toEqual({
      granularity: 'day',
      start_time: 100,
      end_time: 200,
      wallet_address: addr(0x999),
      realized_pnl: 0,
      unrealized_pnl: 0,
      fees_paid: 0,
      fees_refunded: 0,
      total_pnl: 0,
      pnl_over_time: [],
    });
  });

  it('400: a malformed wallet (named), a malformed condition_id, start_time after end_time', async () => {
    const bad = await get('/v2/alpha/wallet/pnl/0x123?granularity=day');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: 'Bad Request', message: expect.stringContaining('"0x123"') });
    const cond = await get(`/v2/alpha/wallet/pnl/${W}?granularity=day&condition_id=0xabc`);
    expect(cond.statusCode).toBe(400);
    expect(cond.json().message).toContain('condition_id');
    const range = await get(`/v2/alpha/wallet/pnl/${W}?granularity=day&start_time=200&end_time=100`);
    expect(range.statusCode).toBe(400);
    expect(range.json().message).toContain('start_time');
  });

  it('422: granularity missing or not one of day, week, month, year, all', async () => {
    const missing = await get(`/v2/alpha/wallet/pnl/${W}`);
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail[0].loc).toEqual(['query', 'granularity']);
    const bad = await get(`/v2/alpha/wallet/pnl/${W}?granularity=hour`);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0].loc).toEqual(['query', 'granularity']);
  });
});
