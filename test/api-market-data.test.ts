/**
 * alpha's market-data routes (candles, volume chart, volume and open-interest series, market price) and
 * the catalog's metrics module, against real chDB: the derived tables, alpha_tokens and alpha_fills are
 * seeded with INSERTs, so these tests check the routes' reading and rules (the computation of the
 * derived tables has tests of its own).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceOf } from '../api/queries/alpha/market-price.ts';
import { ALPHA_CHAIN_SOURCE, createDataVersions } from '../core/data-version.ts';
import type {
  CandlesResponse,
  OpenInterestResponse,
  VolumeChartResponse,
  VolumeResponse,
} from '../schemas/api/alpha-market-data.ts';
import { type ApiTestContext, addr, bytes32, chTime, createApiTestContext, fillRow } from './api-helpers.ts';

let t: ApiTestContext;
let key: string;

/** Monday 2023-11-13 00:00 UTC. */
const D0 = 1_699_833_600;
const H = 3600;
const DAY = 86_400;
/** 10:00 on D0: the minute candles below. */
const M = D0 + 10 * H;

const COND = bytes32(0xc1);
const YES = '1001';
const NO = '1002';
/** Known on chain, no analytics rows and no fills. */
const COND_QUIET = bytes32(0xc2);
const QUIET_YES = '2001';
/** Known, with one early daily candle only (no minute candle before the ones asked for). */
const LONE = '3001';
/** Known, with maker fills but no candles: the volume chart's last minute. */
const COND_LATE = bytes32(0xc5);
const LATE_YES = '5001';
const LATE_NO = '5002';

const dt = (s: number) => new Date(s * 1000).toISOString().slice(0, 19).replace('T', ' ');

interface Ohlc {
  bucket: number;
  o: number;
  h: number;
  l: number;
  c: number;
  usd: number;
  shares: number;
  trades: number;
  version?: number;
  deleted?: 0 | 1;
}

function tokenCandle(tokenId: string, x: Ohlc, buyUsd = x.usd) {
  return {
    token_id: tokenId,
    bucket: dt(x.bucket),
    open: x.o,
    high: x.h,
    low: x.l,
    close: x.c,
    first_time: chTime(x.bucket),
    last_time: chTime(x.bucket + 59),
    usd: x.usd * 1e6,
    shares: x.shares * 1e6,
    trades: x.trades,
    buys: x.trades,
    sells: 0,
    buy_usd: buyUsd * 1e6,
    sell_usd: (x.usd - buyUsd) * 1e6,
    version: x.version ?? 1,
    deleted: x.deleted ?? 0,
  };
}

function conditionCandle(x: Ohlc, yesValue: number, yesUsd: number) {
  const { token_id: _t, ...rest } = tokenCandle('', x);
  return {
    condition_id: COND,
    ...rest,
    yes_value: yesValue * 1e6,
    yes_usd: yesUsd * 1e6,
    no_usd: (x.usd - yesUsd) * 1e6,
  };
}

// Token YES, minute candles of 10:00–10:05 on D0 (m3 replaced by a newer version; one deleted bucket).
const m0: Ohlc = { bucket: M, o: 0.5, h: 0.55, l: 0.48, c: 0.52, usd: 100, shares: 200, trades: 3 };
const m1: Ohlc = { bucket: M + 60, o: 0.53, h: 0.6, l: 0.53, c: 0.58, usd: 58, shares: 100, trades: 1 };
const m3: Ohlc = { bucket: M + 240, o: 0.57, h: 0.7, l: 0.4, c: 0.45, usd: 45, shares: 100, trades: 1 };
const m5: Ohlc = { bucket: M + 300, o: 0.6, h: 0.62, l: 0.59, c: 0.61, usd: 61, shares: 100, trades: 1 };
/** Two days before D0: the only earlier candle (its close is the first `previous`). */
const early: Ohlc = { bucket: D0 - 2 * DAY, o: 0.3, h: 0.3, l: 0.3, c: 0.3, usd: 30, shares: 100, trades: 1 };

async function get(url: string) {
  return t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
}

async function ok<T>(url: string): Promise<T> {
  const res = await get(url);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as T;
}

function token(tokenId: string, conditionId: string, outcome: number, complement: string, log: number) {
  return {
    chain_id: 137,
    token_id: tokenId,
    condition_id: conditionId,
    outcome_index: outcome,
    complement_token_id: complement,
    neg_risk: false,
    source: 'condition_prepared',
    block_number: 1,
    tx_hash: bytes32(1),
    log_index: log,
  };
}

function totals(level: 'token' | 'condition', id: string, first: number | null, last: number | null) {
  return {
    level,
    id,
    volume: 294e6,
    buy_volume: 200e6,
    sell_volume: 94e6,
    trades: 7,
    buys: 5,
    sells: 2,
    first_trade_time: first === null ? null : chTime(first),
    last_trade_time: last === null ? null : chTime(last),
    open_interest: 130e6,
    version: 1,
    deleted: 0,
  };
}

/** Fill times of the market-price fixtures (block = index, time explicit). */
const P0 = D0 + 20 * H;
/** Saturday 12:00 after D0: the volume chart's fills without candles. */
const Q = D0 + 5 * DAY + 12 * H;

