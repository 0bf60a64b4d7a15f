/**
 * Connections per key, counted in Redis across stream processes: hash `stream:conns:<key id>` holds a
 * count per process id, and the sorted set `stream:procs` each live process's expiry (Unix ms), renewed
 * by a heartbeat. A process that dies without releasing stops renewing: once its expiry passes, the next
 * acquire for that key drops its field, so its connections stop counting.
 */
import type { Redis } from 'ioredis';

/** How long a process counts without a heartbeat, and how often it renews. */
export const PROCESS_TTL_MS = 30_000;
const HEARTBEAT_MS = 10_000;

// KEYS: conns hash, procs zset. ARGV: process id, limit, now (ms).
const ACQUIRE = `
local fields = redis.call('HGETALL', KEYS[1])
local total = 0
for i = 1, #fields, 2 do
  local expiry = redis.call('ZSCORE', KEYS[2], fields[i])
  if (not expiry) or tonumber(expiry) < tonumber(ARGV[3]) then
    redis.call('HDEL', KEYS[1], fields[i])
  else
    total = total + tonumber(fields[i + 1])
  end
end
if total >= tonumber(ARGV[2]) then return -1 end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
return total + 1
`;

export interface ConnectionCounts {
  /** Counts one more connection of `keyId` unless `limit` are open across processes; false when full. */
  acquire(keyId: string, limit: number): Promise<boolean>;
  release(keyId: string): Promise<void>;
  /** Open connections of a key across live processes. */
  count(keyId: string): Promise<number>;
  /** Stops the heartbeat and removes this process's counts. */
  close(): Promise<void>;
}

export function createConnectionCounts(redis: Redis, processId: string): ConnectionCounts {
  const procs = 'stream:procs';
  const conns = (keyId: string) => `stream:conns:${keyId}`;
  const held = new Map<string, number>();
  const beat = () => redis.zadd(procs, Date.now() + PROCESS_TTL_MS, processId);
  let started: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    beat().catch(() => {});
  }, HEARTBEAT_MS);
  timer.unref();

  return {
    async acquire(keyId, limit) {
      started ??= beat();
      await started;
      const n = (await redis.eval(ACQUIRE, 2, conns(keyId), procs, processId, limit, Date.now())) as number;
      if (n < 0) return false;
      held.set(keyId, (held.get(keyId) ?? 0) + 1);
      return true;
    },
    async release(keyId) {
      const left = (held.get(keyId) ?? 0) - 1;
      if (left < 0) return;
      if (left === 0) held.delete(keyId);
      else held.set(keyId, left);
      if (left === 0) await redis.hdel(conns(keyId), processId);
      else await redis.hincrby(conns(keyId), processId, -1);
    },
    async count(keyId) {
      const fields = await redis.hgetall(conns(keyId));
      const now = Date.now();
      let total = 0;
      for (const [proc, n] of Object.entries(fields)) {
        const expiry = await redis.zscore(procs, proc);
        if (expiry !== null && Number(expiry) >= now) total += Number(n);
      }
      return total;
    },
    async close() {
      clearInterval(timer);
      const pipeline = redis.pipeline();
      for (const keyId of held.keys()) pipeline.hdel(conns(keyId), processId);
      pipeline.zrem(procs, processId);
      held.clear();
      await pipeline.exec();
    },
  };
}
