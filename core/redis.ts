/**
 * Redis clients: a factory, a probe that says whether a Redis answers, and the process's one report of
 * its Redis connection (`watchRedis`). Starting a local `redis-server` (the embedded mode, the tests'
 * global setup) is core/redis-server.ts.
 */
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from './logger.ts';

export type { Redis };

/**
 * Reconnect delays of every client: 200 ms doubling to 5 s. ioredis retries for ever; a command waits
 * (BullMQ's connections) or fails after `maxRetriesPerRequest` reconnects.
 */
export function redisBackoff(times: number): number {
  return Math.min(200 * 2 ** Math.min(Math.max(times - 1, 0), 5), 5000);
}

/** A client for commands. BullMQ workers need `maxRetriesPerRequest: null`; see jobs/queues.ts. */
export function createRedis(url: string, options: RedisOptions = {}): Redis {
  return watchRedis(
    new Redis(url, { lazyConnect: false, enableReadyCheck: true, retryStrategy: redisBackoff, ...options }),
  );
}

/**
 * The state of the process's Redis connection, reported once per change: every client of the process
 * (`watchRedis`) and every BullMQ worker and queue (`redisConnectionError`) feeds it, so losing Redis is
 * one line ("Lost Redis at ...") and its return one line, not an error per client and reconnect attempt.
 */
const watch: { log?: Logger; url: string; lostSince: number; clients: Set<Redis> } = {
  url: '',
  lostSince: 0,
  clients: new Set(),
};

/** Where the process reports its Redis connection's state (jobs/runtime.ts, once Redis is known). */
export function reportRedisState(log: Logger, url: string): void {
  watch.log = log;
  watch.url = url;
  watch.lostSince = 0;
}

/** True while the process's Redis is lost (since the loss's line, until it is back). */
export function redisLost(): boolean {
  return watch.lostSince !== 0;
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ENOENT',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** An error of the connection itself (refused, reset, closed, timed out). */
function connectionFailed(e: NodeJS.ErrnoException | undefined): boolean {
  if (e?.code && CONNECTION_CODES.has(e.code)) return true;
  return /Connection is closed|connect ETIMEDOUT|Stream isn't writeable|ECONNREFUSED|ENOENT/i.test(
    e?.message ?? '',
  );
}

/**
 * An error that says Redis was not there: of the connection, or a command given up after the
 * reconnects it waited for (`maxRetriesPerRequest`), not an error of the command itself.
 */
export function isRedisConnectionError(err: unknown): boolean {
  const e = err as NodeJS.ErrnoException | undefined;
  return connectionFailed(e) || e?.name === 'MaxRetriesPerRequestError';
}

/**
 * Notes an error from a Redis client, worker or queue: a connection error marks Redis lost (one line
 * the first time) and returns true, as does a command given up while it was lost; any other error
 * returns false for the caller to report.
 */
export function redisConnectionError(err: unknown): boolean {
  if (!isRedisConnectionError(err)) return false;
  if (watch.lostSince === 0 && connectionFailed(err as NodeJS.ErrnoException)) {
    watch.lostSince = Date.now();
    watch.log?.error(
      { url: watch.url, err: (err as Error)?.message },
      `Lost Redis at ${watch.url}: ${(err as Error)?.message}. Reconnecting (every ≤ 5 s); jobs, API keys, ` +
        'rate limits and the stream wait until it is back, and one line will say so',
    );
  }
  return true;
}

function redisBack(): void {
  if (watch.lostSince === 0) return;
  const seconds = Math.round((Date.now() - watch.lostSince) / 1000);
  watch.lostSince = 0;
  // At the loss's level, so that whoever saw the loss (the demo's terminal shows errors) sees its end.
  watch.log?.error({ url: watch.url, down_s: seconds }, `Redis at ${watch.url} is back after ${seconds} s`);
}

/**
 * Reports `client`'s connection through the process's one state (a lost connection is one line, its
 * return another) and keeps it for `disconnectRedisClients`.
 */
export function watchRedis<T extends Redis>(client: T): T {
  client.on('error', (err) => {
    if (!redisConnectionError(err)) watch.log?.warn({ err: err.message }, 'Redis client error');
  });
  client.on('ready', redisBack);
  client.on('end', () => watch.clients.delete(client));
  watch.clients.add(client);
  return client;
}

/**
 * Drops every watched client's connection at once (pending commands fail, no reconnect): a shutdown
 * while Redis is lost must not wait for it.
 */
export function disconnectRedisClients(): void {
  for (const client of watch.clients) client.disconnect();
  watch.clients.clear();
}

/** True when a Redis answers PING at `url` within `timeoutMs`. */
export async function redisAnswers(url: string, timeoutMs = 1000): Promise<boolean> {
  const probe = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  probe.on('error', () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}