beforeAll(async () => {
  t = await createApiTestContext('api_market_data');
  key = await t.key('pro');
  const ch = t.deps.clickhouse;
  await ch.insert('test.tokens', 'alpha_tokens', [
    token(YES, COND, 0, NO, 0),
    token(NO, COND, 1, YES, 1),
    token(QUIET_YES, COND_QUIET, 0, '2002', 2),
    token('2002', COND_QUIET, 1, QUIET_YES, 3),
    token(LONE, bytes32(0xc3), 0, '3002', 4),
    token(LATE_YES, COND_LATE, 0, LATE_NO, 7),
    token(LATE_NO, COND_LATE, 1, LATE_YES, 8),
  ]);
  const m0old = { ...m0, c: 0.99 };
  await ch.insert('test.candles', 'alpha_token_candles_1m', [
    tokenCandle(YES, m0old),
    tokenCandle(YES, m1),
    tokenCandle(YES, { ...m3, version: 1 }),
    tokenCandle(YES, m5),
    tokenCandle(YES, { bucket: M + 120, o: 0.9, h: 0.9, l: 0.9, c: 0.9, usd: 9, shares: 10, trades: 1 }),
    tokenCandle(YES, early),
    tokenCandle(LONE, { ...m1, bucket: M + 7 * DAY }),
  ]);
  // Newer versions: m0 corrected, the 10:02 bucket deleted (FINAL keeps the newest, drops deleted).
  await ch.insert('test.candles.v2', 'alpha_token_candles_1m', [
    tokenCandle(YES, { ...m0, version: 2 }),
    tokenCandle(YES, {
      bucket: M + 120,
      o: 0.9,
      h: 0.9,
      l: 0.9,
      c: 0.9,
      usd: 9,
      shares: 10,
      trades: 1,
      version: 2,
      deleted: 1,
    }),
  ]);
  const hour: Ohlc = { bucket: M, o: 0.5, h: 0.7, l: 0.4, c: 0.61, usd: 264, shares: 500, trades: 6 };
  await ch.insert('test.candles.1h', 'alpha_token_candles_1h', [
    tokenCandle(YES, hour),
    tokenCandle(YES, early),
  ]);
  await ch.insert('test.candles.1d', 'alpha_token_candles_1d', [
    tokenCandle(YES, { ...early, bucket: D0 - 2 * DAY }, 20),
    tokenCandle(YES, { ...hour, bucket: D0 }, 200),
    tokenCandle(YES, { ...m1, bucket: D0 + 3 * DAY, usd: 10, shares: 20 }, 4),
    tokenCandle(LONE, { ...early, bucket: D0 - 30 * DAY, o: 0.2 }),
  ]);
  // Condition: YES terms; yes_value / shares is the mean.
  await ch.insert('test.ccandles.1m', 'alpha_condition_candles_1m', [
    conditionCandle({ ...m0, o: 0.5, c: 0.47 }, 90, 80),
  ]);
  await ch.insert('test.ccandles.1h', 'alpha_condition_candles_1h', [
    conditionCandle({ ...hour, bucket: D0 + H }, 120, 200),
    conditionCandle({ ...hour, bucket: M, usd: 10, trades: 2 }, 5, 4),
  ]);
  await ch.insert('test.ccandles.1d', 'alpha_condition_candles_1d', [
    conditionCandle({ ...early, bucket: D0 - 2 * DAY }, 15, 30),
    conditionCandle({ ...hour, bucket: D0 }, 130, 204),
    conditionCandle({ ...hour, bucket: D0 + 8 * DAY, usd: 7, trades: 1 }, 3, 0),
  ]);
  await ch.insert('test.oi', 'alpha_oi_deltas_1h', [
    { condition_id: COND, bucket: dt(D0 + H), delta: 100e6, events: 1, version: 1, deleted: 0 },
    { condition_id: COND, bucket: dt(D0 + 5 * H), delta: -20e6, events: 2, version: 1, deleted: 0 },
    { condition_id: COND, bucket: dt(D0 + 2 * DAY + H), delta: 50e6, events: 1, version: 1, deleted: 0 },
  ]);
  await ch.insert('test.totals', 'alpha_market_totals', [
    totals('token', YES, early.bucket + 10, m5.bucket + 30),
    totals('condition', COND, early.bucket + 5, m5.bucket + 40),
    totals('token', LONE, D0 - 30 * DAY + 5, M + 7 * DAY + 70),
  ]);
  // Market price: five fills within 0.10 of each other (YES terms), then a NO fill far off; a taker
  // row after all of them (never counted).
  const maker = addr(0xa);
  const fill = (i: number, tokenId: string, usd: number, o: { role?: 'taker'; time?: number } = {}) =>
    fillRow({
      block: 1000 + i,
      logIndex: 1,
      maker,
      tokenId,
      conditionId: COND,
      usd: usd * 1e6,
      shares: 100e6,
      role: o.role,
      time: o.time ?? P0 + i * 60,
    });
  await ch.insert('test.fills', 'alpha_fills', [
    fill(0, YES, 30), // outside the last five at P0 + 5 min
    fill(1, YES, 50),
    fill(2, NO, 48), // YES 0.52
    fill(3, YES, 51),
    fill(4, YES, 49),
    fill(5, NO, 50), // YES 0.50
    fill(6, NO, 25, { time: P0 + H }), // YES 0.75
    fill(7, YES, 1, { role: 'taker', time: P0 + 2 * H }),
  ]);
  // COND_LATE's fills, with no candle yet (the volume chart's last minute): early fills carry condition_id
  // '' (the token's condition comes from alpha_tokens); a taker row (never counted), a fill of the next minute.
  const late = (i: number, tokenId: string, usd: number, time: number, role?: 'taker') =>
    fillRow({ block: 2000 + i, logIndex: 1, maker, tokenId, usd: usd * 1e6, shares: 100e6, role, time });
  await ch.insert('test.fills.chart', 'alpha_fills', [
    late(0, LATE_YES, 20, Q + 10),
    late(1, LATE_NO, 30, Q + 40),
    late(2, LATE_NO, 5, Q + 40, 'taker'),
    late(3, LATE_YES, 7, Q + 60),
  ]);
});
afterAll(async () => t?.close());

