/**
 * SPEC's Limits in one place: the plans (rate limit, monthly quota, overage price), the streaming limits,
 * and the access of every path that is not a resource (public, admin, retired, not yet served). A resource
 * declares its own access (api/resources/define.ts: FREE, GATED, METERED); `accessFor(url)` reads this
 * table for the other routes when they are added.
 */

export const TIERS = ['free', 'dev', 'pro', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];

export interface Plan {
  /** Label shown in messages and `keys list`. */
  label: string;
  /** Requests per second; Enterprise takes it from the key's own settings. */
  ratePerSecond: number | 'custom';
  /** Metered requests per calendar month (UTC); null = unlimited. */
  monthlyQuota: number | null;
  /** USD per 100,000 metered requests above the quota; null = no overage: over quota is refused. */
  overageUsdPer100k: number | null;
}

export const PLANS: Record<Tier, Plan> = {
  free: { label: 'Free', ratePerSecond: 1, monthlyQuota: 1_000, overageUsdPer100k: null },
  dev: { label: 'Dev', ratePerSecond: 20, monthlyQuota: 1_000_000, overageUsdPer100k: 5 },
  pro: { label: 'Pro', ratePerSecond: 100, monthlyQuota: 5_000_000, overageUsdPer100k: 2.5 },
  enterprise: { label: 'Enterprise', ratePerSecond: 'custom', monthlyQuota: null, overageUsdPer100k: null },
};

/**
 * SPEC "Streaming limits" (and the per-key connection limits of the streaming service): null = no access
 * (Free). Enterprise's are the key's own (`stream_*` fields of its record), else these defaults.
 */
export interface StreamLimits {
  /** Open connections per key, counted across stream processes. */
  connections: number;
  subscriptionsPerConnection: number;
  itemsPerSubscription: number;
  totalItems: number;
  /** Wildcard (`["*"]`) subscriptions per channel on one connection; 0 = not allowed. */
  wildcardsPerChannel: number;
}

export const STREAM_LIMITS: Record<Tier, StreamLimits | null> = {
  free: null,
  dev: {
    connections: 5,
    subscriptionsPerConnection: 10,
    itemsPerSubscription: 10,
    totalItems: 100,
    wildcardsPerChannel: 0,
  },
  pro: {
    connections: 25,
    subscriptionsPerConnection: 100,
    itemsPerSubscription: 500,
    totalItems: 50_000,
    wildcardsPerChannel: 2,
  },
  enterprise: {
    connections: 100,
    subscriptionsPerConnection: 1_000,
    itemsPerSubscription: 5_000,
    totalItems: 500_000,
    wildcardsPerChannel: 20,
  },
};

/**
 * An Enterprise key's own streaming limits: the `keys create --stream NAME=N` names, and the fields of
 * its `apikey:` hash (api/keys/store.ts) that the streaming service reads.
 */
export const STREAM_LIMIT_OPTIONS: Record<string, { limit: keyof StreamLimits; field: string }> = {
  connections: { limit: 'connections', field: 'stream_connections' },
  subscriptions: { limit: 'subscriptionsPerConnection', field: 'stream_subscriptions' },
  items: { limit: 'itemsPerSubscription', field: 'stream_items_per_subscription' },
  total_items: { limit: 'totalItems', field: 'stream_total_items' },
  wildcards: { limit: 'wildcardsPerChannel', field: 'stream_wildcards_per_channel' },
};

/** Pending trades on the stream (`filters.status` pending or all) need this tier or higher. */
export const STREAM_PENDING_MIN_TIER: Tier = 'dev';

/** Enterprise keys created without an explicit rate get this many requests per second. */
export const DEFAULT_ENTERPRISE_RATE = 500;

export const TIER_RANK: Record<Tier, number> = { free: 0, dev: 1, pro: 2, enterprise: 3 };

export type Access =
  /** No key, never rate limited: health, API description, and the answers for gone paths. */
  | { kind: 'public' }
  /**
   * The admin key only (core/admin-auth.ts, checked by api/plugins/admin.ts), never an API key: operator
   * pages, the queue dashboard, `/metrics`. Absent from `/openapi.json`, no CORS headers.
   */
  | { kind: 'admin' }
  /** A key with at least `minTier`; `metered` requests count toward the monthly quota. */
  | { kind: 'keyed'; minTier: Tier; metered: boolean };

