/** A Redis lease, so that at most one holder (e.g. a chain's live follower) runs across all processes. */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

export interface Lease {
  readonly held: boolean;
  release(): Promise<void>;
}

const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;

/**
 * Takes `key` for `ttlMs`, renewing it every ttl/3 while held. `held` is false when another process
 * holds it. Losing the lease (a renewal finds another owner) calls `onLost`.
 */
export async function acquireLease(
  redis: Redis,
  key: string,
  ttlMs: number,
  onLost?: () => void,
): Promise<Lease> {
  const token = randomUUID();
  const ok = await redis.set(key, token, 'PX', ttlMs, 'NX');
  if (ok !== 'OK') return { held: false, release: async () => {} };
  const timer = setInterval(
    () => {
      redis
        .eval(RENEW, 1, key, token, String(ttlMs))
        .then((r) => {
          if (Number(r) !== 1) {
            clearInterval(timer);
            onLost?.();
          }
        })
        .catch(() => {});
    },
    Math.max(100, Math.floor(ttlMs / 3)),
  );
  timer.unref();
  return {
    held: true,
    async release() {
      clearInterval(timer);
      await redis.eval(RELEASE, 1, key, token);
    },
  };
}

/**
 * Runs `fn` holding `key` for `ttlMs` (renewed), releasing it after; resolves to null without running
 * `fn` when another holder has it.
 */
export async function withLease<T>(
  redis: Redis,
  key: string,
  ttlMs: number,
  fn: () => Promise<T>,
): Promise<T | null> {
  const lease = await acquireLease(redis, key, ttlMs);
  if (!lease.held) return null;
  try {
    return await fn();
  } finally {
    await lease.release();
  }
}

export interface LeaseWaitOptions {
  /** Time between tries while the lease is held (ms, default 500). */
  pollMs?: number;
  /** Told once, when the first try finds the lease held. */
  onWait?: () => void;
  /** Stops the wait: resolves to null without running `fn`. */
  signal?: AbortSignal;
}

/**
 * Runs `fn` holding `key` like `withLease`, but waits while another holder has it (a scheduled run of the
 * same work): for a run a user or the demo asked for, which must run rather than be skipped. Resolves to
 * null only when `signal` stops the wait.
 */
export async function withLeaseWaiting<T>(
  redis: Redis,
  key: string,
  ttlMs: number,
  fn: () => Promise<T>,
  o: LeaseWaitOptions = {},
): Promise<T | null> {
  for (let tries = 0; ; tries++) {
    if (o.signal?.aborted) return null;
    const held = await withLease(redis, key, ttlMs, async () => ({ value: await fn() }));
    if (held) return held.value;
    if (tries === 0) o.onWait?.();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, o.pollMs ?? 500);
      function done() {
        clearTimeout(timer);
        o.signal?.removeEventListener('abort', done);
        resolve();
      }
      o.signal?.addEventListener('abort', done, { once: true });
    });
  }
}