const price = (r: CandlesResponse) => r.candlesticks.map((c) => c.price);

describe('GET /v2/alpha/candlesticks', () => {
  it('reads minute candles with FINAL: the newest version of a bucket, deleted buckets left out', async () => {
    const r = await ok<CandlesResponse>(
      `/v2/alpha/candlesticks/token/${YES}?interval=1&start_time=${M}&end_time=${M + 300}`,
    );
    expect(r).toMatchObject({
      condition_id: null,
      token_id: YES,
      first_trade_ts: early.bucket + 10,
      last_trade_ts: m5.bucket + 30,
      interval: 1,
      interval_seconds: 60,
    });
    expect(r.candlesticks.map((c) => c.end_period_ts)).toEqual([M + 60, M + 120, M + 300, M + 360]);
    const first = r.candlesticks[0]!;
    expect(first.price).toEqual({
      open: 0.5,
      high: 0.55,
      low: 0.48,
      close: 0.52,
      mean: 0.5,
      // The close of the latest earlier candle: the daily one two days before.
      previous: 0.3,
      open_dollars: '0.5000',
      high_dollars: '0.5500',
      low_dollars: '0.4800',
      close_dollars: '0.5200',
      mean_dollars: '0.5000',
      previous_dollars: '0.3000',
    });
    expect(first.volume).toBe(100);
    expect(first.trades_count).toBe(3);
    // previous = the close of the candle before, in the answer.
    expect(price(r).map((p) => p.previous)).toEqual([0.3, 0.52, 0.58, 0.45]);
  });

  it("takes previous from the same day's earlier minutes, else the candle's own open", async () => {
    const r = await ok<CandlesResponse>(
      `/v2/alpha/candlesticks/token/${YES}?interval=1&start_time=${M + 60}&end_time=${M + 61}`,
    );
    expect(price(r)).toMatchObject([{ open: 0.53, previous: 0.52, previous_dollars: '0.5200' }]);
    const lone = await ok<CandlesResponse>(
      `/v2/alpha/candlesticks/token/${LONE}?interval=1&start_time=${M + 7 * DAY}&end_time=${M + 7 * DAY + 60}`,
    );
    expect(price(lone)).toMatchObject([{ open: 0.53, previous: 0.3 }]);
    const none = await ok<CandlesResponse>(
      `/v2/alpha/candlesticks/token/${LONE}?interval=1440&start_time=${D0 - 31 * DAY}&end_time=${D0 - 29 * DAY}`,
    );
    expect(price(none)).toMatchObject([{ open: 0.2, close: 0.3, previous: 0.2 }]);
  });

  it('rolls 1-minute candles up to 5 minutes on read', async () => {
    const r = await ok<CandlesResponse>(
      `/v2/alpha/candlesticks/token/${YES}?interval=5&start_time=${M + 30}&end_time=${M + 301}`,
    );
    expect(r.interval_seconds).toBe(300);
    expect(r.candlesticks).toHaveLength(2);
    const [a, b] = r.candlesticks;
    expect(a).toMatchObject({
      end_period_ts: M + 300,
      volume: 203,
      trades_count: 5,
      price: { open: 0.5, high: 0.7, low: 0.4, close: 0.45, previous: 0.3, mean: 203 / 400 },
    });
    expect(a!.price.mean_dollars).toBe('0.5075');
    expect(b).toMatchObject({ end_period_ts: M + 600, price: { open: 0.6, close: 0.61, previous: 0.45 } });
  });

  it('resolves interval 0 to the smallest width whose range covers the span', async () => {
    // No range: first to last trade, ~2.4 days → 1 minute.
    const all = await ok<CandlesResponse>(`/v2/alpha/candlesticks/token/${YES}`);
    expect(all).toMatchObject({ interval: 1, interval_seconds: 60 });
    expect(all.candlesticks.map((c) => c.end_period_ts)).toEqual([
      early.bucket + 60,
      M + 60,
      M + 120,
      M + 300,
      M + 360,
    ]);
    const span = (days: number) =>
      ok<CandlesResponse>(`/v2/alpha/candlesticks/token/${YES}?start_time=${M - days * DAY}&end_time=${M}`);
    expect((await span(7)).interval).toBe(1);
    expect((await span(10)).interval).toBe(5);
    expect((await span(20)).interval).toBe(15);
    const hourly = await span(60);
    expect(hourly).toMatchObject({ interval: 60, interval_seconds: 3600 });
    expect(hourly.candlesticks.map((c) => c.end_period_ts)).toEqual([early.bucket + H, M + H]);
    const daily = await span(100);
    expect(daily.interval).toBe(1440);
    expect(daily.candlesticks.map((c) => [c.end_period_ts, c.volume])).toEqual([
      [early.bucket + DAY, 30],
      [D0 + DAY, 264],
    ]);
    // A fixed width without start_time: the later of the first trade and end − its maximum range.
    const recent = await ok<CandlesResponse>(`/v2/alpha/candlesticks/token/${YES}?interval=60&end_time=${M}`);
    expect(recent.candlesticks).toHaveLength(2);
    const day = await ok<CandlesResponse>(
      `/v2/alpha/candlesticks/token/${YES}?interval=1&end_time=${M + 9 * DAY}`,
    );
    expect(day.candlesticks).toEqual([]);
  });

  it('serves condition candles in YES terms (condition_id set, mean = yes_value / shares)', async () => {
    const r = await ok<CandlesResponse>(
      `/v2/alpha/candlesticks/${COND.toUpperCase().replace('0X', '0x')}?interval=1&start_time=${M}&end_time=${M + 59}`,
    );
    expect(r).toMatchObject({
      condition_id: COND,
      token_id: null,
      first_trade_ts: early.bucket + 5,
      last_trade_ts: m5.bucket + 40,
    });
    expect(r.candlesticks).toHaveLength(1);
    expect(r.candlesticks[0]!.price).toMatchObject({ open: 0.5, close: 0.47, mean: 0.45, previous: 0.3 });
  });

  it('answers 422 for interval=7', async () => {
    const res = await get(`/v2/alpha/candlesticks/token/${YES}?interval=7`);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      expect.objectContaining({ loc: ['query', 'interval'], type: 'enum' }),
    ]);
  });

  it('answers 400 for 8 days at interval=1', async () => {
    const res = await get(
      `/v2/alpha/candlesticks/${COND}?interval=1&start_time=${M}&end_time=${M + 8 * DAY}`,
    );
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'Bad Request',
      message: expect.stringMatching(/start_time .*end_time .*interval=1.*7 days/),
    });
    // 7 days exactly is allowed; start_time alone is measured to the last trade.
    expect(
      (await get(`/v2/alpha/candlesticks/${COND}?interval=1&start_time=${M}&end_time=${M + 7 * DAY}`))
        .statusCode,
    ).toBe(200);
    const open = await get(`/v2/alpha/candlesticks/token/${YES}?interval=1&start_time=${M - 8 * DAY}`);
    expect(open.statusCode).toBe(400);
    expect(open.json().message).toMatch(/the last trade/);
  });

  it('answers 400 when start_time is not before end_time', async () => {
    for (const url of [
      `/v2/alpha/candlesticks/${COND}?start_time=${M}&end_time=${M}`,
      `/v2/alpha/candlesticks/token/${YES}?start_time=${M + 1}&end_time=${M}`,
      `/v2/alpha/volume-chart/${COND}?start_time=${M}&end_time=${M}`,
      `/v2/alpha/markets/${YES}/volume?start_time=${M}&end_time=${M - 1}`,
      `/v2/alpha/markets/${COND}/open_interest?start_time=${M}&end_time=${M}`,
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().message, url).toMatch(/start_time .* must be before end_time/);
    }
  });

  it('answers 400 for a malformed condition id, 422 for a token id that is not decimal', async () => {
    for (const url of [
      '/v2/alpha/candlesticks/0x1234',
      `/v2/alpha/volume-chart/${COND.slice(0, -1)}z?start_time=1&end_time=2`,
      '/v2/alpha/markets/0xnothex/open_interest',
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().message, url).toMatch(/^Invalid condition_id/);
    }
    for (const url of [
      '/v2/alpha/candlesticks/token/0xabc',
      '/v2/alpha/markets/12a/volume',
      '/v2/alpha/market-price/-5',
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(422);
      expect(res.json().detail[0], url).toMatchObject({
        loc: ['path', 'token_id'],
        type: 'string_pattern_mismatch',
      });
    }
  });

  it('answers 404 for ids never seen on chain, 200 with empty series for known ones without trades', async () => {
    const unknownCond = bytes32(0xdead);
    for (const url of [
      `/v2/alpha/candlesticks/${unknownCond}`,
      '/v2/alpha/candlesticks/token/999',
      `/v2/alpha/volume-chart/${unknownCond}?start_time=${D0}&end_time=${D0 + DAY}`,
      '/v2/alpha/markets/999/volume',
      `/v2/alpha/markets/${unknownCond}/open_interest`,
      '/v2/alpha/market-price/999',
      `/v2/alpha/market-price/${QUIET_YES}`,
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toEqual({ error: 'Not Found', message: expect.any(String) });
    }
    const quiet = await ok<CandlesResponse>(`/v2/alpha/candlesticks/${COND_QUIET}`);
    expect(quiet).toMatchObject({ first_trade_ts: null, last_trade_ts: null, candlesticks: [] });
    expect((await ok<CandlesResponse>(`/v2/alpha/candlesticks/token/${QUIET_YES}`)).candlesticks).toEqual([]);
    const chart = await ok<VolumeChartResponse>(
      `/v2/alpha/volume-chart/${COND_QUIET}?start_time=${D0}&end_time=${D0 + DAY}`,
    );
    expect(chart).toEqual({
      condition_id: COND_QUIET,
      granularity: 'hour',
      start_time: D0,
      end_time: D0 + DAY,
      data: [],
    });
    expect((await ok<VolumeResponse>(`/v2/alpha/markets/${QUIET_YES}/volume`)).volume_over_time).toEqual([]);
    expect(
      (await ok<OpenInterestResponse>(`/v2/alpha/markets/${COND_QUIET}/open_interest`))
        .open_interest_over_time,
    ).toEqual([]);
  });
});

