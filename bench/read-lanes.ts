/**
 * `npm run bench -- read-lanes [--fills N] [--seconds S] [--concurrency C] [--lanes L]`
 *
 * What the embedded engine's read path gains from each of its parts, alone and together: C concurrent
 * readers (default 8) send reads of the API's shape (GET /v2/alpha/trades: a wallet's or a token's
 * latest 50 fills) over N generated fills (default 300,000) for S seconds (default 20) through each of
 * these ways to run them:
 *   params, 1 session        the values bound by the engine (chDB's process-wide parameter chain), one
 *                            session, settings sent with every statement: the read path before
 *   literals, 1 session      values rendered as literals (core/clickhouse/literals.ts), one session
 *   params, L sessions       L read sessions, values bound by the engine
 *   literals, L sessions     L read sessions and literals, settings sent with every statement
 *   shipped                  `ClickHouse.query`: L read lanes, literals, settings set once per session
 * each once with nothing else running and once while a long parameterized write runs again and again
 * on the main session (the pending→confirmed ALTER UPDATE of ingestion, over every fill). Prints reads/s
 * and latency percentiles.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import { createSessionPool, EMBEDDED_READ_LANES } from '../core/clickhouse/embedded.ts';
import { createClickHouse, renderParams } from '../core/clickhouse/index.ts';
import { loadConfig } from '../core/config.ts';
import { createLogger } from '../core/logger.ts';
import { migrate } from '../core/migrations.ts';
import { generateSql } from './api/data.ts';

/** The columns GET /v2/alpha/trades reads (api/queries/alpha/trades.ts FILL_SELECTION). */
const COLUMNS = `block_number, log_index, tx_hash, toUnixTimestamp(block_time) AS ts, status, exchange,
  exchange_version, neg_risk, order_hash, maker, taker, role, side, token_id, condition_id, outcome_index,
  shares, usd, fee, builder, metadata`;

const page = (where: string) =>
  `SELECT ${COLUMNS} FROM alpha_fills WHERE ${where}
   ORDER BY block_number DESC, log_index DESC LIMIT {page_rows:UInt32}`;

type Read = (sql: string, params: Record<string, unknown>) => Promise<unknown[]>;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** C readers in a closed loop over `reads` for `ms` (reads in flight then are waited for and counted). */
async function load(
  read: Read,
  reads: { sql: string; params: Record<string, unknown> }[],
  concurrency: number,
  ms: number,
) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() - started < ms) {
        const r = reads[next++ % reads.length]!;
        const t0 = performance.now();
        await read(r.sql, r.params);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    reads: latencies.length,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p90: percentile(latencies, 90),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1] ?? Number.NaN,
  };
}

