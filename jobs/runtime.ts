/**
 * Process runtime shared by every CLI command: config, logger, Redis (started in embedded mode when
 * nothing answers), ClickHouse, migrations, and one orderly shutdown on SIGINT/SIGTERM.
 */
import { type ClickHouse, createClickHouse, waitForEngine } from '../core/clickhouse/index.ts';
import { type Config, loadConfig } from '../core/config.ts';
import type { Deps } from '../core/deps.ts';
import { exitCodeFor } from '../core/errors.ts';
import { createLogger, type Logger } from '../core/logger.ts';
import { type MigrateResult, migrate } from '../core/migrations.ts';
import {
  createRedis,
  disconnectRedisClients,
  type Redis,
  redisLost,
  reportRedisState,
} from '../core/redis.ts';
import { ensureRedis, type RedisServerHandle } from '../core/redis-server.ts';
import { applyOrderbookTtl } from '../ingest/orderbooks/ttl.ts';
import { venuesConfig } from '../ingest/rest/config.ts';
import { CONFIG_SECTIONS } from './config.ts';

export interface Runtime {
  deps: Deps;
  redisServer?: RedisServerHandle;
  migrations?: MigrateResult;
  /** Registers cleanup to run on shutdown, last registered first. */
  onClose(fn: () => Promise<void> | void): void;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /** Start redis-server when nothing answers (embedded mode); default true. */
  redis?: boolean;
  /** Run migrations at start; default true. */
  migrate?: boolean;
  /** Wait this long for another process to release the embedded engine (default: fail at once). */
  engineWaitMs?: number;
  name?: string;
  env?: NodeJS.ProcessEnv;
  /** The process's logger, when the command made its own (the demo: a log file, a quiet terminal). */
  log?: Logger;
}

export function bootConfig(env: NodeJS.ProcessEnv = process.env): { config: Config; log: Logger } {
  const config = loadConfig(env, CONFIG_SECTIONS);
  const log = createLogger({ level: config.logLevel, format: config.logFormat });
  return { config, log };
}

export async function openRuntime(opts: RuntimeOptions = {}): Promise<Runtime> {
  const booted = bootConfig(opts.env);
  let { config } = booted;
  const log = opts.log ?? booted.log;
  // `needsRedis`: a closer registered with onClose may wait for Redis (a flush, a queue's close); while
  // Redis is lost each such closer gets REDIS_LOST_CLOSE_MS, so a shutdown never waits for Redis.
  const closers: { fn: () => Promise<void> | void; needsRedis: boolean }[] = [];
  let redisServer: RedisServerHandle | undefined;
  let redis: Redis | undefined;
  let clickhouse: ClickHouse | undefined;
  const close = async () => {
    for (const { fn, needsRedis } of closers.splice(0).reverse()) {
      try {
        if (needsRedis && redisLost()) await withinLostRedisBound(fn(), log);
        else await fn();
      } catch (err) {
        log.error({ err }, 'Failed to close a resource');
      }
    }
  };
  const own = (fn: () => Promise<void> | void) => closers.push({ fn, needsRedis: false });
  try {
    if (opts.redis !== false) {
      const r = await ensureRedis({ config, log });
      // Where the Redis was found or started (the data dir's own: its socket, or the port it recorded).
      if (r.url !== config.redisUrl) config = Object.freeze({ ...config, redisUrl: r.url });
      redisServer = r.server;
      if (redisServer) {
        const server = redisServer;
        own(() => server.stop());
      }
      // Losing Redis, and its return, are one line each for the whole process (core/redis.ts).
      reportRedisState(log, config.redisUrl);
      redis = createRedis(config.redisUrl, { maxRetriesPerRequest: 3 });
      const client = redis;
      own(() => {
        client.disconnect();
      });
    }
    const open = () => createClickHouse({ config, log });
    clickhouse = opts.engineWaitMs ? await waitForEngine(open, opts.engineWaitMs, log) : await open();
    const ch = clickhouse;
    own(() => ch.close());
    const migrations =
      opts.migrate === false ? undefined : await migrate({ clickhouse, log, ddl: ddlOptions(config) });
    if (opts.migrate !== false) {
      // ORDERBOOK_TTL_DAYS on the order book history, after the migrations made its tables.
      const days = venuesConfig.of(config).orderbookTtlDays;
      await applyOrderbookTtl({ clickhouse, log, days, ddl: ddlOptions(config) });
    }
    const deps: Deps = { config, log, clickhouse, redis: redis as Redis };
    return {
      deps,
      redisServer,
      migrations,
      onClose: (fn) => closers.push({ fn, needsRedis: true }),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** How long a closer that may need Redis gets while Redis is lost (then the shutdown goes on). */
export const REDIS_LOST_CLOSE_MS = 1000;

async function withinLostRedisBound(work: Promise<void> | void, log: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), REDIS_LOST_CLOSE_MS);
  });
  const done = await Promise.race([Promise.resolve(work).then(() => 'done' as const), late]);
  clearTimeout(timer);
  if (done === 'late') log.debug('A part that needs Redis did not close in time; going on without it');
}

export function ddlOptions(config: Config) {
  return { cluster: config.clickhouseCluster, replicated: config.clickhouseReplicated };
}

/**
 * Runs `fn` as the life of the process: on SIGINT/SIGTERM closes the runtime (active jobs and requests
 * finish, the embedded redis-server stops) within SHUTDOWN_TIMEOUT_MS, then exits 0. A second signal
 * exits at once.
 */
export function closeOnSignals(runtime: Runtime): Promise<void> {
  const { log, config } = runtime.deps;
  return new Promise((resolve) => {
    let closing = false;
    const handler = (signal: NodeJS.Signals) => {
      if (closing) {
        log.warn({ signal }, 'Received second signal, exiting now');
        process.exit(1);
      }
      closing = true;
      log.info({ signal }, 'Shutting down');
      // With Redis lost, nothing that waits for it (workers' blocking reads, queued commands) would
      // finish: drop its connections, and each part that may need it gets REDIS_LOST_CLOSE_MS.
      if (redisLost()) {
        log.warn('Redis is lost: closing without it');
        disconnectRedisClients();
      }
      // With Redis lost, nothing that waits for it (workers' blocking reads, queued commands) would
      // finish: drop its connections so the shutdown goes on without it.
      if (redisLost()) {
        log.warn('Redis is lost: closing without it');
        disconnectRedisClients();
      }
      const timer = setTimeout(() => {
        log.error({ timeout_ms: config.shutdownTimeoutMs }, 'Shutdown timed out');
        process.exit(1);
      }, config.shutdownTimeoutMs);
      timer.unref();
      runtime.close().then(() => {
        clearTimeout(timer);
        log.info('Stopped');
        resolve();
      });
    };
    process.once('SIGINT', handler);
    process.once('SIGTERM', handler);
  });
}

/** Prints a fatal error without a stack for known errors and exits 75 (retry may help) or 1. */
export function exitWithError(err: unknown, log?: Logger): never {
  const e = err as Error;
  if (log) log.fatal({ err: e }, 'Failed');
  process.stderr.write(`pmdata: ${e?.message ?? String(err)}\n`);
  process.exit(exitCodeFor(err));
}