describe('prices and means as served', () => {
  it('rounds candle prices and the share-weighted mean to 6 decimals (100 USD for 300 shares: 0.333333)', async () => {
    const ch = t.deps.clickhouse;
    const THIRD = '4001';
    await ch.insert('test.tokens.third', 'alpha_tokens', [token(THIRD, bytes32(0xc4), 0, '4002', 5)]);
    const c: Ohlc = {
      bucket: D0,
      o: 1 / 3,
      h: 2 / 3,
      l: 0.1 + 0.2,
      c: 1 / 3,
      usd: 100,
      shares: 300,
      trades: 2,
    };
    await ch.insert('test.candles.third', 'alpha_token_candles_1d', [tokenCandle(THIRD, c)]);
    await ch.insert('test.totals.third', 'alpha_market_totals', [totals('token', THIRD, D0 + 5, D0 + 50)]);
    const r = await ok<CandlesResponse>(`/v2/alpha/candlesticks/token/${THIRD}?interval=1440`);
    const { open, high, low, close, mean, previous } = r.candlesticks[0]!.price;
    expect({ open, high, low, close, mean, previous }).toEqual({
      open: 0.333333,
      high: 0.666667,
      low: 0.3,
      close: 0.333333,
      mean: 0.333333,
      previous: 0.333333,
    });
  });
});

