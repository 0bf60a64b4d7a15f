/**
 * `npm run bench -- orderbooks [--snapshots N] [--markets N] [--levels N] [--alpha-quotes N] [--requests N]
 * [--size-period N] [--no-optimize]`: the order book history endpoints over 10,000,000 snapshots of 5,000
 * markets (10 levels a side) generated into orderbook_snapshots (beta, gamma, delta, epsilon in turn; beta's alternate
 * rest and ws) and, for alpha, alpha_book_quotes at the same snapshots per market (`--alpha-quotes`,
 * default snapshots ÷ 5 over markets ÷ 5 tokens). Reports the table's compressed bytes per snapshot
 * (active parts after merges settle, per column), then per endpoint the page latency at limit 100 and at
 * its maximum through the whole app (`app.inject`: key, limits, validation, handler, serialization;
 * response cache off), each request a random market and a random start in its history. Goals: ≤ 150
 * bytes per snapshot, p99 < 50 ms (limit 100) and < 250 ms (maximum). Last line `SUMMARY
 * bytes_per_snapshot=… p99_ms_100=… p99_ms_max=…` (the worst endpoint). The tables are merged
 * (`OPTIMIZE … FINAL`) before timing, as months of history would be; `--no-optimize` times the parts the
 * bulk load left.
 *
 * The books (documented in docs/orderbooks.md, "Benchmark"): each market's mid (tenths of a cent) drifts
 * by a tenth of a cent to a cent every 50 snapshots; one market in ten has a 0.1-cent tick, the others
 * 1 cent; each level's size (0.01–1,000 contracts, 2 decimals) changes every 5 snapshots, the levels'
 * changes staggered, so consecutive snapshots of a market differ in a few levels, as recorded books do
 * (an unchanged book is not recorded again within the keep-alive); `--size-period 1` changes every level
 * of every snapshot (the worst case for compression). Snapshots of a market are 60 s apart.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { buildApp } from '../api/app.ts';
import { createKeyStore } from '../api/keys/store.ts';
import type { ClickHouse } from '../core/clickhouse/index.ts';
import { settleMerges } from './analytics/profile.ts';
import { openBenchWorld } from './support/world.ts';

const n = (v: number | string) => Number(v).toLocaleString('en-US');
const BASE_MS = Date.UTC(2026, 9, 1);
const STEP_MS = 60_000;
/** Rows per INSERT … SELECT (bounded memory, progress lines). */
const CHUNK = 2_000_000;

/** The market key of market `i` of the generated set (its venue is VENUES[i % 4]). */
const marketKeySql = `multiIf(mi % 4 = 0, concat('KXBOOK-', toString(mi)), mi % 4 = 1, concat('book-market-', toString(mi)), toString(mi))`;
const marketKey = (i: number) => (i % 4 === 0 ? `KXBOOK-${i}` : i % 4 === 1 ? `book-market-${i}` : String(i));

/** Levels of one side as Decimal(18,6) dollars: mid ∓ tick × (1..L), in tenths of a cent. */
const side = (op: '-' | '+', levels: number) =>
  `arrayMap(i -> toDecimal64(mid ${op} tick * (i + 1), 6) / 1000, range(${levels}))`;
/** Sizes 0.01–1,000.00 per level, each changing every 5 snapshots, the levels staggered. */
const sizes = (salt: number, levels: number, period: number) =>
  `arrayMap(i -> toDecimal64(cityHash64(mi, i, ${salt}, intDiv(k + i * 3, ${period})) % 100000 + 1, 6) / 100, range(${levels}))`;

