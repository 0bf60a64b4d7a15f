/**
 * The per-request access check in one Redis round trip: the presented key's record, its per-second
 * rate limit and monthly quota, and the data versions of the route's sources (core/data-version.ts,
 * for the response cache) are read and counted by one Lua script, so every API process shares them.
 *
 * Rate limit: GCRA (a token bucket of `rate` tokens refilled at `rate` per second, stored as one
 * "theoretical arrival time"), so a key may burst up to its per-second rate and no more, and there is
 * no window edge where two windows' worth pass in one second. Time comes from Redis (`TIME`), so API
 * processes with skewed clocks agree.
 *
 * Quota: one counter per key per UTC month. Free keys are refused (429) once the quota is used;
 * Dev/Pro keys are served and the excess is overage (see keys usage); Enterprise is unlimited.
 * Requests refused by either limit do not count as served. Unknown and revoked keys count nothing.
 */
import type { Redis } from 'ioredis';
import type { DataSource } from '../core/data-version.ts';
import { DATA_VERSIONS_KEY } from '../core/data-version.ts';
import { DEFAULT_ENTERPRISE_RATE, PLANS, rateFor, TIER_RANK, TIERS, type Tier } from './access.ts';
import { type ApiKeyRecord, KEY_FIELDS, monthOf, presentedKeyHash, toRecord } from './keys/store.ts';

/** Usage counters are kept 400 days, so `keys usage` can show last year's months. */
const USAGE_TTL_S = 400 * 86_400;

/** A hard quota refuses requests over it (Free); 0 = none (overage is billed, or unlimited). */
function hardQuotaOf(tier: Tier): number {
  const plan = PLANS[tier];
  return plan.overageUsdPer100k === null && plan.monthlyQuota !== null ? plan.monthlyQuota : 0;
}

/** The plans as a Lua table literal: tier = {rate per second (0 = the key's own), hard quota, rank}. */
const PLANS_LUA = TIERS.map((t) => {
  const r = PLANS[t].ratePerSecond;
  return `${t} = {${r === 'custom' ? 0 : r}, ${hardQuotaOf(t)}, ${TIER_RANK[t]}}`;
}).join(', ');

// KEYS[1] the key's record (apikey:<sha256>), KEYS[2] the data versions hash.
// ARGV[1] the client's key prefix (for the keys named after the key's id), ARGV[2] the month (YYYY-MM),
// ARGV[3] 1 when the route is metered, ARGV[4] the rank of the route's tier, ARGV[5] usage TTL (s),
// ARGV[6..] data sources whose versions to read.
// Returns {0} unknown key, {1} revoked key, or {2, <the record's fields>, allowed (1/0), remaining,
// reset_ms, reason (0 ok, 1 rate, 2 quota), <one version per source>}.
// The rate and usage keys are derived from the record, so this script assumes one Redis (not a
// cluster), as the two counters of one key did before.
const ACCESS_LUA = `
local PLANS = { ${PLANS_LUA} }
local f = redis.call('HMGET', KEYS[1], ${KEY_FIELDS.map((k) => `'${k}'`).join(', ')})
local plan = f[3] and PLANS[f[3]]
if not f[1] or not plan then return {0} end
if f[4] ~= 'active' then return {1} end
local out = {2}
for i = 1, ${KEY_FIELDS.length} do out[i + 1] = f[i] or '' end

local function decide()
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local rate = plan[1]
  if rate == 0 then rate = tonumber(f[5]) or ${DEFAULT_ENTERPRISE_RATE} end
  local interval = 1000 / rate
  local rate_key = ARGV[1] .. 'ratelimit:' .. f[1]
  local usage = ARGV[1] .. 'usage:' .. f[1] .. ':' .. ARGV[2]
  local tat = tonumber(redis.call('GET', rate_key) or '0')
  if tat < now then tat = now end
  local new_tat = tat + interval
  local allow_at = new_tat - 1000
  if now < allow_at then
    redis.call('HINCRBY', usage, 'throttled', 1)
    redis.call('EXPIRE', usage, ARGV[5])
    return {0, 0, math.ceil(allow_at - now), 1}
  end
  local metered = ARGV[3] == '1' and plan[3] >= tonumber(ARGV[4])
  local hard = plan[2]
  if metered and hard > 0 then
    local used = tonumber(redis.call('HGET', usage, 'metered') or '0')
    if used >= hard then
      redis.call('HINCRBY', usage, 'over_quota', 1)
      redis.call('EXPIRE', usage, ARGV[5])
      return {0, 0, 0, 2}
    end
  end
  redis.call('SET', rate_key, string.format('%.3f', new_tat), 'PX', math.ceil(new_tat - now) + 1)
  redis.call('HINCRBY', usage, metered and 'metered' or 'free', 1)
  redis.call('EXPIRE', usage, ARGV[5])
  return {1, math.floor((now - allow_at) / interval), math.ceil(new_tat - now), 0}
end

for _, v in ipairs(decide()) do out[#out + 1] = v end
if #ARGV > 5 then
  local versions = redis.call('HMGET', KEYS[2], unpack(ARGV, 6))
  for i = 1, #ARGV - 5 do out[#out + 1] = versions[i] or '' end
end
return out
`;