describe('series stamped at end_time hold nothing after it', () => {
  it("volume: all and the last day hold the candles' whole days, hours and minutes before end_time, then its minute's fills", async () => {
    // 10:01:30 on D0: the day before D0 (30), the 10:00 minute (100 after its correction); not the rest of D0.
    const all = await ok<VolumeResponse>(
      `/v2/alpha/markets/${YES}/volume?granularity=all&end_time=${M + 90}`,
    );
    expect(all.volume_over_time).toEqual([
      { timestamp: M + 90, volume: 130, buy_volume: 120, sell_volume: 10 },
    ]);
    const days = await ok<VolumeResponse>(`/v2/alpha/markets/${YES}/volume?end_time=${M + 90}`);
    expect(days.volume_over_time.at(-1)).toEqual({
      timestamp: D0,
      volume: 130,
      buy_volume: 120,
      sell_volume: 10,
    });
    // 20:01:30: the 10:00 hour (264) and the maker fill of 20:01 (50); the taker row of 22:00 never counts.
    const fills = await ok<VolumeResponse>(
      `/v2/alpha/markets/${YES}/volume?granularity=all&end_time=${P0 + 90}`,
    );
    expect(fills.volume_over_time[0]).toMatchObject({ volume: 30 + 264 + 50 });
    const taker = await ok<VolumeResponse>(
      `/v2/alpha/markets/${YES}/volume?granularity=all&end_time=${P0 + 2 * H + 30}`,
    );
    expect(taker.volume_over_time[0]).toMatchObject({ volume: 30 + 264 });
  });

  it("open interest: the point stamped with end_time's day holds the OI at end_time, as all does", async () => {
    const days = await ok<OpenInterestResponse>(
      `/v2/alpha/markets/${COND}/open_interest?end_time=${D0 + 4 * H}`,
    );
    expect(days.open_interest_over_time).toEqual([{ timestamp: D0, open_interest_usd: 100 }]);
    const weeks = await ok<OpenInterestResponse>(
      `/v2/alpha/markets/${COND}/open_interest?granularity=week&end_time=${D0 + 2 * DAY}`,
    );
    expect(weeks.open_interest_over_time).toEqual([{ timestamp: D0, open_interest_usd: 80 }]);
  });
});