export async function writeSnapshots(
  ch: ClickHouse,
  o: { snapshots: number; markets: number; levels: number; period: number },
  record: (s: string) => void,
) {
  for (let from = 0; from < o.snapshots; from += CHUNK) {
    const count = Math.min(CHUNK, o.snapshots - from);
    const t0 = performance.now();
    await ch.command(
      'bench.orderbooks.snapshots',
      `INSERT INTO orderbook_snapshots
         (venue, market, token_id, ts, sequence, source, observed_at, bid_prices, bid_sizes, ask_prices,
          ask_sizes, hash, midpoint, adjusted_midpoint)
       SELECT
         ['beta', 'gamma', 'delta', 'epsilon'][mi % 4 + 1] AS venue,
         ${marketKeySql} AS market,
         if(mi % 4 IN (1, 2), toString(cityHash64(mi, 'token')), '') AS token_id,
         fromUnixTimestamp64Milli(toInt64({base:Int64} + k * {step:Int64} + (mi * 7919) % {step:Int64}), 'UTC') AS ts,
         toUInt64(toUnixTimestamp64Milli(ts) + 500) AS sequence,
         if(mi % 4 = 0 AND k % 2 = 1, 'ws', 'rest') AS source,
         fromUnixTimestamp64Milli(toInt64(sequence), 'UTC') AS observed_at,
         ${side('-', o.levels)} AS bid_prices,
         ${sizes(1, o.levels, o.period)} AS bid_sizes,
         ${side('+', o.levels)} AS ask_prices,
         ${sizes(2, o.levels, o.period)} AS ask_sizes,
         cityHash64(mi, k) AS hash,
         if(mi % 4 = 1, toNullable(toDecimal64(mid, 6) / 1000), NULL) AS midpoint,
         if(mi % 4 = 1, toNullable(toDecimal64(mid + 5, 6) / 1000), NULL) AS adjusted_midpoint
       FROM (
         SELECT
           number % {markets:UInt64} AS mi,
           intDiv(number, {markets:UInt64}) AS k,
           if(mi % 10 = 0, 1, 10) AS tick,
           -- The mid, a multiple of the tick between 0.15 and 0.85, drifting every 50 snapshots.
           tick * intDiv(150 + (mi * 37) % 600 + (cityHash64(mi, intDiv(k, 50)) % 21) - 10, tick) AS mid
         FROM numbers({from:UInt64}, {count:UInt64})
       )`,
      {
        base: BASE_MS,
        step: STEP_MS,
        markets: o.markets,
        from,
        count,
      },
    );
    record(
      `      orderbook_snapshots ${n(from + count)} / ${n(o.snapshots)} (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
    );
  }
}

export async function writeAlphaQuotes(
  ch: ClickHouse,
  o: { quotes: number; tokens: number; levels: number },
) {
  await ch.command(
    'bench.orderbooks.alpha',
    `INSERT INTO alpha_book_quotes
       (token_id, observed_at, condition_id, book_time, hash, best_bid, best_ask, mid, bid_prices, bid_sizes,
        ask_prices, ask_sizes, tick_size)
     SELECT
       toString(cityHash64(mi, 'alpha')) AS token_id,
       fromUnixTimestamp64Milli(toInt64({base:Int64} + k * {step:Int64} + 250), 'UTC') AS observed_at,
       concat('0x', lower(hex(cityHash64(mi, 'condition'))), repeat('0', 48)) AS condition_id,
       fromUnixTimestamp64Milli(toInt64({base:Int64} + k * {step:Int64}), 'UTC') AS book_time,
       concat('0x', lower(hex(cityHash64(mi, k)))) AS hash,
       bid_prices[1] AS best_bid,
       ask_prices[1] AS best_ask,
       (best_bid + best_ask) / 2 AS mid,
       arrayMap(i -> (m - (i + 1) * 10) / 1000, range(${o.levels})) AS bid_prices,
       arrayMap(i -> (cityHash64(mi, i, 1, intDiv(k + i * 3, 5)) % 100000 + 1) / 100, range(${o.levels})) AS bid_sizes,
       arrayMap(i -> (m + (i + 1) * 10) / 1000, range(${o.levels})) AS ask_prices,
       arrayMap(i -> (cityHash64(mi, i, 2, intDiv(k + i * 3, 5)) % 100000 + 1) / 100, range(${o.levels})) AS ask_sizes,
       '0.01' AS tick_size
     FROM (
       SELECT number % {tokens:UInt64} AS mi, intDiv(number, {tokens:UInt64}) AS k,
         10 * intDiv(150 + (mi * 37) % 600 + (cityHash64(mi, intDiv(k, 50)) % 21) - 10, 10) AS m
       FROM numbers({quotes:UInt64})
     )`,
    { base: BASE_MS, step: STEP_MS, tokens: o.tokens, quotes: o.quotes },
  );
}

/** Active parts of orderbook_snapshots. */
async function partsOf(ch: ClickHouse): Promise<number> {
  const [r] = await ch.query<{ c: string }>(
    'bench.orderbooks.parts',
    `SELECT count() AS c FROM system.parts
     WHERE database = currentDatabase() AND table = 'orderbook_snapshots' AND active`,
  );
  return Number(r!.c);
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

/** A deterministic generator (mulberry32), so runs draw the same requests. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Endpoint {
  name: string;
  max: number;
  /** The URL of a random market's page from a random start to the end of the history. */
  url(r: () => number, limit: number): string;
}

export async function run(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      snapshots: { type: 'string', default: '10000000' },
      markets: { type: 'string', default: '5000' },
      levels: { type: 'string', default: '10' },
      'alpha-quotes': { type: 'string' },
      requests: { type: 'string', default: '200' },
      'size-period': { type: 'string', default: '5' },
      'no-optimize': { type: 'boolean', default: false },
    },
  });
  const snapshots = Number(values.snapshots);
  const markets = Number(values.markets);
  const levels = Number(values.levels);
  const requests = Number(values.requests);
  const period = Number(values['size-period']);
  const optimize = !values['no-optimize'];
  const alphaTokens = Math.max(1, Math.floor(markets / 5));
  const alphaQuotes = Number(values['alpha-quotes'] ?? Math.floor(snapshots / 5));
  for (const [name, v] of Object.entries({ snapshots, markets, levels, requests, alphaQuotes, period })) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`--${name} must be a positive integer`);
  }
  if (markets < 4) throw new Error('--markets must be at least 4 (one per venue)');
  const record = (text: string) => process.stdout.write(`${text}\n`);
  const loadAtStart = os.loadavg();
  const world = await openBenchWorld('orderbooks');
  const { log, config, clickhouse, redis } = world;
  try {
    record(
      `orderbooks benchmark: ${n(snapshots)} snapshots of ${n(markets)} markets (${levels} levels a side), ` +
        `each level's size changing every ${period} snapshots, alpha ${n(alphaQuotes)} quotes of ${n(alphaTokens)} tokens; embedded chDB, ${os.cpus().length} cores, ` +
        `load average at start ${loadAtStart.map((l) => l.toFixed(2)).join(' ')}`,
    );
    const g0 = performance.now();
    await writeSnapshots(clickhouse, { snapshots, markets, levels, period }, record);
    await writeAlphaQuotes(clickhouse, { quotes: alphaQuotes, tokens: alphaTokens, levels });
    record(`data: written in ${((performance.now() - g0) / 1000).toFixed(1)} s`);
    const settled = await settleMerges(clickhouse, 600);
    record(
      settled.running === 0
        ? `      background merges settled in ${settled.s.toFixed(1)} s, ${await partsOf(clickhouse)} parts`
        : `      ${settled.running} background merges still running after ${settled.s.toFixed(0)} s`,
    );
    if (optimize) {
      // A table holding months of history is mostly merged; the bulk load leaves several parts per
      // partition that the merge selector would merge only later. Merged: what a steady state serves.
      const o0 = performance.now();
      await clickhouse.command('bench.orderbooks.optimize', 'OPTIMIZE TABLE orderbook_snapshots FINAL');
      await clickhouse.command('bench.orderbooks.optimize', 'OPTIMIZE TABLE alpha_book_quotes FINAL');
      record(
        `      OPTIMIZE … FINAL in ${((performance.now() - o0) / 1000).toFixed(1)} s: ${await partsOf(clickhouse)} parts`,
      );
    }

    // Bytes per snapshot: the active parts' compressed data, and where it goes.
    const [size] = await clickhouse.query<{ rows: string; bytes: string; raw: string; parts: string }>(
      'bench.orderbooks.size',
      `SELECT sum(rows) AS rows, sum(data_compressed_bytes) AS bytes, sum(data_uncompressed_bytes) AS raw,
         count() AS parts
       FROM system.parts WHERE database = currentDatabase() AND table = 'orderbook_snapshots' AND active`,
    );
    const bytesPerSnapshot = Number(size!.bytes) / Number(size!.rows);
    record('');
    record(
      `orderbook_snapshots: ${n(size!.rows)} rows in ${size!.parts} parts, ${(Number(size!.bytes) / 2 ** 20).toFixed(1)} MiB ` +
        `compressed (${(Number(size!.raw) / 2 ** 20).toFixed(1)} MiB raw): ${bytesPerSnapshot.toFixed(1)} bytes per snapshot (goal ≤ 150)`,
    );
    const columns = await clickhouse.query<{ name: string; bytes: string; raw: string }>(
      'bench.orderbooks.columns',
      `SELECT name, data_compressed_bytes AS bytes, data_uncompressed_bytes AS raw
       FROM system.columns WHERE database = currentDatabase() AND table = 'orderbook_snapshots'
       ORDER BY data_compressed_bytes DESC`,
    );
    for (const c of columns) {
      record(
        `    ${c.name.padEnd(18)} ${(Number(c.bytes) / Number(size!.rows)).toFixed(2).padStart(7)} B/snapshot ` +
          `(${(Number(c.raw) / Math.max(1, Number(c.bytes))).toFixed(1)}× compressed)`,
      );
    }

    // Each market's history: [BASE + offset, BASE + offset + (k - 1) × step].
    const perMarket = Math.ceil(snapshots / markets);
    const span = (perMarket - 1) * STEP_MS;
    const pick = (r: () => number, venue: number) => {
      const i = Math.floor(r() * Math.floor(markets / 4)) * 4 + venue;
      return i < markets ? i : venue;
    };
    const range = (r: () => number, i: number) => {
      const start = BASE_MS + ((i * 7919) % STEP_MS) + Math.floor(r() * span);
      return `start_time=${start}&end_time=${BASE_MS + span + STEP_MS}`;
    };
    const alphaSpan = (Math.ceil(alphaQuotes / alphaTokens) - 1) * STEP_MS;
    const alphaTokenIds = await clickhouse.query<{ t: string }>(
      'bench.orderbooks.tokens',
      `SELECT toString(cityHash64(number, 'alpha')) AS t FROM numbers({n:UInt64})`,
      { n: alphaTokens },
    );
    const endpoints: Endpoint[] = [
      {
        name: 'alpha',
        max: 2000,
        url: (r, limit) => {
          const t = alphaTokenIds[Math.floor(r() * alphaTokenIds.length)]!.t;
          const start = BASE_MS + Math.floor(r() * alphaSpan);
          return `/v2/alpha/orderbooks?token_id=${t}&start_time=${start}&end_time=${BASE_MS + alphaSpan}&limit=${limit}`;
        },
      },
      {
        name: 'beta',
        max: 2000,
        url: (r, limit) => {
          const i = pick(r, 0);
          return `/v2/beta/orderbooks?ticker=${marketKey(i)}&${range(r, i)}&limit=${limit}`;
        },
      },
      {
        name: 'beta-subcent',
        max: 2000,
        url: (r, limit) => {
          const i = pick(r, 0);
          return `/v2/beta/orderbooks-subcent?ticker=${marketKey(i)}&${range(r, i)}&limit=${limit}`;
        },
      },
      {
        name: 'gamma',
        max: 200,
        url: (r, limit) => {
          const i = pick(r, 1);
          return `/v2/gamma/orderbooks?market_slug=${marketKey(i)}&${range(r, i)}&limit=${limit}`;
        },
      },
      {
        name: 'delta',
        max: 200,
        url: (r, limit) => {
          const i = pick(r, 2);
          return `/v2/delta/orderbooks?market_id=${marketKey(i)}&${range(r, i)}&limit=${limit}`;
        },
      },
      {
        name: 'epsilon',
        max: 200,
        url: (r, limit) => {
          const i = pick(r, 3);
          return `/v2/epsilon/orderbooks?market_id=${marketKey(i)}&${range(r, i)}&limit=${limit}`;
        },
      },
    ];

    const app = await buildApp({
      config,
      log,
      clickhouse,
      redis,
      secret: 'bench-orderbooks-secret-0123456789abcdefgh',
    });
    const results: { name: string; limit: number; p50: number; p99: number; max: number }[] = [];
    try {
      await app.ready();
      const { key } = await createKeyStore(redis).create({
        tier: 'enterprise',
        name: 'bench',
        rate: 1_000_000,
      });
      const headers = { 'x-api-key': key };
      record('');
      record(
        `API, ${requests} sequential requests per endpoint and limit through app.inject, response cache off:`,
      );
      record(
        `    ${'endpoint'.padEnd(14)} ${'limit'.padStart(5)}  items/page     bytes  p50 ms  p99 ms  max ms   goal`,
      );
      for (const e of endpoints) {
        for (const limit of [100, e.max]) {
          const r = rng(limit * 31 + e.name.length);
          for (let w = 0; w < 5; w++) await app.inject({ method: 'GET', url: e.url(r, limit), headers });
          const ms: number[] = [];
          let items = 0;
          let bytes = 0;
          for (let i = 0; i < requests; i++) {
            const url = e.url(r, limit);
            const t0 = performance.now();
            const res = await app.inject({ method: 'GET', url, headers });
            ms.push(performance.now() - t0);
            if (res.statusCode !== 200)
              throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
            items += (res.json() as { snapshots: unknown[] }).snapshots.length;
            bytes += res.rawPayload.length;
          }
          ms.sort((a, b) => a - b);
          const t = {
            name: e.name,
            limit,
            p50: percentile(ms, 50),
            p99: percentile(ms, 99),
            max: ms.at(-1)!,
          };
          results.push(t);
          const goal = limit === 100 ? 50 : 250;
          record(
            `    ${e.name.padEnd(14)} ${String(limit).padStart(5)} ${(items / requests).toFixed(0).padStart(11)} ` +
              `${(bytes / requests).toFixed(0).padStart(9)} ${t.p50.toFixed(1).padStart(7)} ${t.p99.toFixed(1).padStart(7)} ` +
              `${t.max.toFixed(1).padStart(7)} ${`< ${goal}`.padStart(6)}`,
          );
        }
      }
    } finally {
      await app.close();
    }
    const worst = (at100: boolean) =>
      Math.max(...results.filter((r) => (r.limit === 100) === at100).map((r) => r.p99)).toFixed(1);
    record('');
    record(
      `SUMMARY bytes_per_snapshot=${bytesPerSnapshot.toFixed(1)} p99_ms_100=${worst(true)} p99_ms_max=${worst(false)}`,
    );
  } finally {
    await world.close();
  }
}
