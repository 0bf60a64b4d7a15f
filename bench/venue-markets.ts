/**
 * `npm run bench -- venue-markets [--markets N] [--trades N] [--requests N] [--alpha-events N]`: the
 * venue market lists, beta's trades and the cross-venue search over 100,000 markets per venue and
 * 10,000,000 beta trades (bench/venue-markets/data.ts), through the whole app by `app.inject`, one
 * request at a time, response cache off. Per kind: p50/p99/max, statements per request; then one
 * profiled pass (rows read and engine CPU per statement label) to show where the time goes. Goals:
 * p99 < 50 ms (lists, trades), < 100 ms (search). Last line: `SUMMARY venue-markets ...`.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { buildAlphaCatalogLists } from '../analytics/catalog/build.ts';
import { buildApp } from '../api/app.ts';
import { createKeyStore } from '../api/keys/store.ts';
import { createDataVersions } from '../core/data-version.ts';
import { writeSyntheticCatalog } from '../sim/catalog-tables.ts';
import {
  type ApiKind,
  type ProfiledTiming,
  routeMissing,
  statementCells,
  timeKind,
  timeKindProfiled,
  timingCells,
} from './analytics/api.ts';
import { createProfiler, formatProfile, settleMerges } from './analytics/profile.ts';
import { openBenchWorld } from './support/world.ts';
import {
  betaEventTicker,
  marketKey,
  REST_VENUES,
  topicIds,
  topicOf,
  writeBetaTrades,
  writeVenueMarkets,
} from './venue-markets/data.ts';

const n = (v: number | string) => Number(v).toLocaleString('en-US');
const DAY = 86_400_000;

interface Kind extends ApiKind {
  group: 'list' | 'trades' | 'search';
  goal: number;
}

function kinds(markets: number, endMs: number): Kind[] {
  const out: Kind[] = [];
  for (const venue of REST_VENUES) {
    // A topic listed on every venue: its YES id finds one market per venue (several where topics repeat).
    const [yesId] = topicIds(topicOf(venue, 11, markets));
    out.push(
      { group: 'list', goal: 50, name: `${venue} list default`, url: `/v2/${venue}/markets` },
      {
        group: 'list',
        goal: 50,
        name: `${venue} list canonical_id`,
        url: `/v2/${venue}/markets?canonical_id=${yesId}`,
      },
      {
        group: 'list',
        goal: 50,
        name: `${venue} list search`,
        url: `/v2/${venue}/markets?search=bitcoin%20reach`,
      },
    );
  }
  const busiest = marketKey('beta', 0);
  const median = marketKey('beta', Math.floor(markets / 2));
  const weekAgo = Math.floor((endMs - 7 * DAY) / 1000);
  out.push(
    { group: 'trades', goal: 50, name: 'trades busiest ticker', url: `/v2/beta/trades?ticker=${busiest}` },
    {
      group: 'trades',
      goal: 50,
      name: 'trades busiest, asc, last 7 d',
      url: `/v2/beta/trades?ticker=${busiest}&order=asc&start_time=${weekAgo}`,
    },
    {
      group: 'trades',
      goal: 50,
      name: 'trades busiest, min_count 150',
      url: `/v2/beta/trades?ticker=${busiest}&min_count=150&taker_side=no`,
    },
    { group: 'trades', goal: 50, name: 'trades median ticker', url: `/v2/beta/trades?ticker=${median}` },
    {
      group: 'trades',
      goal: 50,
      name: 'trades event_ticker',
      url: `/v2/beta/trades?event_ticker=${betaEventTicker(0)}&limit=500`,
    },
    { group: 'search', goal: 100, name: 'search "bitcoin"', url: '/v2/markets/search?q=bitcoin' },
    {
      group: 'search',
      goal: 100,
      name: 'search "celtics beat lakers"',
      url: '/v2/markets/search?q=celtics%20beat%20lakers&limit=100',
    },
    {
      group: 'search',
      goal: 100,
      name: 'search "election" closed',
      url: '/v2/markets/search?q=election&status=closed',
    },
  );
  return out;
}

export async function run(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      markets: { type: 'string', default: '100000' },
      trades: { type: 'string', default: '10000000' },
      requests: { type: 'string', default: '200' },
      'alpha-events': { type: 'string', default: '20000' },
    },
  });
  const markets = Number(values.markets);
  const trades = Number(values.trades);
  const requests = Number(values.requests);
  const alphaEvents = Number(values['alpha-events']);
  for (const [name, v] of Object.entries({ markets, trades, requests, 'alpha-events': alphaEvents })) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`--${name} must be a positive integer`);
  }
  const record = (text: string) => process.stdout.write(`${text}\n`);
  const loadAtStart = os.loadavg();
  const world = await openBenchWorld('venue-markets');
  const { log, config, clickhouse, redis } = world;
  try {
    record(
      `venue-markets benchmark: ${n(markets)} markets per venue, ${n(trades)} beta trades, ` +
        `${n(alphaEvents)} alpha events; embedded chDB, ${os.cpus().length} cores, load average at start ` +
        loadAtStart.map((l) => l.toFixed(2)).join(' '),
    );
    const now = Date.UTC(2026, 10, 1);
    const startMs = now - 30 * DAY;
    const g0 = performance.now();
    const alpha = await writeSyntheticCatalog(clickhouse, {
      seed: 'venue-markets',
      events: alphaEvents,
      marketsPerEvent: [1, 9],
      now,
    }).then((cat) => cat.markets.length);
    await buildAlphaCatalogLists({ clickhouse, log, versions: createDataVersions({ redis }) }, { now });
    record(
      `data: alpha ${n(alpha)} markets (catalog + lists) in ${((performance.now() - g0) / 1000).toFixed(1)} s`,
    );
    const exists = async (table: string) =>
      (await clickhouse.query<{ result: number }>('bench.venue_markets.exists', `EXISTS TABLE ${table}`))[0]
        ?.result === 1;
    for (const venue of REST_VENUES) {
      if (!(await exists(`${venue}_markets`))) {
        record(`      ${venue}: table ${venue}_markets not present, not written`);
        continue;
      }
      const v0 = performance.now();
      await writeVenueMarkets(clickhouse, venue, { markets, startMs, now });
      record(
        `      ${venue} ${n(markets)} markets + ${n(2 * markets)} canonical outcomes in ${((performance.now() - v0) / 1000).toFixed(1)} s`,
      );
    }
    if (await exists('beta_trades')) {
      const t0 = performance.now();
      const rss0 = process.memoryUsage().rss;
      await writeBetaTrades(clickhouse, { trades, markets, endMs: now, days: 60 });
      const [counted] = await clickhouse.query<{ c: string; busiest: string }>(
        'bench.venue_markets.count',
        `SELECT count() AS c, countIf(ticker = {t:String}) AS busiest FROM beta_trades`,
        { t: marketKey('beta', 0) },
      );
      record(
        `      beta ${n(counted!.c)} trades (busiest ticker ${n(counted!.busiest)}) in ${((performance.now() - t0) / 1000).toFixed(1)} s, ` +
          `process RSS ${(rss0 / 2 ** 20).toFixed(0)} → ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`,
      );
    } else {
      record('      beta: table beta_trades not present, no trades written');
    }
    const settled = await settleMerges(clickhouse, 300);
    record(
      settled.running === 0
        ? `      background merges settled in ${settled.s.toFixed(1)} s before timing`
        : `      ${settled.running} background merges still running after ${settled.s.toFixed(0)} s: timing beside them`,
    );

    const profiler = createProfiler(clickhouse);
    const app = await buildApp({
      config,
      log,
      clickhouse: profiler.clickhouse,
      redis,
      secret: 'bench-venue-markets-secret-0123456789abcdef',
    });
    const timings: (ProfiledTiming & { kind: Kind })[] = [];
    try {
      await app.ready();
      const { key } = await createKeyStore(redis).create({
        tier: 'enterprise',
        name: 'bench',
        rate: 1_000_000,
      });
      record('');
      record(`API, ${requests} sequential requests per kind through app.inject, response cache off:`);
      record(
        `    ${'kind'.padEnd(34)} status  items    bytes  p50 ms  p99 ms  max ms   goal   stmt ms  stmts`,
      );
      const all = kinds(markets, now);
      for (const k of all) {
        if (await routeMissing(app, key, k.url)) {
          record(`    ${k.name.padEnd(34)} route not present (${k.url})`);
          continue;
        }
        const t = await timeKindProfiled(app, key, k, requests, profiler);
        record(
          `    ${t.name.padEnd(34)} ${timingCells(t)} ${`< ${k.goal}`.padStart(6)} ${statementCells(t)}`,
        );
        // A kind that failed (its table missing, a fault) is shown but not summarized.
        if (t.status === 200) timings.push({ ...t, kind: k });
      }
      // Where the time goes: each kind a few more times with the engine's counters per statement.
      record('');
      for (const t of timings) {
        profiler.start({ events: true });
        await timeKind(app, key, t.kind, 3, 0);
        for (const line of formatProfile(`profile: ${t.name} (3 requests)`, profiler.stop(), 4))
          record(`    ${line}`);
      }
    } finally {
      await app.close();
    }

    const worst = (group: Kind['group'], f: 'p50' | 'p99') => {
      const xs = timings.filter((t) => t.kind.group === group).map((t) => t[f]);
      return xs.length === 0 ? 'n/a' : Math.max(...xs).toFixed(1);
    };
    const met = timings.every((t) => t.p99 < t.kind.goal);
    record('');
    record(
      `SUMMARY venue-markets markets=${markets} trades=${trades} lists_p50_max=${worst('list', 'p50')} ` +
        `lists_p99_max=${worst('list', 'p99')} trades_p50_max=${worst('trades', 'p50')} ` +
        `trades_p99_max=${worst('trades', 'p99')} search_p50_max=${worst('search', 'p50')} ` +
        `search_p99_max=${worst('search', 'p99')} kinds=${timings.length} goals_met=${met ? 'yes' : 'no'}`,
    );
  } finally {
    await world.close();
  }
}