describe('GET /v2/alpha/volume-chart', () => {
  it('lists hourly volume, YES and NO apart, periods without trades omitted', async () => {
    const r = await ok<VolumeChartResponse>(
      `/v2/alpha/volume-chart/${COND}?start_time=${D0 + 30 * 60}&end_time=${D0 + 11 * H}`,
    );
    expect(r).toEqual({
      condition_id: COND,
      granularity: 'hour',
      start_time: D0 + H,
      end_time: M,
      data: [
        { timestamp: D0 + H, total_volume: 264, yes_volume: 200, no_volume: 64, trades_count: 6 },
        { timestamp: M, total_volume: 10, yes_volume: 4, no_volume: 6, trades_count: 2 },
      ],
    });
  });

  it('rolls days up to weeks from Monday 00:00 UTC', async () => {
    const r = await ok<VolumeChartResponse>(
      `/v2/alpha/volume-chart/${COND}?granularity=week&start_time=${D0 - 3 * DAY}&end_time=${D0 + 9 * DAY}`,
    );
    expect(r.data).toEqual([
      { timestamp: D0 - 7 * DAY, total_volume: 30, yes_volume: 30, no_volume: 0, trades_count: 1 },
      { timestamp: D0, total_volume: 264, yes_volume: 204, no_volume: 60, trades_count: 6 },
      { timestamp: D0 + 7 * DAY, total_volume: 7, yes_volume: 0, no_volume: 7, trades_count: 1 },
    ]);
    const days = await ok<VolumeChartResponse>(
      `/v2/alpha/volume-chart/${COND}?granularity=day&start_time=${D0}&end_time=${D0 + 9 * DAY}`,
    );
    expect(days.data.map((p) => p.timestamp)).toEqual([D0, D0 + 8 * DAY]);
  });

  it("stops the last period at end_time, to its second: coarse candles before end's period, then finer ones and the fills of end's minute", async () => {
    const chart = (g: string, start: number, end: number, id = COND) =>
      ok<VolumeChartResponse>(
        `/v2/alpha/volume-chart/${id}?granularity=${g}&start_time=${start}&end_time=${end}`,
      );
    // 10:01:30 on D0, hourly: the 10:00 minute candle (100, 80 YES), not the whole 10:00 hour (10).
    expect((await chart('hour', D0, M + 90)).data).toEqual([
      { timestamp: D0 + H, total_volume: 264, yes_volume: 200, no_volume: 64, trades_count: 6 },
      { timestamp: M, total_volume: 100, yes_volume: 80, no_volume: 20, trades_count: 3 },
    ]);
    // Daily: D0's hours before 10:00 (264) and that minute (100), not D0's daily candle (264).
    expect((await chart('day', D0 - 3 * DAY, M + 90)).data).toEqual([
      { timestamp: D0 - 2 * DAY, total_volume: 30, yes_volume: 30, no_volume: 0, trades_count: 1 },
      { timestamp: D0, total_volume: 364, yes_volume: 280, no_volume: 84, trades_count: 9 },
    ]);
    // 20:01:30 on D0, weekly: D0's hours (264 + 10), no minute candle of 20:00, the maker fill of 20:01
    // (YES 50; the one of 20:00 is a minute's candle's, none here); D0's day and the next week's not.
    expect((await chart('week', D0 - 3 * DAY, P0 + 90)).data).toEqual([
      { timestamp: D0 - 7 * DAY, total_volume: 30, yes_volume: 30, no_volume: 0, trades_count: 1 },
      { timestamp: D0, total_volume: 324, yes_volume: 254, no_volume: 70, trades_count: 9 },
    ]);
    // The fills of end's minute up to the end of its second, mapped to the condition through
    // alpha_tokens; maker rows only; nothing of the next second or minute.
    for (const [g, period] of [
      ['hour', Q],
      ['day', Q - 12 * H],
      ['week', D0],
    ] as const) {
      expect((await chart(g, Q, Q + 40, COND_LATE)).data, g).toEqual([
        { timestamp: period, total_volume: 50, yes_volume: 20, no_volume: 30, trades_count: 2 },
      ]);
      expect((await chart(g, Q, Q + 39, COND_LATE)).data, g).toEqual([
        { timestamp: period, total_volume: 20, yes_volume: 20, no_volume: 0, trades_count: 1 },
      ]);
    }
  });

  it('answers 422 without end_time and 400 over the range of the granularity', async () => {
    const res = await get(`/v2/alpha/volume-chart/${COND}?start_time=${D0}`);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      expect.objectContaining({ loc: ['query', 'end_time'], type: 'missing' }),
    ]);
    const over = await get(`/v2/alpha/volume-chart/${COND}?start_time=${D0}&end_time=${D0 + 91 * DAY}`);
    expect(over.statusCode).toBe(400);
    expect(over.json().message).toMatch(/granularity=hour .*90 days/);
    const day = `/v2/alpha/volume-chart/${COND}?granularity=day&start_time=${D0}`;
    expect((await get(`${day}&end_time=${D0 + 365 * DAY}`)).statusCode).toBe(200);
    expect((await get(`${day}&end_time=${D0 + 366 * DAY}`)).statusCode).toBe(400);
  });
});