export async function run(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      fills: { type: 'string', default: '300000' },
      seconds: { type: 'string', default: '20' },
      concurrency: { type: 'string', default: '8' },
      lanes: { type: 'string', default: String(EMBEDDED_READ_LANES) },
    },
  });
  const fills = Number(values.fills);
  const ms = Number(values.seconds) * 1000;
  const readCount = 500;
  const concurrency = Number(values.concurrency);
  const lanes = Number(values.lanes);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pmdata-bench-read-lanes-'));
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const log = createLogger({ level: 'warn', name: 'bench-read-lanes' });
  const config = loadConfig({
    PMDATA_DATA_DIR: dir,
    CLICKHOUSE_DATABASE: 'bench_read_lanes',
    LOG_LEVEL: 'warn',
  });
  const enginePath = path.join(dir, 'clickhouse');
  const clickhouse = await createClickHouse({ config, log, enginePath });
  await migrate({ clickhouse, log });
  const t0 = performance.now();
  await clickhouse.command('bench.generate', generateSql(fills));
  const genS = (performance.now() - t0) / 1000;

  const keys = await clickhouse.query<{ maker: string; token_id: string }>(
    'bench.keys',
    'SELECT maker, token_id FROM alpha_fills ORDER BY cityHash64(tx_hash, log_index) LIMIT {n:UInt32}',
    { n: readCount },
  );
  const reads = keys.map((k, i) =>
    i % 2 === 0
      ? { sql: page('maker IN {wallets:Array(String)}'), params: { wallets: [k.maker], page_rows: 51 } }
      : { sql: page('token_id = {token_id:String}'), params: { token_id: k.token_id, page_rows: 51 } },
  );

  // Sessions of the variants: further connections to the engine this process holds, as the read lanes are.
  const { createChdbConnection } = await import('chdb/connection');
  const settings = {
    output_format_json_quote_64bit_integers: 1,
    output_format_json_quote_64bit_floats: 0,
    date_time_output_format: 'iso',
    max_execution_time: config.clickhouseMaxExecutionTime,
  } as const;
  const session = async (): Promise<ClickHouseClient> => {
    const client = createClient({
      // biome-ignore lint/suspicious/noExplicitAny: chdb's connection implements the client's Connection contract
      connection: createChdbConnection({ path: enginePath }) as any,
      clickhouse_settings: settings,
    });
    await client.command({ query: `USE ${config.clickhouseDatabase}` });
    return client;
  };
  const variant = (size: number, literals: boolean): Read => {
    const pool = createSessionPool(size, session);
    return (sql, params) =>
      pool.use(async (client) => {
        const rs = literals
          ? await client.query({ query: renderParams(sql, params), format: 'JSONEachRow' })
          : await client.query({ query: sql, query_params: params, format: 'JSONEachRow' });
        return (await rs.json()) as unknown[];
      });
  };
  const variants: [string, Read][] = [
    ['params, 1 session', variant(1, false)],
    ['literals, 1 session', variant(1, true)],
    [`params, ${lanes} sessions`, variant(lanes, false)],
    [`literals, ${lanes} sessions`, variant(lanes, true)],
    [`shipped (${EMBEDDED_READ_LANES} lanes)`, (sql, params) => clickhouse.query('bench.read', sql, params)],
  ];

  /** The pending→confirmed UPDATE of ingestion over every fill, back and forth, until stopped. */
  const writes: number[] = [];
  async function writeLoop(stop: { stopped: boolean }) {
    for (let k = 0; !stop.stopped; k++) {
      const w0 = performance.now();
      await clickhouse.command(
        'bench.write',
        `ALTER TABLE alpha_fills UPDATE status = {to:String}
         WHERE chain_id = {chain:UInt32} AND block_number <= {block:UInt64} AND status = {from:String}
         SETTINGS mutations_sync = 1`,
        {
          to: k % 2 === 0 ? 'pending' : 'confirmed',
          from: k % 2 === 0 ? 'confirmed' : 'pending',
          chain: 137,
          block: 2 ** 40,
        },
      );
      writes.push(performance.now() - w0);
    }
  }

  const out: string[] = [];
  const record = (text: string) => {
    out.push(text);
    process.stdout.write(`${text}\n`);
  };
  record(
    `alpha_fills: ${fills.toLocaleString('en-US')} fills (generated in ${genS.toFixed(1)} s); reads of wallet and ` +
      `token pages of 50 over ${readCount} keys for ${ms / 1000} s per line, ${concurrency} concurrent readers, ${os.cpus().length} cores, ` +
      `UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE ?? '4 (default)'}`,
  );
  record('variant                   write   reads  reads/s   p50 ms   p90 ms   p99 ms   max ms');
  for (const [name, read] of variants) {
    await load(read, reads, concurrency, 2000); // warm-up
    for (const withWrite of [false, true]) {
      const stop = { stopped: false };
      const writing = withWrite ? writeLoop(stop) : Promise.resolve();
      // Let the first write start before the reads do.
      if (withWrite) await new Promise((r) => setTimeout(r, 100));
      const r = await load(read, reads, concurrency, ms);
      stop.stopped = true;
      await writing;
      record(
        [
          name.padEnd(24),
          (withWrite ? 'yes' : 'no').padStart(6),
          String(r.reads).padStart(7),
          r.rps.toFixed(0).padStart(8),
          r.p50.toFixed(1).padStart(8),
          r.p90.toFixed(1).padStart(8),
          r.p99.toFixed(1).padStart(8),
          r.max.toFixed(0).padStart(8),
        ].join(' '),
      );
    }
  }
  writes.sort((a, b) => a - b);
  record(
    `writes: ${writes.length} UPDATEs over every fill, median ${percentile(writes, 50).toFixed(0)} ms, ` +
      `max ${(writes[writes.length - 1] ?? 0).toFixed(0)} ms`,
  );
  return out.join('\n');
}
