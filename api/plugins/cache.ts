/**
 * The response cache and ETags of the data routes.
 *
 * Cache: a route with data sources (a resource's `sources`, api/resources/; a plain route module's in `cacheSources`) has its 200 answers kept as serialized bytes (body and
 * content-type, never per-request headers such as RateLimit-*), keyed by the route, its parameters as
 * validation left them (types coerced, defaults applied), their names sorted and
 * hashed as the cursor digest does (api/pagination.ts `filtersDigest`), and the versions of the sources it reads, which the access check read from Redis in its one call
 * (api/plugins/access.ts). A data change bumps its source's version (core/data-version.ts), so later
 * requests look under a new key: an entry is never served after the data it came from changed. A hit
 * is sent from the preHandler hook: after the key, limit and tier checks and validation, before the
 * handler and the serializer. Entries live in a per-process LRU bounded by API_CACHE_BYTES and, with
 * API_CACHE_SHARED, in Redis too, read when the LRU misses; both expire after API_CACHE_TTL_S, which
 * bounds what a write that bypassed the version bump could leave stale.
 *
 * ETag: every 200 answer of a keyed GET or HEAD route carries a strong ETag of its body bytes, cached or
 * not; an If-None-Match that names it (or `*`) turns the answer into a 304 with the ETag and no body.
 * Conditional requests pass the key, rate limit, quota and tier checks like any other (they run first).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../../core/config.ts';
import type { Logger } from '../../core/logger.ts';
import { etagOf, ifNoneMatchHits } from '../cache/etag.ts';
import { type CachedResponse, createResponseLru } from '../cache/lru.ts';
import { createSharedResponseCache } from '../cache/shared.ts';
import { type RouteSources, sourcesFor } from '../cache/sources.ts';
import { filtersDigest } from '../pagination.ts';
import { cachedSources } from '../resources/define.ts';
import { unencapsulated } from './unencapsulated.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The cache key of this request's answer when it may be stored (a miss); null otherwise. */
    cacheKey: string | null;
    /** True when the answer came from the cache. */
    cacheHit: boolean;
  }
}

export interface CachePluginOptions {
  config: Pick<Config, 'apiCacheBytes' | 'apiCacheShared' | 'apiCacheTtlS'>;
  redis: Redis;
  log: Logger;
  /** Sources of routes that are not resources (tests' and embedders' route modules), by URL pattern. */
  sources?: RouteSources;
}

const isRead = (request: FastifyRequest) => request.method === 'GET' || request.method === 'HEAD';

/** The key of an answer: route, normalized path and query parameters, data versions. */
function cacheKeyOf(request: FastifyRequest, versions: string[]): string {
  const parts: Record<string, unknown> = { versions };
  const params = (request.params ?? {}) as Record<string, unknown>;
  const query = (request.query ?? {}) as Record<string, unknown>;
  for (const k of Object.keys(params)) parts[`path.${k}`] = params[k];
  for (const k of Object.keys(query)) parts[`query.${k}`] = query[k];
  return filtersDigest(request.routeOptions.url ?? request.url, parts);
}

export const cachePlugin = unencapsulated(async (app: FastifyInstance, opts: CachePluginOptions) => {
  const { config, log } = opts;
  const table = opts.sources ?? {};
  const lru = config.apiCacheBytes > 0 ? createResponseLru(config.apiCacheBytes) : undefined;
  const shared = lru && config.apiCacheShared ? createSharedResponseCache(opts.redis) : undefined;
  const ttlMs = config.apiCacheTtlS * 1000;

  app.decorateRequest('cacheKey', null);
  app.decorateRequest('cacheHit', false);

  // Without a cache the access check reads no versions.
  if (lru) {
    app.addHook('onRoute', (route) => {
      const declared = route.config?.sources;
      const sources = declared ? cachedSources(declared) : sourcesFor(route.url ?? route.path, table);
      if (sources) route.config = { ...(route.config ?? {}), dataSources: sources };
    });
  }

  async function lookup(key: string): Promise<CachedResponse | undefined> {
    const now = Date.now();
    const local = lru!.get(key, now);
    if (local || !shared) return local;
    try {
      const found = await shared.get(key);
      if (found) lru!.set(key, found, now + ttlMs);
      return found;
    } catch (err) {
      log.warn({ err }, 'Failed to read the shared response cache');
      return undefined;
    }
  }

  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    const versions = request.dataVersions;
    if (!lru || !versions || !request.routeOptions.config?.dataSources || !isRead(request)) return;
    const key = cacheKeyOf(request, versions);
    const hit = await lookup(key);
    if (!hit) {
      request.cacheKey = key;
      return;
    }
    request.cacheHit = true;
    reply.header('etag', hit.etag).type(hit.contentType);
    return reply.send(hit.body);
  });

  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (reply.statusCode !== 200 || !isRead(request)) return payload;
    if (request.routeOptions.config?.access?.kind !== 'keyed') return payload;
    let etag = request.cacheHit ? String(reply.getHeader('etag')) : undefined;
    if (etag === undefined) {
      if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
      const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
      etag = etagOf(body);
      reply.header('etag', etag);
      if (request.cacheKey) {
        const entry = { body, contentType: String(reply.getHeader('content-type') ?? ''), etag };
        lru!.set(request.cacheKey, entry, Date.now() + ttlMs);
        if (shared) {
          await shared.set(request.cacheKey, entry, ttlMs).catch((err) => {
            log.warn({ err }, 'Failed to write the shared response cache');
          });
        }
      }
      payload = body;
    }
    if (ifNoneMatchHits(request.headers['if-none-match'], etag)) {
      reply.code(304);
      reply.removeHeader('content-type');
      reply.removeHeader('content-length');
      // HEAD: Fastify's own HEAD hook drops the body after this one, keeping the 200's Content-Length
      // (which RFC 9110 §8.6 allows on a 304); it cannot take a null body.
      return request.method === 'HEAD' ? payload : null;
    }
    return payload;
  });
}, 'pmdata-cache');
