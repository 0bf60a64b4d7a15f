/**
 * `npm run bench -- api [--fills N] [--activity N] [--requests R] [--concurrency 1,4,16] [--limit L]
 *   [--hot-urls H] [--zipf S] [--granularity G] [--live] [--live-seconds T] [--live-size small]
 *   [--live-rate M] [--live-seed S] [--metrics-rounds K] [--metrics-requests M]`
 *
 * The API's benchmark. Generates N fills (default 1,000,000) and N/4 activity rows into a fresh embedded
 * database (bench/api/data.ts), starts the real server on loopback (auth, rate limiter, validation,
 * serialization, whatever response cache the configuration turns on) and loads it from this process:
 * every scenario of bench/api/scenarios.ts plus the lookups mix, at each concurrency, uncached (every
 * request a key not requested before) and hot (a Zipf mix over H repeated URLs). Prints req/s,
 * p50/p90/p99, CPU ms per request and errors per run; at concurrency 1, where a request's phases run one
 * after another, where its time goes (bench/api/phases.ts). `--live` then follows the simulated chain in
 * this process and loads what it ingests (bench/api/live.ts). Then the HTTP metrics' cost: two more
 * servers, with and without the request metrics hook, loaded in K alternating rounds (default 5) of M hot
 * mix requests at concurrency 4, and the time of a `/metrics` scrape (bench/api/metrics-cost.ts;
 * `--metrics-rounds 0` skips it). The last line is the SUMMARY.
 *
 * API_CACHE_* variables in the environment reach the server's configuration (API_CACHE_BYTES=0: no cache).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createKeyStore } from '../api/keys/store.ts';
import { startServer } from '../api/server.ts';
import { createClickHouse } from '../core/clickhouse/index.ts';
import { loadConfig } from '../core/config.ts';
import { createLogger } from '../core/logger.ts';
import { migrate } from '../core/migrations.ts';
import { freePort } from '../core/net.ts';
import { createRedis } from '../core/redis.ts';
import { startRedisServer } from '../core/redis-server.ts';
import { CONFIG_SECTIONS } from '../jobs/config.ts';
import type { CatalogSize } from '../sim/world/catalog.ts';
import { generateActivitySql, generateSql, generateTokensSql, type KeyKind, sampleKeys } from './api/data.ts';
import { runLive } from './api/live.ts';
import { type LoadResult, load } from './api/load.ts';
import { type MetricsCost, measureMetricsCost } from './api/metrics-cost.ts';
import { createPhaseProbe, formatBreakdown } from './api/phases.ts';
import {
  createFreshKeys,
  hotUrls,
  MIX_NAME,
  MIX_OF,
  SCENARIOS,
  type Scenario,
  type UrlSource,
  uncachedUrls,
} from './api/scenarios.ts';

const KINDS: KeyKind[] = ['wallet', 'token', 'txHash', 'activityWallet'];

function line(name: string, mode: string, c: number, r: LoadResult): string {
  const codes = Object.entries(r.errorCodes)
    .map(([k, v]) => `${k}×${v}`)
    .join(',');
  return [
    name.padEnd(22),
    mode.padEnd(8),
    String(c).padStart(4),
    r.rps.toFixed(0).padStart(7),
    r.p50.toFixed(1).padStart(8),
    r.p90.toFixed(1).padStart(8),
    r.p99.toFixed(1).padStart(8),
    r.max.toFixed(1).padStart(8),
    r.rowsPerRequest.toFixed(1).padStart(9),
    r.cpuMs.toFixed(2).padStart(10),
    `${String(r.errors).padStart(7)}${codes ? ` (${codes})` : ''}`,
  ].join(' ');
}
const HEADER =
  'scenario               mode     conc   req/s   p50 ms   p90 ms   p99 ms   max ms  rows/req  cpu ms/req  errors';

const fmt = (v: number | undefined, digits: number) =>
  v === undefined || !Number.isFinite(v) ? 'n/a' : v.toFixed(digits);

export async function run(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      fills: { type: 'string', default: '1000000' },
      activity: { type: 'string' },
      concurrency: { type: 'string', default: '1,4,16' },
      requests: { type: 'string', default: '500' },
      limit: { type: 'string', default: '50' },
      'hot-urls': { type: 'string', default: '20' },
      zipf: { type: 'string', default: '1' },
      // What-if: recreate alpha_fills (this run's own database only) with another index_granularity.
      granularity: { type: 'string' },
      live: { type: 'boolean', default: false },
      'live-seconds': { type: 'string', default: '30' },
      'live-size': { type: 'string', default: 'small' },
      'live-rate': { type: 'string', default: '2' },
      'live-seed': { type: 'string', default: 'bench-live' },
      'metrics-rounds': { type: 'string', default: '5' },
      'metrics-requests': { type: 'string', default: '2000' },
    },
  });
  const fills = Number(values.fills);
  const activity = values.activity === undefined ? Math.floor(fills / 4) : Number(values.activity);
  const concurrencies = values.concurrency.split(',').map(Number);
  const requests = Number(values.requests);
  const limit = Number(values.limit);
  const hotCount = Number(values['hot-urls']);
  const zipfS = Number(values.zipf);
  const loadAtStart = os.loadavg();

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pmdata-bench-api-'));
  const log = createLogger({ level: 'warn', name: 'bench-api' });
  const redisServer = await startRedisServer({
    port: await freePort(),
    dir: path.join(dir, 'redis'),
    log,
    persistent: false,
  });
  const cacheEnv = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => k.startsWith('API_CACHE_')),
  );
  const config = loadConfig(
    {
      PMDATA_DATA_DIR: dir,
      CLICKHOUSE_DATABASE: 'bench_api',
      REDIS_URL: redisServer.url,
      PORT: '0',
      LOG_LEVEL: 'warn',
      ...cacheEnv,
    },
    CONFIG_SECTIONS,
  );
  // Interrupted runs still stop their redis-server child and remove the temp data.
  const interrupted = async () => {
    await redisServer.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  // Lookups must hit indexes, not a cache of earlier filter results: set on every statement (embedded:
  // on every session, the read lanes included).
  const clickhouse = await createClickHouse({ config, log, settings: { use_query_condition_cache: 0 } });
  const redis = createRedis(config.redisUrl);
  const record = (text: string) => process.stdout.write(`${text}\n`);
  try {
    await migrate({ clickhouse, log });
    if (values.granularity) {
      const [ddl] = await clickhouse.query<{ q: string }>(
        'bench.ddl',
        "SELECT create_table_query AS q FROM system.tables WHERE database = currentDatabase() AND name = 'alpha_fills'",
      );
      await clickhouse.command('bench.drop', 'DROP TABLE alpha_fills');
      await clickhouse.command(
        'bench.recreate',
        ddl!.q.replace(/index_granularity = \d+/, `index_granularity = ${Number(values.granularity)}`),
      );
    }
    const t0 = performance.now();
    await clickhouse.command('bench.generate-tokens', generateTokensSql());
    await clickhouse.command('bench.generate', generateSql(fills));
    if (activity > 0)
      await clickhouse.command('bench.generate-activity', generateActivitySql(activity, fills));
    const genS = (performance.now() - t0) / 1000;
    const [stats] = await clickhouse.query<Record<string, string>>(
      'bench.stats',
      `SELECT (SELECT count() FROM alpha_fills) AS fills,
              (SELECT count() FROM system.parts WHERE database = currentDatabase() AND table = 'alpha_fills' AND active) AS parts,
              (SELECT uniqExact(maker) FROM alpha_fills) AS wallets,
              (SELECT uniqExact(token_id) FROM alpha_fills) AS tokens,
              (SELECT count() FROM alpha_activity) AS activity,
              (SELECT uniqExact(wallet) FROM alpha_activity) AS activity_wallets`,
    );

    // Keys: the hot URLs take the first (most popular) keys of each kind; uncached requests the rest,
    // each once: per concurrency, R per scenario (times the keys a URL takes) and R for the mix.
    const scenarioNamed = (name: string) => SCENARIOS.find((s) => s.name === name)!;
    const hotReserve: Record<KeyKind, number> = { wallet: 0, token: 0, txHash: 0, activityWallet: 0 };
    const need: Record<KeyKind, number> = { wallet: 0, token: 0, txHash: 0, activityWallet: 0 };
    for (const s of SCENARIOS) {
      for (const [k, n] of Object.entries(s.uses) as [KeyKind, number][]) {
        hotReserve[k] = Math.max(hotReserve[k], n * hotCount);
        need[k] += n * requests * concurrencies.length;
      }
    }
    for (const name of MIX_OF) {
      for (const [k, n] of Object.entries(scenarioNamed(name).uses) as [KeyKind, number][])
        need[k] += n * Math.ceil(requests / MIX_OF.length) * concurrencies.length;
    }
    for (const k of KINDS) need[k] += hotReserve[k];
    const pools = await sampleKeys(clickhouse, need);
    const fresh = createFreshKeys(pools, hotReserve);
    const opts = { limit };
    const hotSets = new Map<string, string[]>();
    for (const s of SCENARIOS) {
      const keys = createFreshKeys(pools).keys;
      hotSets.set(
        s.name,
        Array.from({ length: hotCount }, () => s.url(keys, opts)),
      );
    }
    hotSets.set(
      MIX_NAME,
      Array.from(
        { length: hotCount },
        (_, i) => hotSets.get(MIX_OF[i % MIX_OF.length]!)![Math.floor(i / MIX_OF.length)]!,
      ),
    );

    const { key } = await createKeyStore(redis).create({
      tier: 'enterprise',
      name: 'bench',
      rate: 1_000_000,
    });
    const probe = createPhaseProbe();
    const engineTimed = probe.patchEngine();
    const server = await startServer({
      config,
      log,
      clickhouse: probe.instrument(clickhouse),
      redis: probe.instrumentRedis(redis),
      configure: probe.configure,
    });
    const n = (v: string | undefined) => Number(v).toLocaleString('en-US');
    if (Number(stats!.fills) !== fills || Number(stats!.activity) !== activity) {
      record(
        `note: the tables hold other row counts than generated (a retried insert?): figures are not comparable`,
      );
    }
    record(
      `data: alpha_fills ${n(stats!.fills)} rows in ${stats!.parts} parts, ${n(stats!.wallets)} wallets, ${n(stats!.tokens)} tokens; ` +
        `alpha_activity ${n(stats!.activity)} rows, ${n(stats!.activity_wallets)} wallets (generated in ${genS.toFixed(1)} s)`,
    );
    const cacheSettings = Object.entries(config)
      .filter(([k]) => /cache/i.test(k))
      .map(([k, v]) => `${k}=${v}`);
    record(
      `server: embedded chDB, loopback HTTP, Enterprise key (auth + limiter on every request), ` +
        `${cacheSettings.length > 0 ? cacheSettings.join(' ') : 'no response cache in the configuration'}, ` +
        `use_query_condition_cache=0, index_granularity=${values.granularity ?? 'as migrated'}`,
    );
    record(
      `load: ${requests} requests per run, concurrency ${concurrencies.join('/')}, limit=${limit}; ` +
        `hot = Zipf(s=${zipfS}) over ${hotCount} URLs; load average at start ${loadAtStart.map((l) => l.toFixed(2)).join(' ')}`,
    );

    const results = new Map<string, LoadResult>();
    const breakdowns: string[] = [];
    const runs: { name: string; hot: UrlSource; uncached: UrlSource }[] = [
      ...SCENARIOS.map((s: Scenario) => ({
        name: s.name,
        hot: hotUrls(hotSets.get(s.name)!, zipfS, 1),
        uncached: uncachedUrls(s, fresh.keys, opts),
      })),
      {
        name: MIX_NAME,
        hot: hotUrls(hotSets.get(MIX_NAME)!, zipfS, 2),
        uncached: (i: number) => scenarioNamed(MIX_OF[i % MIX_OF.length]!).url(fresh.keys, opts),
      },
    ];
    try {
      // Warm-up (JIT, connections, the engine's first reads): the hot URLs once each.
      for (const urls of hotSets.values()) {
        await load({ base: server.url, key, urls: (i) => urls[i]!, requests: urls.length, concurrency: 1 });
      }
      record('');
      record(HEADER);
      for (const mode of ['uncached', 'hot'] as const) {
        for (const c of concurrencies) {
          for (const r of runs) {
            if (c === 1) probe.start();
            const result = await load({
              base: server.url,
              key,
              urls: r[mode],
              requests,
              concurrency: c,
              observe: c === 1 ? probe.observe : undefined,
            });
            if (c === 1) breakdowns.push('', ...formatBreakdown(`${r.name}, ${mode}`, await probe.stop()));
            results.set(`${mode}|${r.name}|${c}`, result);
            record(line(r.name, mode, c, result));
          }
        }
      }
      if (fresh.reused() > 0) {
        record(
          `note: the dataset ran out of distinct keys; ${fresh.reused()} uncached key uses repeated an earlier key`,
        );
      }
      if (!engineTimed || probe.engineCalls() === 0) {
        record(
          'note: the embedded engine calls could not be timed; engine rows are missing from the breakdowns',
        );
      }
      for (const b of breakdowns) record(b);

      let liveP99: number | undefined;
      if (values.live) {
        record('');
        const live = await runLive(
          {
            config,
            log,
            clickhouse,
            redis,
            base: server.url,
            key,
            seed: values['live-seed'],
            size: values['live-size'] as CatalogSize,
            rate: Number(values['live-rate']),
            seconds: Number(values['live-seconds']),
            concurrency: 4,
            limit,
          },
          record,
        );
        liveP99 = live.load.p99;
        record(
          `live: while the follower ingested ${live.blocks} blocks (${live.rows.toLocaleString('en-US')} rows): ` +
            `${live.load.requests} lookups at concurrency 4, ${live.load.rps.toFixed(0)} req/s, ` +
            `p50 ${live.load.p50.toFixed(1)} ms, p90 ${live.load.p90.toFixed(1)} ms, p99 ${live.load.p99.toFixed(1)} ms, ` +
            `max ${live.load.max.toFixed(1)} ms, cpu ${live.load.cpuMs.toFixed(2)} ms/req, errors ${live.load.errors}`,
        );
        record(
          `live: the follower's ClickHouse calls meanwhile (label: calls, total ms, max ms): ${live.statements
            .slice(0, 8)
            .map((st) => `${st.label} ${st.calls}, ${st.totalMs.toFixed(0)}, ${st.maxMs.toFixed(0)}`)
            .join('; ')}`,
        );
      }

      let metrics: MetricsCost | undefined;
      if (Number(values['metrics-rounds']) > 0) {
        record('');
        metrics = await measureMetricsCost({
          deps: { config, log, clickhouse, redis },
          key,
          urls: hotUrls(hotSets.get(MIX_NAME)!, zipfS, 3),
          requests: Number(values['metrics-requests']),
          concurrency: 4,
          rounds: Number(values['metrics-rounds']),
        });
        record(
          `metrics: hot mix at concurrency 4, ${metrics.rounds} alternating rounds of ${values['metrics-requests']} requests (medians): ` +
            `with the hook ${metrics.rpsOn.toFixed(0)} req/s, ${metrics.cpuOnUs.toFixed(0)} µs CPU/req; ` +
            `without ${metrics.rpsOff.toFixed(0)} req/s, ${metrics.cpuOffUs.toFixed(0)} µs CPU/req; ` +
            `cost ${metrics.costUs.toFixed(1)} µs/req, ${metrics.rpsLossPct.toFixed(1)} % of req/s; errors ${metrics.errors}`,
        );
        record(`metrics: the hook's observe() alone ${metrics.hookUs.toFixed(2)} µs (1M calls in a loop)`);
        record(
          metrics.scrape
            ? `metrics: GET /metrics ${metrics.scrape.medianMs.toFixed(1)} ms median, ${metrics.scrape.maxMs.toFixed(1)} ms max ` +
                `(${metrics.scrape.samples} samples, ${(metrics.scrape.bytes / 1024).toFixed(0)} KiB)`
            : 'metrics: no admin key, so no /metrics to scrape',
        );
      }

      record('');
      record(
        `load average at end ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
      );
      const get = (mode: string, name: string, c: number) => results.get(`${mode}|${name}|${c}`);
      const summary = [
        `uncached_rps_c16=${fmt(get('uncached', MIX_NAME, 16)?.rps, 1)}`,
        `uncached_p99_ms_c16=${fmt(get('uncached', MIX_NAME, 16)?.p99, 1)}`,
        `uncached_p99_ms_c4=${fmt(get('uncached', MIX_NAME, 4)?.p99, 1)}`,
        `cpu_ms_wallet=${fmt(get('uncached', 'trades by wallet', 1)?.cpuMs, 2)}`,
        `hot_rps_c16=${fmt(get('hot', MIX_NAME, 16)?.rps, 1)}`,
        `hot_p99_ms_c16=${fmt(get('hot', MIX_NAME, 16)?.p99, 1)}`,
      ];
      if (values.live) summary.push(`live_p99_ms_c4=${fmt(liveP99, 1)}`);
      if (metrics) {
        summary.push(
          `metrics_cost_us=${fmt(metrics.costUs, 1)}`,
          `metrics_rps_loss_pct=${fmt(metrics.rpsLossPct, 1)}`,
          `metrics_scrape_ms=${fmt(metrics.scrape?.medianMs, 1)}`,
        );
      }
      process.stdout.write(`SUMMARY ${summary.join(' ')}\n`);
    } finally {
      await server.close();
    }
  } finally {
    process.removeListener('SIGINT', interrupted);
    process.removeListener('SIGTERM', interrupted);
    redis.disconnect();
    await clickhouse.close();
    await redisServer.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
