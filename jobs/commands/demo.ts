/**
 * `pmdata demo`: the simulated world plus the full pmdata stack reading from it, in one process.
 * Starts the sim (a local chain with alpha's contracts and the venue replicas) with live trading,
 * runs `up` against it, backfills the chain's history, computes its market analytics, keeps following
 * it live, creates a demo API key, and prints example requests built from the data it ingested.
 * `<data dir>/demo.json` tells scripts what the world is: the chain's RPC URL, the admin key (status
 * page, queue dashboard, `/metrics`) and the sim's truth about its wallets (behaviour, cluster, funder,
 * builder code) and clusters.
 */

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TObject } from '@sinclair/typebox';
import { buildAlphaCatalogLists } from '../../analytics/catalog/build.ts';
import { catalogLists } from '../../analytics/catalog/index.ts';
import { marketData } from '../../analytics/market-data/index.ts';
import { runMarketData } from '../../analytics/market-data/run.ts';
import { positions } from '../../analytics/positions/index.ts';
import { runPositions } from '../../analytics/positions/run.ts';
import { profiles } from '../../analytics/profiles/index.ts';
import { runProfiles } from '../../analytics/profiles/run.ts';
import { runRolling } from '../../analytics/rolling-metrics/run.ts';
import { createKeyStore } from '../../api/keys/store.ts';
import { RESOURCES } from '../../api/resources/index.ts';
import { resolveAdminKey } from '../../core/admin-key.ts';
import { ownRedisPlace } from '../../core/config.ts';
import { createLogger, type Logger } from '../../core/logger.ts';
import { portFree } from '../../core/net.ts';
import { redisAnswers } from '../../core/redis.ts';
import { ensureRedisServerBinary, findRedisServer } from '../../core/redis-server.ts';
import { LIST_CONTRACTS, TICK_DATASETS, VENUE_CONTRACTS } from '../../schemas/venues/index.ts';
import { BUILD_DIR, compileContracts, contractsCompiled } from '../../sim/chain/compile.ts';
import { demoWorldOptions } from '../../sim/demo-world.ts';
import { betaSocketUrl, startSim } from '../../sim/index.ts';
import type { CatalogSize } from '../../sim/world/catalog.ts';
import type { WalletSet } from '../../sim/world/wallets.ts';
import type { Schedule } from '../define.ts';
import { startOpsSampler, startRoleHeartbeat } from '../ops-role.ts';
import { alphaBookJob } from '../processors/alpha-book.ts';
import { alphaFollowJob } from '../processors/alpha-follow.ts';
import { productContext, underLease } from '../products.ts';
import { createBullConnection, createQueues } from '../queues.ts';
import { closeOnSignals, openRuntime, type Runtime } from '../runtime.ts';
import { BACKFILL_VENUES, schedulesOf } from '../venues.ts';
import { runBackfillCommand } from './backfill.ts';
import type { CliOptions } from './io.ts';
import { startSharedTokens } from './roles.ts';

export interface DemoOptions {
  seed: string;
  size: CatalogSize;
  rate: number;
  env?: NodeJS.ProcessEnv;
}

function line(s = '') {
  process.stdout.write(`${s}\n`);
}

/**
 * The simulated chain is new on every run, so the demo's data starts afresh. Its own default directory
 * (data/demo) is emptied; a PMDATA_DATA_DIR of the user's is emptied only when it holds an earlier demo's
 * data (its demo.json) and refused when it holds anything else. A directory whose embedded engine a
 * running process holds is refused too. Returns the directory, or why it is refused.
 */
