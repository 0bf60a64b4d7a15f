/**
 * SPEC's Limits in one place: the plans (rate limit, monthly quota, overage price) and, for every
 * route, whether it needs a key, which tier it needs, and whether it counts toward the monthly quota.
 * Routes do not declare their own access: `accessFor(url)` reads this table when a route is added.
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
const FREE: Access = { kind: 'keyed', minTier: 'free', metered: false };
/** SPEC "Gated (Dev or higher, Free gets 403)". */
const GATED: Access = { kind: 'keyed', minTier: 'dev', metered: true };
/** Every other data route: any tier, counted. */
const METERED: Access = { kind: 'keyed', minTier: 'free', metered: true };

/**
 * Route patterns in Fastify's syntax, matched segment by segment: `*` is one segment (a venue code or
 * a `:param`), `**` the rest of the path. First match wins; unmatched `/v2` routes are METERED.
 */
const RULES: [pattern: string, access: Access][] = [
  ['/health', PUBLIC],
  ['/metrics', ADMIN],
  ['/admin', ADMIN],
  ['/admin/**', ADMIN],
  ['/openapi.json', PUBLIC],
  ['/docs', PUBLIC],
  ['/docs/**', PUBLIC],
  // Retired cross-venue endpoints answer 410 to anyone (see api/routes/retired.ts).
  ['/v2/matching-markets', PUBLIC],
  ['/v2/matching-markets/pairs', PUBLIC],
  ['/v2/markets', PUBLIC],
  ['/v2/markets/listings', PUBLIC],
  ['/v2/outcomes/*', PUBLIC],
  // Gated features.
  ['/v2/alpha/wallets/profiles', GATED],
  ['/v2/alpha/smart-money/**', GATED],
  ['/v2/alpha/leaderboards/**', GATED],
  ['/v2/eta/**', GATED],
  // The cluster is free and unlimited, but SPEC's endpoint table restricts it to Dev or Pro.
  ['/v2/alpha/wallet/*/cluster', { kind: 'keyed', minTier: 'dev', metered: false }],
  // Free and unlimited.
  ['/v2/*/markets', FREE],
  ['/v2/alpha/markets/keyset', FREE],
  ['/v2/*/orderbooks', FREE],
  ['/v2/*/orderbooks-subcent', FREE],
  ['/v2/alpha/events', FREE],
  ['/v2/alpha/events/**', FREE],
  ['/v2/alpha/candlesticks/**', FREE],
  ['/v2/alpha/market-price/*', FREE],
  ['/v2/alpha/volume-chart/*', FREE],
  ['/v2/alpha/markets/*/volume', FREE],
  ['/v2/alpha/markets/*/open_interest', FREE],
  ['/v2/alpha/trades', FREE],
  ['/v2/alpha/activity', FREE],
  ['/v2/alpha/positions', FREE],
  ['/v2/alpha/wallet/positions/*', FREE],
  ['/v2/alpha/position/*/top-holders', FREE],
  ['/v2/alpha/wallet/pnl/*', FREE],
  ['/v2/alpha/uma/**', FREE],
  ['/v2/alpha/builders/**', FREE],
  // Counted (SPEC's endpoint table; issue 37 item 3).
  ['/v2/beta/trades', METERED],
  ['/v2/markets/search', METERED],
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
