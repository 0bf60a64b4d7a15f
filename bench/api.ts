/**
 * `npm run bench -- api [--fills N] [--concurrency C[,C2...]] [--requests R] [--limit L] [--granularity G]`
 *
 * Load benchmark of GET /v2/alpha/trades on a benchmark-size dataset: N fills (default 1,000,000)
 * generated straight into the embedded engine's alpha_fills with INSERT ... SELECT FROM numbers(),
 * with skewed (power-law) wallets and tokens like a real venue's. Then the real server (auth, rate
 * limiter, validation, serialization) listens on loopback and C concurrent clients in this process
 * send R requests per scenario: trades by wallet, by token and by tx hash. Prints req/s and
 * p50/p90/p99/max latency. The query condition cache is off, so repeated lookups are not served from
 * a cache of earlier filter results.
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
import { createRedis, startRedisServer } from '../core/redis.ts';

const WALLETS = 50_000;
const TOKENS = 20_000;

/**
 * One SELECT producing `n` fills. Wallet w = floor(W · u³) and token t = floor(T · u²) for uniform u
 * give a few very active wallets and markets and a long tail. About 4 fills per 10 blocks over ~58 days
 * of 2-second blocks; three fills per transaction; a quarter are taker aggregates; the later 40% are
 * exchange version 2, half of those with a builder code.
 */
export function generateSql(n: number): string {
  return `
INSERT INTO alpha_fills
SELECT
  137 AS chain_id,
  50000000 + intDiv(number, 4) * 10 AS block_number,
  concat('0x', lower(hex(SHA256(concat('b', toString(block_number)))))) AS block_hash,
  toDateTime64(1767225600 + (block_number - 50000000) * 2, 3, 'UTC') AS block_time,
  concat('0x', lower(hex(SHA256(concat('tx', toString(intDiv(number, 3))))))) AS tx_hash,
  toUInt32(number % 4) AS log_index,
  if(version = 2, '0xe111180000d2663c0091e4f400237545b87b996b', '0x4bfb41d5b3570defd03c39a9a4d8de6bd8b8982e') AS exchange,
  toUInt8(if(number >= ${Math.floor(n * 0.6)}, 2, 1)) AS version,
  false AS neg_risk,
  concat('0x', lower(hex(SHA256(concat('o', toString(number)))))) AS order_hash,
  concat('0x', lower(hex(substring(SHA256(concat('w', toString(toUInt32(${WALLETS} * pow(cityHash64(number, 1) / 18446744073709551615, 3))))), 1, 20)))) AS maker,
  if(is_taker, exchange, concat('0x', lower(hex(substring(SHA256(concat('w', toString(cityHash64(number, 2) % ${WALLETS}))), 1, 20))))) AS taker,
  if(is_taker, 'taker', 'maker') AS role,
  if(cityHash64(number, 3) % 2 = 0, 'BUY', 'SELL') AS side,
  concat(toString(cityHash64('t', toUInt32(${TOKENS} * pow(cityHash64(number, 4) / 18446744073709551615, 2)))), '00000000000000000000') AS token_id,
  '' AS condition_id,
  toInt8(-1) AS outcome_index,
  if(side = 'BUY', usd, shares) AS maker_amount,
  if(side = 'BUY', shares, usd) AS taker_amount,
  toUInt64(1000000 + cityHash64(number, 5) % 500000000) AS shares,
  toUInt64(shares * (0.01 + (cityHash64(number, 6) % 98) / 100)) AS usd,
  usd / shares AS price,
  toUInt64(0) AS fee,
  if(version = 2 OR side = 'SELL', 'collateral', 'shares') AS fee_asset,
  if(version = 2 AND cityHash64(number, 7) % 2 = 0, concat('0x', lower(hex(SHA256(concat('builder', toString(cityHash64(number, 8) % 20)))))), '') AS builder,
  if(builder != '', concat('0x', lower(hex(SHA256(concat('m', toString(number)))))), '') AS metadata,
  'confirmed' AS status
FROM (SELECT number, cityHash64(number, 9) % 4 = 0 AS is_taker FROM numbers(${n}))`;
}