describe('GET /v2/alpha/markets/{token_id}/volume', () => {
  it('gives cumulative volume at the end of each day, earlier trades included', async () => {
    const r = await ok<VolumeResponse>(
      `/v2/alpha/markets/${YES}/volume?start_time=${D0 - DAY}&end_time=${D0 + 4 * DAY}`,
    );
    expect(r).toMatchObject({
      token_id: YES,
      granularity: 'day',
      start_time: D0 - DAY,
      end_time: D0 + 4 * DAY,
    });
    expect(r.volume_over_time).toEqual([
      { timestamp: D0 - DAY, volume: 30, buy_volume: 20, sell_volume: 10 },
      { timestamp: D0, volume: 294, buy_volume: 220, sell_volume: 74 },
      { timestamp: D0 + DAY, volume: 294, buy_volume: 220, sell_volume: 74 },
      { timestamp: D0 + 2 * DAY, volume: 294, buy_volume: 220, sell_volume: 74 },
      { timestamp: D0 + 3 * DAY, volume: 304, buy_volume: 224, sell_volume: 80 },
      { timestamp: D0 + 4 * DAY, volume: 304, buy_volume: 224, sell_volume: 80 },
    ]);
  });

  it('groups by week and month, and answers one point for all', async () => {
    const weeks = await ok<VolumeResponse>(
      `/v2/alpha/markets/${YES}/volume?granularity=week&end_time=${D0 + 4 * DAY}`,
    );
    expect(weeks.volume_over_time.map((p) => [p.timestamp, p.volume])).toEqual([
      [D0 - 7 * DAY, 30],
      [D0, 304],
    ]);
    const months = await ok<VolumeResponse>(
      `/v2/alpha/markets/${YES}/volume?granularity=month&end_time=${D0 + 30 * DAY}`,
    );
    expect(months.volume_over_time.map((p) => [p.timestamp, p.volume])).toEqual([
      [Date.UTC(2023, 10, 1) / 1000, 304],
      [Date.UTC(2023, 11, 1) / 1000, 304],
    ]);
    const all = await ok<VolumeResponse>(
      `/v2/alpha/markets/${YES}/volume?granularity=all&end_time=${D0 + 2 * DAY}`,
    );
    expect(all).toMatchObject({ start_time: D0 + 2 * DAY, end_time: D0 + 2 * DAY });
    expect(all.volume_over_time).toEqual([
      { timestamp: D0 + 2 * DAY, volume: 294, buy_volume: 220, sell_volume: 74 },
    ]);
    const now = Math.floor(Date.now() / 1000);
    const latest = await ok<VolumeResponse>(`/v2/alpha/markets/${YES}/volume?granularity=all`);
    expect(latest.volume_over_time[0]!.volume).toBe(304);
    expect(Math.abs(latest.volume_over_time[0]!.timestamp - now)).toBeLessThan(60);
  });

  it('answers 422 for granularity=minute', async () => {
    const res = await get(`/v2/alpha/markets/${YES}/volume?granularity=minute`);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      expect.objectContaining({ loc: ['query', 'granularity'], type: 'enum' }),
    ]);
  });
});

describe('GET /v2/alpha/markets/{condition_id}/open_interest', () => {
  it('carries open interest forward from the first change, at the end of each period', async () => {
    const r = await ok<OpenInterestResponse>(
      `/v2/alpha/markets/${COND}/open_interest?start_time=${D0 - 3 * DAY}&end_time=${D0 + 4 * DAY}`,
    );
    expect(r).toMatchObject({ condition_id: COND, market_id: null, granularity: 'day', start_time: D0 });
    expect(r.open_interest_over_time).toEqual([
      { timestamp: D0, open_interest_usd: 80 },
      { timestamp: D0 + DAY, open_interest_usd: 80 },
      { timestamp: D0 + 2 * DAY, open_interest_usd: 130 },
      { timestamp: D0 + 3 * DAY, open_interest_usd: 130 },
      { timestamp: D0 + 4 * DAY, open_interest_usd: 130 },
    ]);
    const later = await ok<OpenInterestResponse>(
      `/v2/alpha/markets/${COND}/open_interest?start_time=${D0 + 3 * DAY}&end_time=${D0 + 4 * DAY}`,
    );
    expect(later.open_interest_over_time.map((p) => p.open_interest_usd)).toEqual([130, 130]);
    const at = await ok<OpenInterestResponse>(
      `/v2/alpha/markets/${COND}/open_interest?granularity=all&end_time=${D0 + 4 * H}`,
    );
    expect(at.open_interest_over_time).toEqual([{ timestamp: D0 + 4 * H, open_interest_usd: 100 }]);
    const now = await ok<OpenInterestResponse>(`/v2/alpha/markets/${COND}/open_interest?granularity=all`);
    expect(now.open_interest_over_time[0]!.open_interest_usd).toBe(130);
    const weeks = await ok<OpenInterestResponse>(
      `/v2/alpha/markets/${COND}/open_interest?granularity=week&end_time=${D0 + 8 * DAY}`,
    );
    expect(weeks.open_interest_over_time).toEqual([
      { timestamp: D0, open_interest_usd: 130 },
      { timestamp: D0 + 7 * DAY, open_interest_usd: 130 },
    ]);
  });
});

