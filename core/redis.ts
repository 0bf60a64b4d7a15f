/**
 * Redis clients: a factory, and a probe that says whether a Redis answers. Starting a local
 * `redis-server` (the embedded mode, the tests' global setup) is core/redis-server.ts.
 */
import { Redis, type RedisOptions } from 'ioredis';

export type { Redis };

/** A client for commands. BullMQ workers need `maxRetriesPerRequest: null`; see jobs/queues.ts. */
export function createRedis(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { lazyConnect: false, enableReadyCheck: true, ...options });
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
