/**
 * API keys in Redis. A key is shown once, at creation; Redis keeps only its SHA-256 (keys carry 192
 * random bits, so a plain hash is enough and needs no server secret that could rotate).
 *
 * Redis layout (under the client's key prefix, if any):
 *   apikey:<sha256 hex>     hash: id, name, tier, status, rate, prefix, created_at, revoked_at
 *   apikey-id:<id>          the sha256 of key <id> (to revoke or inspect by id)
 *   apikeys                 set of every key id
 *   usage:<id>:<YYYY-MM>    hash: metered, free, throttled, over_quota (see api/limits.ts);
 *                           tick_charged, tick_reused, tick_bytes, tick_usd_micros (api/ticks/charges.ts)
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { PLANS, TIERS, type Tier } from '../access.ts';

export type KeyStatus = 'active' | 'revoked';

export interface ApiKeyRecord {
  id: string;
  name: string;
  tier: Tier;
  status: KeyStatus;
  /** Requests per second for Enterprise keys; undefined for the fixed-rate tiers. */
  rate: number | undefined;
  /** The key's first characters, to recognise it in listings. */
  prefix: string;
  createdAt: string;
  revokedAt: string | undefined;
}

export interface MonthlyUsage {
  month: string;
  /** Requests to routes that count toward the quota (served, including overage). */
  metered: number;
  /** Requests to free-and-unlimited routes. */
  free: number;
  /** Requests refused by the per-second limit. */
  throttled: number;
  /** Requests refused because the monthly quota was used (Free tier). */
  overQuota: number;
  quota: number | null;
  overage: number;
  overageUsd: number;
  /** `/v2/data/ticks` answers: charged, and re-issued free within 24 h (api/ticks/charges.ts). */
  tickRequests: number;
  tickReused: number;
  /** Bytes of the parts charged, and what they cost (USD, to the micro-dollar). */
  tickBytes: number;
  tickUsd: number;
}

export const KEY_PREFIX = 'pmd_';

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** UTC calendar month `YYYY-MM` of a time. */
export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

export function usageKey(id: string, month: string): string {
  return `usage:${id}:${month}`;
}

/** The Redis hash of a presented key, or undefined when it cannot be one we issued. */
export function presentedKeyHash(key: string): string | undefined {
  if (!key.startsWith(KEY_PREFIX) || key.length > 200) return undefined;
  return hashKey(key);
}

/** The fields an `apikey:<sha256>` hash holds, in the order `recordOf` reads them by name. */
export const KEY_FIELDS = [
  'id',
  'name',
  'tier',
  'status',
  'rate',
  'prefix',
  'created_at',
  'revoked_at',
] as const;

export function toRecord(h: Record<string, string>): ApiKeyRecord | undefined {
  if (!h.id || !h.tier || !(TIERS as readonly string[]).includes(h.tier)) return undefined;
  return {
    id: h.id,
    name: h.name ?? '',
    tier: h.tier as Tier,
    status: h.status === 'active' ? 'active' : 'revoked',
    rate: h.rate ? Number(h.rate) : undefined,
    prefix: h.prefix ?? '',
    createdAt: h.created_at ?? '',
    revokedAt: h.revoked_at || undefined,
  };
}

export interface KeyStore {
  /** `stream`: an Enterprise key's own streaming limits, by hash field (STREAM_LIMIT_OPTIONS). */
  create(input: {
    tier: Tier;
    name: string;
    rate?: number;
    stream?: Record<string, number>;
  }): Promise<{ key: string; record: ApiKeyRecord }>;
  /** The record of a presented key, or undefined when no such key was ever issued. */
  lookup(key: string): Promise<ApiKeyRecord | undefined>;
  get(id: string): Promise<ApiKeyRecord | undefined>;
  list(): Promise<ApiKeyRecord[]>;
  /** Marks a key revoked; undefined when the id is unknown. */
  revoke(id: string): Promise<ApiKeyRecord | undefined>;
  usage(id: string, month: string): Promise<MonthlyUsage>;
}

export function createKeyStore(redis: Redis): KeyStore {
  async function get(id: string) {
    const hash = await redis.get(`apikey-id:${id}`);
    if (!hash) return undefined;
    return toRecord(await redis.hgetall(`apikey:${hash}`));
  }

  return {
    async create({ tier, name, rate, stream }) {
      const key = KEY_PREFIX + randomBytes(24).toString('base64url');
      const hash = hashKey(key);
      const id = `key_${randomBytes(6).toString('hex')}`;
      const createdAt = new Date().toISOString();
      const fields: Record<string, string> = {
        id,
        name,
        tier,
        status: 'active',
        prefix: key.slice(0, KEY_PREFIX.length + 6),
        created_at: createdAt,
      };
      if (tier === 'enterprise' && rate !== undefined) fields.rate = String(rate);
      const limits = tier === 'enterprise' ? Object.entries(stream ?? {}) : [];
      await redis
        .multi()
        .hset(`apikey:${hash}`, { ...fields, ...Object.fromEntries(limits.map(([f, n]) => [f, String(n)])) })
        .set(`apikey-id:${id}`, hash)
        .sadd('apikeys', id)
        .exec();
      return { key, record: toRecord(fields)! };
    },

    async lookup(key) {
      const hash = presentedKeyHash(key);
      if (!hash) return undefined;
      return toRecord(await redis.hgetall(`apikey:${hash}`));
    },

    get,

    async list() {
      const ids = (await redis.smembers('apikeys')).sort();
      const out: ApiKeyRecord[] = [];
      for (const id of ids) {
        const r = await get(id);
        if (r) out.push(r);
      }
      return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    },

    async revoke(id) {
      const hash = await redis.get(`apikey-id:${id}`);
      if (!hash) return undefined;
      await redis.hset(`apikey:${hash}`, { status: 'revoked', revoked_at: new Date().toISOString() });
      return get(id);
    },

    async usage(id, month) {
      const record = await get(id);
      const h = await redis.hgetall(usageKey(id, month));
      const n = (f: string) => Number(h[f] ?? 0);
      const plan = PLANS[record?.tier ?? 'free'];
      const metered = n('metered');
      const quota = plan.monthlyQuota;
      const overage = quota === null || plan.overageUsdPer100k === null ? 0 : Math.max(0, metered - quota);
      const overageUsd =
        plan.overageUsdPer100k === null
          ? 0
          : Math.round(((overage * plan.overageUsdPer100k) / 100_000) * 100) / 100;
      return {
        month,
        metered,
        free: n('free'),
        throttled: n('throttled'),
        overQuota: n('over_quota'),
        quota,
        overage,
        overageUsd,
        tickRequests: n('tick_charged') + n('tick_reused'),
        tickReused: n('tick_reused'),
        tickBytes: n('tick_bytes'),
        tickUsd: n('tick_usd_micros') / 1_000_000,
      };
    },
  };
}