interface Scenario {
  name: string;
  urls: string[];
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function load(base: string, key: string, urls: string[], requests: number, concurrency: number) {
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  let rows = 0;
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= requests) return;
        const t0 = performance.now();
        const res = await fetch(base + urls[i % urls.length], { headers: { 'x-api-key': key } });
        const body = (await res.json()) as { trades?: unknown[] };
        latencies.push(performance.now() - t0);
        if (res.status !== 200) failures++;
        rows += body.trades?.length ?? 0;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  latencies.sort((a, b) => a - b);
  return {
    rps: requests / seconds,
    p50: percentile(latencies, 50),
    p90: percentile(latencies, 90),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1] ?? Number.NaN,
    failures,
    rowsPerRequest: rows / requests,
    // CPU of this whole process (client, server and engine threads) per request: less sensitive to
    // other load on the machine than latency is.
    cpuMs: (cpu.user + cpu.system) / 1000 / requests,
  };
}

export async function run(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      fills: { type: 'string', default: '1000000' },
      concurrency: { type: 'string', default: '1,2,4' },
      requests: { type: 'string', default: '2000' },
      limit: { type: 'string', default: '50' },
      // What-if: recreate alpha_fills (this run's own database only) with another index_granularity.
      granularity: { type: 'string' },
    },
  });
  const fills = Number(values.fills);
  const concurrencies = values.concurrency.split(',').map(Number);
  const requests = Number(values.requests);
  const limit = Number(values.limit);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pmdata-bench-api-'));
  const log = createLogger({ level: 'warn', name: 'bench-api' });
  const redisServer = await startRedisServer({
    port: await freePort(),
    dir: path.join(dir, 'redis'),
    log,
    persistent: false,
  });
  const config = loadConfig({
    PMDATA_DATA_DIR: dir,
    CLICKHOUSE_DATABASE: 'bench_api',
    REDIS_URL: redisServer.url,
    PORT: '0',
    LOG_LEVEL: 'warn',
  });
  // Interrupted runs still stop their redis-server child and remove the temp data.
  const interrupted = async () => {
    await redisServer.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  const clickhouse = await createClickHouse({ config, log });
  const redis = createRedis(config.redisUrl);
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
    await clickhouse.command('bench.generate', generateSql(fills));
    const genS = (performance.now() - t0) / 1000;
    const [stats] = await clickhouse.query<{ rows: string; parts: string; wallets: string; tokens: string }>(
      'bench.stats',
      `SELECT (SELECT count() FROM alpha_fills) AS rows,
              (SELECT count() FROM system.parts WHERE database = currentDatabase() AND table = 'alpha_fills' AND active) AS parts,
              (SELECT uniqExact(maker) FROM alpha_fills) AS wallets,
              (SELECT uniqExact(token_id) FROM alpha_fills) AS tokens`,
    );
    // Lookups must hit indexes, not a cache of earlier filter results (embedded: one session).
    await clickhouse.command('bench.settings', 'SET use_query_condition_cache = 0');
    const [setting] = await clickhouse.query<{ v: number }>(
      'bench.setting',
      "SELECT getSetting('use_query_condition_cache') AS v",
    );

    // Lookup keys drawn from the data, weighted like the traffic: by row (so active wallets and
    // tokens come up as often as they trade).
    const sample = await clickhouse.query<{ maker: string; token_id: string; tx_hash: string }>(
      'bench.sample',
      'SELECT maker, token_id, tx_hash FROM alpha_fills ORDER BY cityHash64(tx_hash, log_index) LIMIT 500',
    );
    const [heavy] = await clickhouse.query<{ maker: string; n: string }>(
      'bench.heaviest',
      'SELECT maker, count() AS n FROM alpha_fills GROUP BY maker ORDER BY n DESC LIMIT 1',
    );
    const [heavyToken] = await clickhouse.query<{ token_id: string; n: string }>(
      'bench.heaviest-token',
      'SELECT token_id, count() AS n FROM alpha_fills GROUP BY token_id ORDER BY n DESC LIMIT 1',
    );

    const { key } = await createKeyStore(redis).create({ tier: 'enterprise', name: 'bench', rate: 100_000 });
    const server = await startServer({ config, log, clickhouse, redis });
    const scenarios: Scenario[] = [
      {
        name: 'trades by wallet',
        urls: sample.map((s) => `/v2/alpha/trades?wallet=${s.maker}&limit=${limit}`),
      },
      {
        name: 'trades by token',
        urls: sample.map((s) => `/v2/alpha/trades?token_id=${s.token_id}&limit=${limit}`),
      },
      { name: 'trades by tx hash', urls: sample.map((s) => `/v2/alpha/trades?tx_hash=${s.tx_hash}`) },
      {
        name: 'trades by 10 wallets',
        urls: sample.map(
          (_, i) =>
            `/v2/alpha/trades?wallet=${sample
              .slice(i, i + 10)
              .map((s) => s.maker)
              .join(',')}&limit=${limit}`,
        ),
      },
    ];
    const out: string[] = [];
    out.push(
      `alpha_fills: ${Number(stats!.rows).toLocaleString('en-US')} rows in ${stats!.parts} parts, ` +
        `${Number(stats!.wallets).toLocaleString('en-US')} wallets, ${Number(stats!.tokens).toLocaleString('en-US')} tokens ` +
        `(generated in ${genS.toFixed(1)} s); heaviest wallet ${Number(heavy!.n).toLocaleString('en-US')} fills, ` +
        `heaviest token ${Number(heavyToken!.n).toLocaleString('en-US')} fills`,
    );
    out.push(
      `server: embedded chDB, loopback HTTP, enterprise key (auth + limiter on every request), ` +
        `concurrency ${concurrencies.join('/')}, ${requests} requests per scenario, limit=${limit}, ` +
        `use_query_condition_cache=${setting!.v}, index_granularity=${values.granularity ?? 'as migrated'}`,
    );
    out.push(
      'scenario                conc   req/s   p50 ms   p90 ms   p99 ms   max ms  rows/req  errors  cpu ms/req',
    );
    const line = (name: string, c: number, r: Awaited<ReturnType<typeof load>>) =>
      [
        name.padEnd(22),
        String(c).padStart(5),
        r.rps.toFixed(0).padStart(7),
        r.p50.toFixed(1).padStart(8),
        r.p90.toFixed(1).padStart(8),
        r.p99.toFixed(1).padStart(8),
        r.max.toFixed(1).padStart(8),
        r.rowsPerRequest.toFixed(1).padStart(9),
        String(r.failures).padStart(7),
        r.cpuMs.toFixed(1).padStart(11),
      ].join(' ');
    const record = (text: string) => {
      out.push(text);
      process.stdout.write(`${text}\n`);
    };
    try {
      for (const c of concurrencies) {
        for (const s of scenarios) {
          await load(server.url, key, s.urls, Math.min(200, requests), c); // warm-up
          record(line(s.name, c, await load(server.url, key, s.urls, requests, c)));
        }
        // The heaviest wallet and token: the worst case for a single lookup.
        for (const [name, url] of [
          ['heaviest wallet', `/v2/alpha/trades?wallet=${heavy!.maker}&limit=${limit}`],
          ['heaviest token', `/v2/alpha/trades?token_id=${heavyToken!.token_id}&limit=${limit}`],
        ] as const) {
          record(line(name, c, await load(server.url, key, [url], Math.min(500, requests), c)));
        }
      }
    } finally {
      await server.close();
    }
    process.stdout.write(`\n${out.join('\n')}\n`);
  } finally {
    process.removeListener('SIGINT', interrupted);
    process.removeListener('SIGTERM', interrupted);
    redis.disconnect();
    await clickhouse.close();
    await redisServer.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