describe('GET /v2/alpha/market-price', () => {
  const weighted = (0.5 * 50 + 0.52 * 48 + 0.51 * 51 + 0.49 * 49 + 0.5 * 50) / (50 + 48 + 51 + 49 + 50);

  it('averages the last five maker fills by USD when they lie within 0.10 (historical at_time)', async () => {
    const at = P0 + 5 * 60;
    const r = await ok<{ price: number; at_time: number }>(`/v2/alpha/market-price/${YES}?at_time=${at}`);
    expect(r.at_time).toBe(at);
    expect(r.price).toBe(Number(weighted.toFixed(6))); // 0.503952: rounded to 6 decimals
    // The NO token: the same fills in its terms.
    const no = await ok<{ price: number }>(`/v2/alpha/market-price/${NO}?at_time=${at}`);
    expect(no.price).toBe(Number((1 - weighted).toFixed(6)));
    // One second earlier the fifth fill is not yet there: the first fill comes in.
    const before = await ok<{ price: number }>(`/v2/alpha/market-price/${YES}?at_time=${at - 1}`);
    // (0.30 … 0.52: over 0.10 apart, so the last price.)
    expect(before.price).toBe(0.49);
  });

  it('answers the last price, a NO fill converted, when the spread is over 0.10', async () => {
    const now = Math.floor(Date.now() / 1000);
    const r = await ok<{ price: number; at_time: number }>(`/v2/alpha/market-price/${YES}`);
    expect(r.price).toBeCloseTo(0.75, 12);
    expect(Math.abs(r.at_time - now)).toBeLessThan(60);
    const no = await ok<{ price: number }>(`/v2/alpha/market-price/${NO}`);
    expect(no.price).toBeCloseTo(0.25, 12);
  });

  it('compares the spread exactly: 0.80 and 0.70 are within 0.10, 0.80 and 0.699999 are not', () => {
    const fill = (num: number, usd = 1) => ({ num: BigInt(num), den: 1_000_000n, usd });
    expect(priceOf([fill(800_000), fill(700_000)])).toBeCloseTo(0.75, 12);
    expect(priceOf([fill(800_000), fill(699_999)])).toBe(0.8);
    expect(priceOf([fill(300_000, 3), fill(400_000, 1)])).toBeCloseTo(0.325, 12);
  });

  it('answers 404 before the first fill', async () => {
    const res = await get(`/v2/alpha/market-price/${YES}?at_time=${P0 - 1}`);
    expect(res.statusCode).toBe(404);
  });
});

describe('response cache', () => {
  it('keeps candles until analytics:alpha-market-data moves, the price until alpha-chain moves', async () => {
    const versions = createDataVersions({ redis: t.deps.redis });
    const candles = `/v2/alpha/candlesticks/token/${LONE}?interval=1&start_time=${M + 7 * DAY}&end_time=${M + 7 * DAY + 60}`;
    const closeOf = async () => (await ok<CandlesResponse>(candles)).candlesticks[0]!.price.close;
    expect(await closeOf()).toBe(0.58);
    await t.deps.clickhouse.insert('test.candles.v3', 'alpha_token_candles_1m', [
      tokenCandle(LONE, { ...m1, bucket: M + 7 * DAY, c: 0.66, version: 3 }),
    ]);
    // Written without a bump (no analytics run did it): the cached answer stays.
    expect(await closeOf()).toBe(0.58);
    await versions.bump(ALPHA_CHAIN_SOURCE);
    expect(await closeOf()).toBe(0.58);
    await versions.bump('analytics:alpha-market-data');
    expect(await closeOf()).toBe(0.66);

    const priceUrl = `/v2/alpha/market-price/${YES}?at_time=${P0 + 3 * H}`;
    const priceNow = async () => (await ok<{ price: number }>(priceUrl)).price;
    expect(await priceNow()).toBeCloseTo(0.75, 12);
    await t.deps.clickhouse.insert('test.fills.late', 'alpha_fills', [
      fillRow({
        block: 1100,
        logIndex: 1,
        maker: addr(0xb),
        tokenId: YES,
        usd: 80e6,
        shares: 100e6,
        time: P0 + 2 * H + 1,
      }),
    ]);
    expect(await priceNow()).toBeCloseTo(0.75, 12);
    await versions.bump('analytics:alpha-market-data');
    expect(await priceNow()).toBeCloseTo(0.75, 12);
    await versions.bump(ALPHA_CHAIN_SOURCE);
    expect(await priceNow()).toBeCloseTo(0.8, 12);
  });

  it("keeps the volume chart and token volume until alpha-chain moves too (end_time's minute reads fills)", async () => {
    const versions = createDataVersions({ redis: t.deps.redis });
    const chart = `/v2/alpha/volume-chart/${COND_LATE}?start_time=${Q}&end_time=${Q + 40}`;
    const volume = `/v2/alpha/markets/${LATE_YES}/volume?granularity=all&end_time=${Q + 40}`;
    const chartUsd = async () => (await ok<VolumeChartResponse>(chart)).data[0]!.total_volume;
    const tokenUsd = async () => (await ok<VolumeResponse>(volume)).volume_over_time[0]!.volume;
    expect([await chartUsd(), await tokenUsd()]).toEqual([50, 20]);
    await t.deps.clickhouse.insert('test.fills.chart.late', 'alpha_fills', [
      fillRow({ block: 2100, logIndex: 1, maker: addr(0xc), tokenId: LATE_YES, usd: 5e6, time: Q + 30 }),
    ]);
    expect([await chartUsd(), await tokenUsd()]).toEqual([50, 20]);
    await versions.bump(ALPHA_CHAIN_SOURCE);
    expect([await chartUsd(), await tokenUsd()]).toEqual([55, 25]);
  });
});
