/**
 * Heartbeats: every role (`up`, `api`, `worker`, `scheduler`, `stream`) writes who it is — role, pid,
 * host, version, started_at — every 10 s under a key that expires after 30 s, and lists itself in
 * `pmdata:ops:roles` (a sorted set by expiry), so a role that died leaves the list within 30 s. The
 * same loop adds this process's per-minute event counts to Redis (ingest-counts.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';
import { flushEventMinutes } from './ingest-counts.ts';

export const ROLES_KEY = 'pmdata:ops:roles';
export const ROLE_KEY_PREFIX = 'pmdata:ops:role:';
const BEAT_MS = 10_000;
const TTL_S = 30;

export interface RoleBeat {
  role: string;
  pid: number;
  host: string;
  version: string;
  started_at: string;
}

/** pmdata's version (package.json: two levels up from the sources, three from the build in dist/). */
export const PMDATA_VERSION: string = (() => {
  for (const rel of ['../../package.json', '../../../package.json']) {
    const file = new URL(rel, import.meta.url);
    if (fs.existsSync(file)) return String(JSON.parse(fs.readFileSync(file, 'utf8')).version);
  }
  return 'unknown';
})();

export interface Heartbeat {
  /** Writes the heartbeat and flushes the event counts now (the timer does it every 10 s). */
  beat(): Promise<void>;
  /** Stops the timer, flushes the event counts and removes the heartbeat. */
  stop(): Promise<void>;
}

export function startHeartbeat(opts: {
  redis: Redis;
  log: Logger;
  role: string;
  intervalMs?: number;
  ttlS?: number;
}): Heartbeat {
  const { redis, log } = opts;
  const ttlS = opts.ttlS ?? TTL_S;
  const beatInfo: RoleBeat = {
    role: opts.role,
    pid: process.pid,
    host: os.hostname(),
    version: PMDATA_VERSION,
    started_at: new Date().toISOString(),
  };
  const id = `${beatInfo.role}:${beatInfo.host}:${beatInfo.pid}`;
  async function beat(): Promise<void> {
    await redis
      .multi()
      .set(ROLE_KEY_PREFIX + id, JSON.stringify(beatInfo), 'EX', ttlS)
      .zadd(ROLES_KEY, Date.now() + ttlS * 1000, id)
      .exec();
    await flushEventMinutes(redis);
  }
  const tick = () =>
    beat().catch((err) => log.warn({ err: (err as Error).message }, 'Failed to write the heartbeat'));
  void tick();
  const timer = setInterval(tick, opts.intervalMs ?? BEAT_MS);
  timer.unref();
  return {
    beat,
    async stop() {
      clearInterval(timer);
      try {
        await flushEventMinutes(redis);
        await redis
          .multi()
          .del(ROLE_KEY_PREFIX + id)
          .zrem(ROLES_KEY, id)
          .exec();
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'Failed to remove the heartbeat');
      }
    },
  };
}

/** The roles alive now (their heartbeat not expired), by role then start. */
export async function readRoles(redis: Redis, now = Date.now()): Promise<RoleBeat[]> {
  await redis.zremrangebyscore(ROLES_KEY, '-inf', now);
  const ids = await redis.zrange(ROLES_KEY, 0, -1);
  if (ids.length === 0) return [];
  const values = await redis.mget(...ids.map((i) => ROLE_KEY_PREFIX + i));
  return values
    .filter((v): v is string => v !== null)
    .map((v) => JSON.parse(v) as RoleBeat)
    .sort((a, b) => a.role.localeCompare(b.role) || a.started_at.localeCompare(b.started_at));
}