export type LimitDecision =
  | { allowed: true; limit: number; remaining: number; resetS: number }
  | { allowed: false; reason: 'rate'; limit: number; remaining: 0; resetS: number }
  | { allowed: false; reason: 'quota'; limit: number; remaining: 0; resetS: number; quota: number };

export type AccessCheck =
  | { kind: 'unknown' }
  | { kind: 'revoked' }
  | {
      kind: 'checked';
      key: ApiKeyRecord;
      decision: LimitDecision;
      /** The versions of the sources asked for, in order ('' for one never bumped). */
      versions: string[];
    };

export interface AccessChecker {
  /**
   * Looks `presented` up and, for an active key, counts one request on a route of `minTier` (metered
   * or not; a key below the tier is limited but not metered) and reads the versions of `sources`.
   */
  check(
    presented: string,
    route: { minTier: Tier; metered: boolean },
    sources: readonly DataSource[],
  ): Promise<AccessCheck>;
}

type AccessCommand = (
  keyRecord: string,
  versions: string,
  prefix: string,
  month: string,
  metered: number,
  rank: number,
  ttl: number,
  ...sources: string[]
) => Promise<(string | number)[]>;

/** Seconds from `now` to the start of the next UTC month. */
export function secondsToNextMonth(now: number): number {
  const d = new Date(now);
  const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return Math.ceil((next - now) / 1000);
}

function decisionOf(
  key: ApiKeyRecord,
  now: number,
  [allowed, remaining, resetMs, reason]: number[],
): LimitDecision {
  const limit = rateFor(key.tier, key.rate);
  if (allowed === 1) {
    return { allowed: true, limit, remaining: remaining!, resetS: Math.max(0, Math.ceil(resetMs! / 1000)) };
  }
  if (reason === 2) {
    return {
      allowed: false,
      reason: 'quota',
      limit,
      remaining: 0,
      resetS: secondsToNextMonth(now),
      quota: hardQuotaOf(key.tier),
    };
  }
  return {
    allowed: false,
    reason: 'rate',
    limit,
    remaining: 0,
    resetS: Math.max(1, Math.ceil(resetMs! / 1000)),
  };
}

export function createAccessChecker(redis: Redis): AccessChecker {
  // defineCommand sends KEYS through the client's key prefix; the keys the script derives from the
  // record get the same prefix through ARGV[1], so a prefixed client stays isolated.
  if (!('pmdataAccess' in redis)) {
    redis.defineCommand('pmdataAccess', { numberOfKeys: 2, lua: ACCESS_LUA });
  }
  const run = (redis as unknown as { pmdataAccess: AccessCommand }).pmdataAccess.bind(redis);
  const prefix = redis.options.keyPrefix ?? '';

  return {
    async check(presented, route, sources) {
      const hash = presentedKeyHash(presented);
      if (!hash) return { kind: 'unknown' };
      const now = Date.now();
      const out = await run(
        `apikey:${hash}`,
        DATA_VERSIONS_KEY,
        prefix,
        monthOf(now),
        route.metered ? 1 : 0,
        TIER_RANK[route.minTier],
        USAGE_TTL_S,
        ...sources,
      );
      if (out[0] === 0) return { kind: 'unknown' };
      if (out[0] === 1) return { kind: 'revoked' };
      const fields: Record<string, string> = {};
      KEY_FIELDS.forEach((name, i) => {
        const v = String(out[i + 1]);
        if (v !== '') fields[name] = v;
      });
      const key = toRecord(fields);
      if (!key) return { kind: 'unknown' };
      const at = KEY_FIELDS.length + 1;
      const decision = decisionOf(key, now, out.slice(at, at + 4).map(Number));
      return { kind: 'checked', key, decision, versions: out.slice(at + 4).map(String) };
    },
  };
}
