/**
 * Per-key rate limits and monthly quotas, counted in Redis so every API process shares them.
 *
 * Rate limit: GCRA (a token bucket of `rate` tokens refilled at `rate` per second, stored as one
 * "theoretical arrival time"), so a key may burst up to its per-second rate and no more, and there is
 * no window edge where two windows' worth pass in one second. Time comes from Redis (`TIME`), so API
 * processes with skewed clocks agree.
 *
 * Quota: one counter per key per UTC month. Free keys are refused (429) once the quota is used;
 * Dev/Pro keys are served and the excess is overage (see keys usage); Enterprise is unlimited.
 * Requests refused by either limit do not count as served.
 */
import type { Redis } from 'ioredis';
import { PLANS, rateFor } from './access.ts';
import type { ApiKeyRecord } from './keys/store.ts';
import { monthOf, usageKey } from './keys/store.ts';

/** Usage counters are kept 400 days, so `keys usage` can show last year's months. */
const USAGE_TTL_S = 400 * 86_400;

// KEYS[1] rate state (ms), KEYS[2] usage hash of the month.
// ARGV[1] rate per second, ARGV[2] 1 when the route is metered, ARGV[3] hard quota (0 = none),
// ARGV[4] usage TTL (s).
// Returns {allowed (1/0), remaining, reset_ms, reason (0 ok, 1 rate, 2 quota)}.
const LIMIT_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate = tonumber(ARGV[1])
local interval = 1000 / rate
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local new_tat = tat + interval
local allow_at = new_tat - 1000
if now < allow_at then
  redis.call('HINCRBY', KEYS[2], 'throttled', 1)
  redis.call('EXPIRE', KEYS[2], ARGV[4])
  return {0, 0, math.ceil(allow_at - now), 1}
end
local metered = ARGV[2] == '1'
local hard = tonumber(ARGV[3])
if metered and hard > 0 then
  local used = tonumber(redis.call('HGET', KEYS[2], 'metered') or '0')
  if used >= hard then
    redis.call('HINCRBY', KEYS[2], 'over_quota', 1)
    redis.call('EXPIRE', KEYS[2], ARGV[4])
    return {0, 0, 0, 2}
  end
end
redis.call('SET', KEYS[1], string.format('%.3f', new_tat), 'PX', math.ceil(new_tat - now) + 1)
redis.call('HINCRBY', KEYS[2], metered and 'metered' or 'free', 1)
redis.call('EXPIRE', KEYS[2], ARGV[4])
return {1, math.floor((now - allow_at) / interval), math.ceil(new_tat - now), 0}
`;

export type LimitDecision =
  | { allowed: true; limit: number; remaining: number; resetS: number }
  | { allowed: false; reason: 'rate'; limit: number; remaining: 0; resetS: number }
  | { allowed: false; reason: 'quota'; limit: number; remaining: 0; resetS: number; quota: number };

export interface Limiter {
  /** Counts one request of `key` on a metered or free route and says whether to serve it. */
  consume(key: ApiKeyRecord, metered: boolean): Promise<LimitDecision>;
}

type LimitCommand = (
  rateKey: string,
  usage: string,
  rate: number,
  metered: number,
  hardQuota: number,
  ttl: number,
) => Promise<[number, number, number, number]>;

/** Seconds from `now` to the start of the next UTC month. */
export function secondsToNextMonth(now: number): number {
  const d = new Date(now);
  const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return Math.ceil((next - now) / 1000);
}

export function createLimiter(redis: Redis): Limiter {
  // defineCommand sends KEYS through the client's key prefix, so a prefixed client stays isolated.
  if (!('pmdataLimit' in redis)) {
    redis.defineCommand('pmdataLimit', { numberOfKeys: 2, lua: LIMIT_LUA });
  }
  const run = (redis as unknown as { pmdataLimit: LimitCommand }).pmdataLimit.bind(redis);

  return {
    async consume(key, metered) {
      const limit = rateFor(key.tier, key.rate);
      const plan = PLANS[key.tier];
      const hardQuota = plan.overageUsdPer100k === null && plan.monthlyQuota !== null ? plan.monthlyQuota : 0;
      const now = Date.now();
      const [allowed, remaining, resetMs, reason] = await run(
        `ratelimit:${key.id}`,
        usageKey(key.id, monthOf(now)),
        limit,
        metered ? 1 : 0,
        hardQuota,
        USAGE_TTL_S,
      );
      if (allowed === 1) {
        return { allowed: true, limit, remaining, resetS: Math.max(0, Math.ceil(resetMs / 1000)) };
      }
      if (reason === 2) {
        return {
          allowed: false,
          reason: 'quota',
          limit,
          remaining: 0,
          resetS: secondsToNextMonth(now),
          quota: hardQuota,
        };
      }
      return {
        allowed: false,
        reason: 'rate',
        limit,
        remaining: 0,
        resetS: Math.max(1, Math.ceil(resetMs / 1000)),
      };
    },
  };
}