const PUBLIC: Access = { kind: 'public' };
const ADMIN: Access = { kind: 'admin' };
/** SPEC "Free and unlimited endpoints": any tier, not counted toward the monthly quota. */
export const FREE: Access = { kind: 'keyed', minTier: 'free', metered: false };
/** SPEC "Gated (Dev or higher, Free gets 403)". */
export const GATED: Access = { kind: 'keyed', minTier: 'dev', metered: true };
/** Any tier, counted: every `/v2` path this table does not name. */
export const METERED: Access = { kind: 'keyed', minTier: 'free', metered: true };

/**
 * The access of paths that are not resources, in Fastify's syntax, matched segment by segment: `*` is one
 * segment (a venue code or a `:param`), `**` the rest of the path. First match wins; unmatched `/v2`
 * paths are METERED. A served data path is a resource and carries its own rule (api/resources/): it is
 * never named here (api/access.test.ts), so this table holds only the public and admin routes, the
 * retired endpoints and SPEC's rules for paths not served yet.
 */
const RULES: [pattern: string, access: Access][] = [
  ['/health', PUBLIC],
  ['/metrics', ADMIN],
  ['/admin', ADMIN],
  ['/admin/**', ADMIN],
  ['/openapi.json', PUBLIC],
  ['/docs', PUBLIC],
  ['/docs/**', PUBLIC],
  // A tick dataset's part: its signed, expiring URL is the credential (api/routes/tick-parts.ts).
  ['/v2/data/ticks/parts/**', PUBLIC],
  // Retired cross-venue endpoints answer 410 to anyone (see api/routes/retired.ts).
  ['/v2/matching-markets', PUBLIC],
  ['/v2/matching-markets/pairs', PUBLIC],
  ['/v2/markets', PUBLIC],
  ['/v2/markets/listings', PUBLIC],
  ['/v2/outcomes/*', PUBLIC],
  // Not served yet: SPEC's rules, for when they are.
  ['/v2/alpha/smart-money/**', GATED],
  ['/v2/alpha/leaderboards/**', GATED],
  ['/v2/eta/**', GATED],
  // The cluster is free and unlimited, but SPEC's endpoint table restricts it to Dev or Pro.
  ['/v2/alpha/wallet/*/cluster', { kind: 'keyed', minTier: 'dev', metered: false }],
  ['/v2/alpha/uma/**', FREE],
  ['/v2/alpha/builders/**', FREE],
];

function matches(pattern: string, url: string): boolean {
  const p = pattern.split('/');
  const u = url.split('/');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '**') return u.length > i;
    if (i >= u.length) return false;
    if (p[i] !== '*' && p[i] !== u[i]) return false;
  }
  return p.length === u.length;
}

/** Whether a request path (query string allowed) is an admin route's: no CORS headers there. */
export function isAdminPath(url: string): boolean {
  const path = url.split('?', 1)[0]!;
  return path === '/metrics' || path === '/admin' || path.startsWith('/admin/');
}

/** The rule this table states for a route URL pattern, if any. */
export function ruleFor(url: string): Access | undefined {
  const path = url.length > 1 ? url.replace(/\/+$/, '') : url;
  for (const [pattern, access] of RULES) if (matches(pattern, path)) return access;
  return undefined;
}

/**
 * The access rule of a route that is not a resource (a resource carries its own, api/resources/define.ts)
 * by its URL pattern (e.g. `/v2/alpha/wallet/:address/cluster`): this table's rule, else METERED under
 * `/v2/` (a test's or an embedder's route module) and PUBLIC elsewhere.
 */
export function accessFor(url: string): Access {
  const path = url.length > 1 ? url.replace(/\/+$/, '') : url;
  return ruleFor(path) ?? (path.startsWith('/v2/') ? METERED : PUBLIC);
}

/** The per-second rate of a key: its plan's, or the key's own for Enterprise. */
export function rateFor(tier: Tier, keyRate: number | undefined): number {
  const r = PLANS[tier].ratePerSecond;
  return r === 'custom' ? (keyRate ?? DEFAULT_ENTERPRISE_RATE) : r;
}