export function prepareDemoDataDir(env: NodeJS.ProcessEnv): { dir: string; refused?: string } {
  const own = !env.PMDATA_DATA_DIR;
  const dir = path.resolve(env.PMDATA_DATA_DIR || 'data/demo');
  env.PMDATA_DATA_DIR = dir;
  const entries = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  if (entries.length === 0) return { dir };
  if (!own && !entries.includes('demo.json')) {
    return {
      dir,
      refused:
        `PMDATA_DATA_DIR=${dir} holds data that is not an earlier demo's (no demo.json). The demo starts a ` +
        'new simulated chain every run, and data ingested from another chain would not match it (the ' +
        'follower would fail with "Reorg below block ..."), so it leaves this directory as it is. Point ' +
        'PMDATA_DATA_DIR at an empty or new directory, or unset it (the demo then uses data/demo).',
    };
  }
  const lock = path.join(dir, 'clickhouse', '.pmdata.lock');
  const owner = fs.existsSync(lock) ? Number(fs.readFileSync(lock, 'utf8').trim()) : 0;
  if (owner > 0 && owner !== process.pid && processAlive(owner)) {
    return {
      dir,
      refused:
        `${dir} is in use by a running pmdata (process ${owner}). Stop it (Ctrl+C in its terminal), or ` +
        'point PMDATA_DATA_DIR at another directory.',
    };
  }
  line(`Removing the earlier demo's data in ${dir} (each demo starts a new simulated chain)`);
  fs.rmSync(dir, { recursive: true, force: true });
  return { dir };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A Ctrl+C during the demo's start: the signal, and how to stop what it started. */
interface Interrupt {
  signal?: NodeJS.Signals;
  stop?: () => Promise<void>;
}

class Interrupted extends Error {}

export async function runDemo(opts: DemoOptions): Promise<number> {
  const interrupt: Interrupt = {};
  try {
    return await startDemo(opts, interrupt);
  } catch (err) {
    // What it started (the chain, pmdata, its redis-server) is stopped first: exiting with the engine
    // open hung the process (an API port in use left it running after its error).
    await interrupt.stop?.();
    if (!interrupt.signal) throw err;
    return 128 + os.constants.signals[interrupt.signal];
  }
}

async function startDemo(opts: DemoOptions, interrupt: Interrupt): Promise<number> {
  const env = { ...(opts.env ?? process.env) };
  const { dir: dataDir, refused } = prepareDemoDataDir(env);
  if (refused) {
    process.stderr.write(`pmdata demo: ${refused}\n`);
    return 2;
  }
  // One log line per API request is the API's `debug` here: at the demo's `info` level a terminal shows
  // the demo's own messages (LOG_REQUEST_LEVEL=info brings them back).
  env.LOG_REQUEST_LEVEL ??= 'debug';
  // Every log line (LOG_LEVEL, default info) goes to a file; the terminal keeps the demo's own messages
  // and shows log lines at error (or at LOG_LEVEL when it is set).
  const logFile = path.join(dataDir, 'logs', 'pmdata.log');
  const log = createLogger({
    level: env.LOG_LEVEL || 'info',
    stderrLevel: env.LOG_LEVEL || 'error',
    format: env.LOG_FORMAT,
    file: logFile,
  });
  line(
    `Logs: ${logFile}${env.LOG_LEVEL ? '' : ' (errors show here too; LOG_LEVEL=info shows every line here)'}`,
  );
  // Until the demo is up, a Ctrl+C stops it after the current step (closing pmdata mid-query is not safe),
  // stopping what it started (the chain, pmdata, its redis-server), and exits 130; a second exits at
  // once. Once up, closeOnSignals takes over.
  // Ends a step's wait for a lease a scheduled run holds, so that a Ctrl+C stops the demo there too.
  const stopWaiting = new AbortController();
  const onSetupSignal = (signal: NodeJS.Signals) => {
    if (interrupt.signal) process.exit(128 + os.constants.signals[signal]);
    interrupt.signal = signal;
    stopWaiting.abort();
    line(`Stopping after the current step (${signal}; again to exit at once)...`);
  };
  process.on('SIGINT', onSetupSignal);
  process.on('SIGTERM', onSetupSignal);
  const setupDone = () => {
    process.removeListener('SIGINT', onSetupSignal);
    process.removeListener('SIGTERM', onSetupSignal);
  };
  const step = () => {
    if (interrupt.signal) throw new Interrupted();
  };
  if (!contractsCompiled()) {
    line("Compiling the sim's Solidity contracts (first run only: ≈ 20–60 s of one core, then cached)...");
    const tc = performance.now();
    const n = Object.keys(compileContracts()).length;
    line(
      `  compiled ${n} contracts in ${Math.round((performance.now() - tc) / 1000)} s (cached in ${BUILD_DIR})`,
    );
  }
  line(`Starting the simulated world (seed "${opts.seed}", size ${opts.size})...`);
  const t0 = performance.now();
  const sim = await startSim({
    seed: opts.seed,
    size: opts.size,
    ...demoWorldOptions(opts.size),
    live: true,
    ratePerSecond: opts.rate,
    log,
  });
  let runtime: Runtime | undefined;
  let stopping: Promise<void> | undefined;
  const stopAll = () => (stopping ??= runtime ? runtime.close() : sim.stop());
  interrupt.stop = stopAll;
  step();
  line(
    `  chain    ${sim.rpcUrl} (chain id ${sim.chainId}): ${sim.stats.fills.toLocaleString('en-US')} fills, ` +
      `${sim.stats.logs.toLocaleString('en-US')} logs in ${sim.historyHead} blocks, ` +
      `${Math.round(performance.now() - t0)} ms; trading live at ${opts.rate} matches/s`,
  );
  for (const [name, url] of Object.entries(sim.replicaUrls ?? {})) line(`  ${name.padEnd(8)} ${url}`);
  // Written first thing, so that a later run recognizes this directory as a demo's even if this one stops early.
  const world = { seed: opts.seed, size: opts.size, rpcUrl: sim.rpcUrl };
  writeDemoFile(dataDir, world, sim.wallets, null);

  env.ALPHA_RPC_URLS = sim.rpcUrl;
  if (sim.replicaUrls) env.ALPHA_METADATA_URL = sim.replicaUrls.alpha_metadata;
  if (sim.replicaUrls) env.ALPHA_BOOK_URL = sim.replicaUrls.alpha_book;
  if (sim.replicaUrls) {
    env.BETA_API_URL = sim.replicaUrls.beta;
    env.BETA_WS_URL = betaSocketUrl(sim.replicaUrls.beta);
    env.GAMMA_API_URL = sim.replicaUrls.gamma;
    env.DELTA_API_URL = sim.replicaUrls.delta;
    env.EPSILON_API_URL = sim.replicaUrls.epsilon;
  }
  // The sim derives token ids with the simplified formula (docs/decisions.md); the backfill below covers
  // the history, and the live follower takes over at the first live block.
  env.ALPHA_POSITION_IDS ??= 'simplified';
  env.ALPHA_START_BLOCK ??= String(sim.historyHead + 1);
  env.ALPHA_FINALITY_DEPTH ??= '5';
  // Profiles every 30 s (not 300) so that the demo's trading shows in them while one watches.
  env.ALPHA_PROFILES_INTERVAL_S ??= '30';
  // Order books every 10 s (not 60), so their history grows while one watches (docs/orderbooks.md).
  env.ORDERBOOK_POLL_S ??= '10';
  // Final tick days compacted within 15 s of their grace (not 300 s), so the day the live phase ends is
  // served a few minutes after the simulated midnight (docs/ticks.md).
  env.TICKS_COMPACT_INTERVAL_S ??= '15';
  line();
  await installRedisServer(env, dataDir, log);

  line('Starting pmdata (ClickHouse, Redis, migrations)...');
  const t1 = performance.now();
  try {
    runtime = await openRuntime({ name: 'demo', env, log });
  } catch (err) {
    setupDone();
    await stopAll();
    throw err;
  }
  runtime.onClose(() => sim.stop());
  const { deps } = runtime;
  step();
  // The admin pages' key (embedded: generated into the data dir), in demo.json for scripts.
  const adminKey = resolveAdminKey(deps.config)?.key ?? null;
  writeDemoFile(dataDir, world, sim.wallets, adminKey);
  line(
    `  clickhouse ${deps.config.clickhouseUrl ?? `embedded chDB in ${path.join(deps.config.dataDir, 'clickhouse')}`}; ` +
      `redis ${deps.config.redisUrl}${runtime.redisServer ? ` (redis-server pid ${runtime.redisServer.pid}, started for the demo)` : ''}; ` +
      `${runtime.migrations?.applied.length ?? 0} migrations applied; ${Math.round(performance.now() - t1)} ms`,
  );

  const { createWorkers } = await import('../worker.ts');
  const { ALL_JOBS } = await import('../registry.ts');
  const { applySchedules, AT_START, SCHEDULES } = await import('../schedules.ts');
  const workers = createWorkers({ deps, jobs: ALL_JOBS });
  runtime.onClose(() => workers.close());
  const connection = createBullConnection(deps.config.redisUrl);
  const queues = createQueues({ connection });
  runtime.onClose(async () => {
    await queues.close();
    connection.disconnect();
  });
  // The venues' schedules start after the demo's own venue steps (ingestVenues): their first polls would
  // otherwise race the steps for the venues' leases, and a step that ran second would report "0 written".
  const venueIds = new Set(BACKFILL_VENUES.flatMap((v) => schedulesOf(v.code)).map((s) => s.id));
  const venueSchedule = (s: Schedule) => venueIds.has(s.id);
  await applySchedules(
    queues,
    deps.config,
    SCHEDULES.filter((s) => !venueSchedule(s)),
    AT_START,
  );
  startRoleHeartbeat(runtime, 'demo');
  startOpsSampler(runtime, queues);
  // One token map for the API's trades and the stream's (registered first: closed after both).
  const tokens = await startSharedTokens(runtime);
  const { startServer } = await import('../../api/server.ts');
  const server = await startServer({ ...(await apiPort(deps, env)), tokens });
  runtime.onClose(() => server.close());
  const { startStream } = await import('../../api/stream/run.ts');
  const stream = await startStream(deps, { server: server.httpServer, tokens });
  runtime.onClose(() => stream.close());

  line();
  line(`Backfilling alpha's chain history (blocks 0..${sim.historyHead})...`);
  const code = await runBackfillCommand(
    ['alpha', '--from-block', '0', '--to-block', String(sim.historyHead)],
    deps,
  );
  if (code !== 0) {
    await stopAll();
    setupDone();
    return code;
  }
  await queues.enqueue(alphaFollowJob, {});
  step();
  await computeAnalytics(runtime);
  step();
  await reportCatalog(runtime);
  step();
  await queues.enqueue(alphaBookJob, {});
  await reportBooks(runtime);
  step();
  await buildCatalogLists(runtime);
  step();
  await computePositions(runtime);
  step();
  const venuesCode = await ingestVenues(deps, step, { signal: stopWaiting.signal });
  if (venuesCode !== 0) {
    await stopAll();
    setupDone();
    return venuesCode;
  }
  await applySchedules(queues, deps.config, SCHEDULES.filter(venueSchedule), []);

  step();
  const { key } = await createKeyStore(deps.redis).create({ tier: 'pro', name: 'demo' });
  const examples = await exampleRequests(runtime, server.url, key, sim.catalog.endTime);
  step();
  line();
  line(`pmdata is up on the simulated world (data in ${deps.config.dataDir})`);
  line(`  world    ${path.join(deps.config.dataDir, 'demo.json')} (RPC URL, the sim's wallets and clusters)`);
  line(`  API      ${server.url}    docs ${server.url}/docs    OpenAPI ${server.url}/openapi.json`);
  line(
    `  API key  ${key}   (Pro tier; create more with: npm run pmdata -- keys create --tier dev --name me)`,
  );
  line(`  stream   ${stream.url}/v1/${key}`);
  line(
    `           npm run pmdata -- tail trades --key ${key} --url ${stream.url} --filters '{"users":["*"],"status":"all"}'`,
  );
  if (adminKey) {
    line(
      `  admin    ${server.url}/admin/status    queues ${server.url}/admin/queues    metrics ${server.url}/metrics`,
    );
    line(
      `           admin key ${adminKey}   (also in demo.json; a browser: any user name, the key as password; curl: -H 'authorization: Bearer <key>')`,
    );
  }
  line();
  line('Try:');
  for (const e of examples) line(`  ${e}`);
  line();
  setupDone();
  line('New trades keep arriving from the live chain. Press Ctrl+C to stop.');
  await closeOnSignals(runtime);
  return 0;
}

/**
 * Another demo (or anything) on the default API port when PORT is not set: this one takes a free port
 * and says so. Checked just before the API listens (another demo binds it once its own start is done).
 */
async function apiPort(deps: Runtime['deps'], env: NodeJS.ProcessEnv): Promise<Runtime['deps']> {
  const { config } = deps;
  if (env.PORT || (await portFree(config.port, config.host))) return deps;
  line(`  port ${config.port} is in use (another demo?): the API takes a free port (PORT sets one)`);
  return { ...deps, config: Object.freeze({ ...config, port: 0 }) };
}

/**
 * Installs redis-server first when the embedded Redis will be needed and none is installed (apt, on
 * Debian as root), saying so and keeping apt's output in `<data dir>/logs/redis-server-install.log`.
 */
async function installRedisServer(env: NodeJS.ProcessEnv, dataDir: string, log: Logger): Promise<void> {
  const url = env.REDIS_URL || ownRedisPlace(dataDir).url;
  if (/^(0|false|no|off)$/i.test(env.REDIS_EMBEDDED?.trim() ?? '')) return;
  if (findRedisServer() || (await redisAnswers(url, 1000))) return;
  const installLog = path.join(dataDir, 'logs', 'redis-server-install.log');
  line(`redis-server is not installed: installing it with apt (output in ${installLog})...`);
  const t0 = performance.now();
  const binary = ensureRedisServerBinary(log, installLog);
  line(`  installed ${binary} in ${Math.round((performance.now() - t0) / 1000)} s`);
}

/** What `demo.json` holds. Addresses lowercase; builder = the wallet's bytes32 builder code or null. */
export interface DemoFile {
  seed: string;
  size: CatalogSize;
  rpc_url: string;
  /** The admin key (status page, queue dashboard, /metrics); null only before pmdata started. */
  admin_key: string | null;
  truth: {
    wallets: {
      address: string;
      behaviour: string;
      cluster: string | null;
      funder: string | null;
      builder: string | null;
    }[];
    clusters: { id: string; funder: string; members: string[] }[];
  };
}

/** The sim's truth about its wallets, as demo.json carries it. */
export function demoTruth(wallets: WalletSet): DemoFile['truth'] {
  const lc = (a: string) => a.toLowerCase();
  return {
    wallets: wallets.wallets.map((w) => ({
      address: lc(w.address),
      behaviour: w.behaviour,
      cluster: w.cluster,
      funder: w.funder === null ? null : lc(w.funder),
      builder: w.builder === null ? null : lc(w.builder),
    })),
    clusters: wallets.clusters.map((c) => ({ id: c.id, funder: lc(c.funder), members: c.members.map(lc) })),
  };
}

function writeDemoFile(
  dataDir: string,
  world: { seed: string; size: CatalogSize; rpcUrl: string },
  wallets: WalletSet,
  adminKey: string | null,
): void {
  const file: DemoFile = {
    seed: world.seed,
    size: world.size,
    rpc_url: world.rpcUrl,
    admin_key: adminKey,
    truth: demoTruth(wallets),
  };
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(path.join(dataDir, 'demo.json'), `${JSON.stringify(file, null, 2)}\n`);
}

/**
 * The market analytics of the backfilled history, computed now (the scheduled runs keep them current):
 * waits while a scheduled run holds the analytics lease, then runs the market data and rolling metrics.
 */
async function computeAnalytics(runtime: Runtime): Promise<void> {
  const { deps } = runtime;
  const ctx = productContext(deps);
  const t0 = performance.now();
  for (;;) {
    const done = await underLease(deps, marketData, async () => {
      await runMarketData(ctx, ctx.settings);
      return runRolling(ctx, ctx.settings);
    });
    if (done) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const [totals] = await deps.clickhouse.query<{ markets: string; candles: string }>(
    'demo.analytics',
    `SELECT (SELECT count() FROM alpha_market_totals FINAL WHERE level = 'condition') AS markets,
            (SELECT count() FROM alpha_token_candles_1m FINAL) AS candles`,
  );
  line(
    `  analytics: ${Number(totals?.markets ?? 0).toLocaleString('en-US')} markets, ` +
      `${Number(totals?.candles ?? 0).toLocaleString('en-US')} 1-minute token candles, rolling metrics, ` +
      `open interest in ${Math.round(performance.now() - t0)} ms (then every ANALYTICS_INTERVAL_S)`,
  );
}

/** The catalog the start's full sweep (jobs/schedules.ts AT_START) read from the metadata replica. */
async function reportCatalog(runtime: Runtime): Promise<void> {
  const ch = runtime.deps.clickhouse;
  const counts = async () =>
    (
      await ch.query<{ events: string; markets: string; series: string; tags: string }>(
        'demo.catalog',
        `SELECT (SELECT count() FROM alpha_events FINAL) AS events, (SELECT count() FROM alpha_markets FINAL) AS markets,
                (SELECT count() FROM alpha_series FINAL) AS series, (SELECT count() FROM alpha_tags FINAL) AS tags`,
      )
    )[0];
  const deadline = Date.now() + 30_000;
  // The sweep writes tags, series, then events with their markets: wait until markets stop changing.
  let c = await counts();
  for (let before = ''; Date.now() < deadline; ) {
    const now = JSON.stringify(c);
    if (Number(c?.markets ?? 0) > 0 && now === before) break;
    before = now;
    await new Promise((r) => setTimeout(r, 500));
    c = await counts();
  }
  line(
    `  catalog: ${Number(c?.events ?? 0)} events, ${Number(c?.markets ?? 0)} markets, ${Number(c?.series ?? 0)} series, ` +
      `${Number(c?.tags ?? 0)} tags synced from the metadata replica (then every ALPHA_CATALOG_INTERVAL_S)`,
  );
}

/**
 * The books of the open markets' tokens, asked for now that the catalog is known (the scheduled sync at
 * start ran before it): the lists' prices and liquidity read them. Waits for the first quotes (≤ 20 s).
 */
async function reportBooks(runtime: Runtime): Promise<void> {
  const ch = runtime.deps.clickhouse;
  const deadline = Date.now() + 20_000;
  let tokens = 0;
  while (Date.now() < deadline) {
    const [r] = await ch.query<{ n: string }>(
      'demo.books',
      'SELECT uniqExact(token_id) AS n FROM alpha_book_quotes',
    );
    tokens = Number(r?.n ?? 0);
    if (tokens > 0) break;
    await new Promise((res) => setTimeout(res, 500));
  }
  line(`  books: ${tokens} tokens' order books from the book replica (then every ALPHA_BOOK_INTERVAL_S)`);
}

/** The catalog lists (analytics/catalog/) of the synced catalog, built now (then after each sync and run). */
async function buildCatalogLists(runtime: Runtime): Promise<void> {
  for (;;) {
    const built = await underLease(runtime.deps, catalogLists, () =>
      buildAlphaCatalogLists(productContext(runtime.deps)),
    );
    if (built) {
      line(
        `  lists: ${built.markets} markets, ${built.events} events, ${built.series} series, ${built.tags} tags, ` +
          `${built.categories} categories built in ${built.ms} ms (then after each sync and analytics run)`,
      );
      return;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * The positions of the backfilled history and the wallet profiles, computed now (the scheduled runs keep
 * them current: ALPHA_POSITIONS_INTERVAL_S, ALPHA_PROFILES_INTERVAL_S): waits while a scheduled run holds
 * a lease.
 */
async function computePositions(runtime: Runtime): Promise<void> {
  const { deps } = runtime;
  const t0 = performance.now();
  const ctx = productContext(deps);
  while (!(await underLease(deps, positions, () => runPositions(ctx, ctx.settings)))) {
    await new Promise((r) => setTimeout(r, 500));
  }
  const positionsMs = Math.round(performance.now() - t0);
  const t1 = performance.now();
  let profiled = 0;
  for (;;) {
    const run = await underLease(deps, profiles, () => runProfiles(ctx));
    if (run) {
      profiled = run.wallets;
      break;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  const [c] = await deps.clickhouse.query<{ positions: string; open: string; wallets: string }>(
    'demo.positions',
    `SELECT count() AS positions, countIf(shares > 0) AS open, uniqExact(wallet) AS wallets
     FROM alpha_positions FINAL`,
  );
  line(
    `  positions: ${Number(c?.positions ?? 0).toLocaleString('en-US')} positions ` +
      `(${Number(c?.open ?? 0).toLocaleString('en-US')} open) of ${Number(c?.wallets ?? 0)} wallets in ${positionsMs} ms ` +
      `(then every ALPHA_POSITIONS_INTERVAL_S); ${profiled} wallet profiles in ${Math.round(performance.now() - t1)} ms ` +
      '(then every ALPHA_PROFILES_INTERVAL_S)',
  );
}

/** Positions, P&L, top holders and profiles of the wallets with the most positions. */
async function positionExamples(
  ch: Runtime['deps']['clickhouse'],
  curl: (path: string) => string,
  token: string | undefined,
): Promise<string[]> {
  const wallets = await ch.query<{ wallet: string }>(
    'demo.positions.wallets',
    `SELECT wallet FROM alpha_positions FINAL WHERE shares > 0
     GROUP BY wallet ORDER BY count() DESC, wallet LIMIT 3`,
  );
  const [w1, w2, w3] = wallets.map((r) => r.wallet);
  if (!w1) return [];
  const out = [
    curl(`/v2/alpha/positions?wallet=${w1}&limit=5`),
    curl(`/v2/alpha/wallet/positions/${w1}?sort_by=unrealized_pnl&limit=5`),
    curl(`/v2/alpha/wallet/pnl/${w1}?granularity=day`),
  ];
  if (token) out.push(curl(`/v2/alpha/position/${token}/top-holders?limit=5&include_count=true`));
  out.push(curl(`/v2/alpha/wallets/profiles?addresses=${[w1, w2, w3].filter(Boolean).join(',')}`));
  return out;
}

async function exampleRequests(
  runtime: Runtime,
  base: string,
  key: string,
  midnight: number,
): Promise<string[]> {
  const ch = runtime.deps.clickhouse;
  const [top] = await ch.query<{ maker: string; token_id: string; tx_hash: string; condition_id: string }>(
    'demo.examples',
    `SELECT maker, any(token_id) AS token_id, any(tx_hash) AS tx_hash, any(condition_id) AS condition_id
     FROM alpha_fills WHERE role = 'maker' GROUP BY maker ORDER BY count() DESC, maker LIMIT 1`,
  );
  const [act] = await ch.query<{ wallet: string }>(
    'demo.activity',
    'SELECT wallet FROM alpha_activity GROUP BY wallet ORDER BY count() DESC, wallet LIMIT 1',
  );
  const curl = (p: string) => `curl -s -H 'x-api-key: ${key}' '${base}${p}'`;
  const out = [`curl -s ${base}/health`];
  if (top) {
    out.push(curl(`/v2/alpha/trades?wallet=${top.maker}&limit=5`));
    out.push(curl(`/v2/alpha/trades?token_id=${top.token_id}&limit=5`));
    out.push(curl(`/v2/alpha/trades?tx_hash=${top.tx_hash}`));
  }
  if (act) out.push(curl(`/v2/alpha/activity?wallet=${act.wallet}&limit=5`));
  // The busiest market's analytics: candles, volume, open interest and price.
  const [market] = await ch.query<{ condition_id: string; token_id: string; first: string; last: string }>(
    'demo.market',
    `SELECT t.id AS condition_id, m.token_id AS token_id,
       toUnixTimestamp(t.first_trade_time) AS first, toUnixTimestamp(t.last_trade_time) AS last
     FROM alpha_market_totals AS t FINAL
     INNER JOIN (SELECT condition_id, token_id FROM alpha_tokens WHERE outcome_index = 0) AS m
       ON m.condition_id = t.id
     WHERE t.level = 'condition' AND t.trades > 0 ORDER BY t.volume DESC, t.id LIMIT 1`,
  );
  if (market) {
    const start = Math.floor(Number(market.first) / 86_400) * 86_400;
    const end = Number(market.last) + 1;
    out.push(curl(`/v2/alpha/candlesticks/${market.condition_id}?interval=60`));
    out.push(curl(`/v2/alpha/candlesticks/token/${market.token_id}?interval=1440`));
    out.push(
      curl(
        `/v2/alpha/volume-chart/${market.condition_id}?granularity=day&start_time=${start}&end_time=${end}`,
      ),
    );
    out.push(curl(`/v2/alpha/markets/${market.token_id}/volume?granularity=day`));
    out.push(curl(`/v2/alpha/markets/${market.condition_id}/open_interest?granularity=day`));
    out.push(curl(`/v2/alpha/market-price/${market.token_id}`));
  }
  out.push(...(await catalogExamples(ch, curl)));
  out.push(...(await positionExamples(ch, curl, market?.token_id)));
  out.push(...(await venueExamples(ch, curl)));
  out.push(...(await orderbookExamples(ch, curl, market?.token_id, midnight)));
  return out;
}

/**
 * Order book history (docs/orderbooks.md) of one market per venue, over the live phase's two world days
 * around `midnight` (the catalog's end, Unix ms), and the tick dataset of the day that midnight ends
 * (docs/ticks.md): final about 11 minutes after the demo starts, `404 not_final` before.
 */
/** The parameters every order book history route shares (the other one names its market). */
const COMMON_BOOK_PARAMS = new Set(['start_time', 'end_time', 'limit', 'pagination_key', 'sources']);

async function orderbookExamples(
  ch: Runtime['deps']['clickhouse'],
  curl: (path: string) => string,
  tokenId: string | undefined,
  midnight: number,
): Promise<string[]> {
  const range = `start_time=${midnight - 86_400_000}&end_time=${midnight + 86_400_000}`;
  // A market per venue: the one with the most recorded books, else the busiest of its markets table (open
  // first: its polls are under way; a venue whose markets are all closed has a history to show, maybe
  // empty). alpha's history is its book sync's table.
  const pick = async (code: string) => {
    if (code === 'alpha') {
      const [row] = await ch.query<{ market: string }>(
        'demo.orderbooks.alpha',
        'SELECT token_id AS market FROM alpha_book_quotes GROUP BY token_id ORDER BY count() DESC, token_id LIMIT 1',
      );
      return row?.market ?? tokenId;
    }
    const market = VENUE_CONTRACTS.find((c) => c.code === code)?.market;
    if (!market) return undefined;
    const key = market.key.column;
    const [row] = await ch.query<{ market: string }>(
      'demo.orderbooks.market',
      `SELECT market FROM (
         SELECT market, count() AS n FROM orderbook_snapshots WHERE venue = {code:String} GROUP BY market
         UNION ALL SELECT * FROM (
           SELECT toString(${key}) AS market, 0 AS n FROM ${market.table} FINAL
           ORDER BY status = 'open' DESC, volume_usd DESC, ${key} LIMIT 1)
       ) ORDER BY n DESC, market LIMIT 1`,
      { code },
    );
    return row?.market;
  };
  // Every order book history route (api/resources/), with its market parameter.
  const out: string[] = [];
  for (const r of RESOURCES) {
    const code = /^\/v2\/(\w+)\/orderbooks(?:-subcent)?$/.exec(r.path)?.[1];
    if (!code) continue;
    const props = Object.keys((r.schema.querystring as TObject | undefined)?.properties ?? {});
    const param = props.find((p) => !COMMON_BOOK_PARAMS.has(p));
    const market = param && (await pick(code));
    if (!market) continue;
    const sources = props.includes('sources') ? '&sources=rest,ws' : '';
    out.push(curl(`${r.path}?${param}=${encodeURIComponent(market)}&${range}${sources}&limit=5`));
  }
  const day = new Date(midnight - 1).toISOString().slice(0, 10);
  const dataset = TICK_DATASETS[0];
  if (dataset) out.push(curl(`/v2/data/ticks?venue=${dataset.name}&date=${day}`));
  return out;
}

/**
 * The REST venues (jobs/venues.ts) from their replicas, in the list's order: a full listing each (with its
 * trades, for a venue that has a trades stream), then canonical ids.
 * A lease a scheduled run holds is waited for (`pmdata backfill <venue>` waits), so a step never fails
 * because a poll of the same venue runs; `signal` (a Ctrl+C) ends such a wait, and `step` then throws.
 */
export async function ingestVenues(
  deps: Runtime['deps'],
  step: () => void,
  options: Pick<CliOptions, 'io' | 'signal'> = {},
): Promise<number> {
  const say = options.io ? options.io.out : line;
  for (const venue of BACKFILL_VENUES) {
    step();
    say('');
    say(`Ingesting venue ${venue.code} from its replica...`);
    const args = venue.backfill.kind === 'series-trades' ? [venue.code, '--trades'] : [venue.code];
    const code = await runBackfillCommand(args, deps, options);
    if (code !== 0) {
      step();
      return code;
    }
  }
  return 0;
}

/**
 * The venues' lists and cross-venue search: each venue's busiest markets, beta's busiest ticker's trades,
 * an outcome whose canonical id is listed on the most venues (at least three), and a word of it searched
 * on every venue.
 */
async function venueExamples(
  ch: Runtime['deps']['clickhouse'],
  curl: (path: string) => string,
): Promise<string[]> {
  // Each venue list's example request (its contract's `list.example`), in venue order.
  const out = LIST_CONTRACTS.filter((c) => c.list.example !== undefined).map((c) =>
    curl(`/v2/${c.code}/markets?${c.list.example}`),
  );
  const [ticker] = await ch.query<{ ticker: string }>(
    'demo.venues.ticker',
    'SELECT ticker FROM beta_trades GROUP BY ticker ORDER BY count() DESC, ticker LIMIT 1',
  );
  if (ticker) out.push(curl(`/v2/beta/trades?ticker=${encodeURIComponent(ticker.ticker)}&limit=5`));
  const [shared] = await ch.query<{ id: string }>(
    'demo.venues.canonical',
    `SELECT id FROM canonical_outcomes FINAL GROUP BY id HAVING uniqExact(venue) >= 3
     ORDER BY uniqExact(venue) DESC, id LIMIT 1`,
  );
  if (shared) {
    out.push(curl(`/v2/alpha/markets?canonical_id=${shared.id}`));
    out.push(curl(`/v2/beta/markets?canonical_id=${shared.id}`));
    out.push(curl(`/v2/gamma/markets?canonical_id=${shared.id}`));
  }
  const [word] = await ch.query<{ word: string }>(
    'demo.venues.word',
    `SELECT arrayJoin(words) AS word FROM gamma_markets FINAL WHERE length(word) >= 5 AND status = 'open'
     ORDER BY volume_usd DESC, slug LIMIT 1`,
  );
  if (word) out.push(curl(`/v2/markets/search?q=${encodeURIComponent(word.word)}&limit=10`));
  return out;
}

/** The catalog's endpoints over the lists just built: the top tag with open events, a word of the busiest open market. */
async function catalogExamples(
  ch: Runtime['deps']['clickhouse'],
  curl: (path: string) => string,
): Promise<string[]> {
  const [tag] = await ch.query<{ slug: string }>(
    'demo.catalog.tag',
    `SELECT slug FROM alpha_tag_list WHERE parent_slug IS NULL AND subtag_count > 0
     ORDER BY open_event_count DESC, event_count DESC, tag_id LIMIT 1`,
  );
  const [word] = await ch.query<{ word: string }>(
    'demo.catalog.word',
    `SELECT arrayJoin(words) AS word FROM alpha_market_list WHERE length(word) >= 4
     ORDER BY status = 'open' DESC, volume DESC, market_id LIMIT 1`,
  );
  const out = [
    curl('/v2/alpha/events/keyset?limit=3'),
    curl('/v2/alpha/events/keyset?sort=volume_all_time&include_markets=true&markets_per_event=2&limit=2'),
    curl('/v2/alpha/markets/keyset?status=open&sort=volume&limit=3'),
    curl('/v2/alpha/series'),
    curl('/v2/alpha/tags?limit=5'),
    curl('/v2/alpha/categories'),
  ];
  if (tag) out.push(curl(`/v2/alpha/tag/${tag.slug}/subtags`));
  if (word) out.push(curl(`/v2/alpha/search?q=${encodeURIComponent(word.word)}`));
  return out;
}
