/**
 * Keys, tiers, rate limits and quotas for every route: a resource's own rule (api/resources/), else the
 * table of api/access.ts (public, admin, retired and not-yet-served paths).
 * Order per request: key present and known (401) → per-second limit and quota (429) → tier (403).
 * The RateLimit-* headers go on every keyed response, whatever its status. One Redis call per request
 * (api/limits.ts) also reads the data versions of the route's sources for the response cache
 * (`dataSources` in the route config, set by api/plugins/cache.ts; `request.dataVersions`).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { DataSource } from '../../core/data-version.ts';
import { RetryableError } from '../../core/errors.ts';
import { type Access, accessFor, PLANS, TIER_RANK } from '../access.ts';
import { ApiError } from '../errors.ts';
import type { ApiKeyRecord } from '../keys/store.ts';
import { createAccessChecker } from '../limits.ts';
import type { Sources } from '../resources/define.ts';
import { unencapsulated } from './unencapsulated.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A resource's own access rule (api/resources/define.ts); other routes take api/access.ts's. */
    access?: Access;
    /** A resource's declared sources (api/resources/define.ts). */
    sources?: Sources;
    /** The data sources the cache keys the route's answers on (set by api/plugins/cache.ts); none: not cached. */
    dataSources?: readonly DataSource[];
  }
  interface FastifyRequest {
    apiKey: ApiKeyRecord | null;
    /** The versions of the route's `dataSources`, read with the key; null on public routes. */
    dataVersions: string[] | null;
  }
}

const PUBLIC: Access = { kind: 'public' };

/** Keys and limits live in Redis: when it fails, the request can succeed later (503, not 500). */
async function redisCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new RetryableError('Redis failed while checking the API key or its limits', { cause: err });
  }
}

function tierPhrase(access: Extract<Access, { kind: 'keyed' }>): string {
  return `${PLANS[access.minTier].label} tier or higher`;
}

export const accessPlugin = unencapsulated(async (app: FastifyInstance, opts: { redis: Redis }) => {
  const checker = createAccessChecker(opts.redis);

  app.decorateRequest('apiKey', null);
  app.decorateRequest('dataVersions', null);

  app.addHook('onRoute', (route) => {
    route.config = {
      ...(route.config ?? {}),
      access: route.config?.access ?? accessFor(route.url ?? route.path),
    };
  });

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const access = request.routeOptions.config?.access ?? PUBLIC;
    // Admin routes check the admin key in their own scope (api/plugins/admin.ts).
    if (access.kind === 'public' || access.kind === 'admin') return;

    const presented = request.headers['x-api-key'];
    if (typeof presented !== 'string' || presented.trim() === '') {
      throw new ApiError(401, 'Missing API key: send your key in the x-api-key header.');
    }
    const sources = request.routeOptions.config?.dataSources ?? [];
    const checked = await redisCall(() => checker.check(presented.trim(), access, sources));
    if (checked.kind === 'unknown') throw new ApiError(401, 'Invalid API key.');
    if (checked.kind === 'revoked') throw new ApiError(401, 'This API key was revoked.');
    const { key, decision } = checked;
    request.apiKey = key;
    request.dataVersions = checked.versions;
    request.log = request.log.child({ key_id: key.id });

    const permitted = TIER_RANK[key.tier] >= TIER_RANK[access.minTier];
    reply.header('ratelimit-limit', String(decision.limit));
    reply.header('ratelimit-remaining', String(decision.remaining));
    reply.header('ratelimit-reset', String(decision.resetS));
    if (!decision.allowed) {
      const retry = { 'retry-after': String(decision.resetS) };
      if (decision.reason === 'quota') {
        throw new ApiError(
          429,
          `The monthly quota of ${decision.quota.toLocaleString('en-US')} requests of the ${PLANS[key.tier].label} ` +
            `tier is used; it renews at the start of the next month (in ${decision.resetS} s). ` +
            'Free-and-unlimited endpoints stay available; upgrade the plan for more.',
          retry,
        );
      }
      throw new ApiError(
        429,
        `Rate limit of ${decision.limit} request${decision.limit === 1 ? '' : 's'} per second exceeded; ` +
          `wait ${decision.resetS} s (RateLimit-Reset) before retrying, with backoff.`,
        retry,
      );
    }
    if (!permitted) {
      throw new ApiError(
        403,
        `This endpoint needs the ${tierPhrase(access)}; this key is on the ${PLANS[key.tier].label} tier.`,
      );
    }
  });
}, 'pmdata-access');
