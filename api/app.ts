/**
 * The API as a Fastify plugin (`pmdataApi`) and a factory (`buildApp`) that returns a ready instance
 * for `app.inject` in tests and for api/server.ts to listen with. The app only reads: every data route
 * is a bounded ClickHouse query.
 *
 * Per request, in order: gone paths (removed venue, /v1) → key, rate limit, quota, tier → schema
 * validation (422) → response cache (a hit is sent here, api/plugins/cache.ts) → handler → one error
 * handler for everything that fails.
 */
import { randomUUID } from 'node:crypto';
import cors from '@fastify/cors';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyPluginAsync, LogController } from 'fastify';
import type { Deps } from '../core/deps.ts';
import { createHttpMetrics } from '../core/metrics.ts';
import { isAdminPath } from './access.ts';
import type { RouteSources } from './cache/sources.ts';
import type { RouteContext, RoutePlugin } from './context.ts';
import type { MarketSlugResolver } from './markets.ts';
import { createCursorCodec } from './pagination.ts';
import { accessPlugin } from './plugins/access.ts';
import { registerAdmin } from './plugins/admin.ts';
import { cachePlugin } from './plugins/cache.ts';
import { docsPlugin } from './plugins/docs.ts';
import { errorsPlugin, handleError } from './plugins/errors.ts';
import { gonePathsPlugin } from './plugins/gone.ts';
import { unencapsulated } from './plugins/unencapsulated.ts';
import { createAlphaMarketSlugs } from './queries/alpha/market-slugs.ts';
import type { TokenConditions } from './queries/alpha/tokens.ts';
import type { Resource } from './resources/define.ts';
import { RESOURCES } from './resources/index.ts';
import { healthRoutes } from './routes/health.ts';

import { retiredRoutes } from './routes/retired.ts';
import { tickPartRoutes } from './routes/tick-parts.ts';
import { resolveApiSecret } from './secret.ts';
import { AJV_OPTIONS, MAX_PATH_PARAM_LENGTH } from './validation.ts';

export interface AppOptions {
  /** Signs pagination cursors; default: PMDATA_SECRET, or the embedded mode's kept secret. */
  secret?: string;
  /** Market slug lookups for slug filters and fields; default: alpha's catalog (`alpha_markets`). */
  marketSlugs?: MarketSlugResolver;
  /** Resources served in addition to api/resources/index.ts's (tests, embedders). */
  extraResources?: Resource[];
  /** Route modules served besides the resources (tests, embedders): their access from api/access.ts. */
  extraRoutes?: RoutePlugin[];
  /** Data sources of the extra route modules by URL pattern, for the cache (resources declare their own). */
  cacheSources?: RouteSources;
  /** The BullMQ key prefix of the queues the admin queue dashboard shows (default DEFAULT_PREFIX; tests use their own). */
  queuePrefix?: string;
  /** A token map shared with the process's streaming service (its owner starts and stops it). */
  tokens?: TokenConditions;
  /** Called first, before the app's own plugins and routes: hooks added here run before theirs (benchmarks). */
  configure?: (app: FastifyInstance) => void | Promise<void>;
}

/** Headers a browser script may read from a cross-origin response. */
const EXPOSED_HEADERS = [
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'ETag',
  'X-Request-Id',
];

/** The catalog-backed resolver, its background reloads stopped with the app. */
function defaultSlugs(app: FastifyInstance, deps: Deps): MarketSlugResolver {
  const slugs = createAlphaMarketSlugs(deps);
  app.addHook('onClose', async () => slugs.close());
  return slugs;
}

export const pmdataApi: FastifyPluginAsync<{ deps: Deps } & AppOptions> = unencapsulated(
  async (app: FastifyInstance, opts: { deps: Deps } & AppOptions) => {
    const { deps } = opts;
    const { config } = deps;
    await opts.configure?.(app);
    const secret = opts.secret ?? resolveApiSecret(config);
    const ctx: RouteContext = {
      deps,
      secret,
      cursors: createCursorCodec(secret),
      markets: opts.marketSlugs ?? defaultSlugs(app, deps),
      tokens: opts.tokens,
    };

    await app.register(errorsPlugin);
    const corsOptions = {
      origin: config.corsOrigins.includes('*') ? '*' : config.corsOrigins,
      methods: ['GET', 'HEAD', 'OPTIONS'],
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: 600,
    };
    // Admin routes answer no cross-origin request: operators' pages, not a browser API.
    await app.register(cors, {
      delegator: (request, callback) =>
        callback(null, isAdminPath(request.url ?? '') ? { origin: false } : corsOptions),
    });
    await app.register(docsPlugin);
    await app.register(gonePathsPlugin, { removedVenues: config.removedVenues });
    await app.register(accessPlugin, { redis: deps.redis });
    await app.register(cachePlugin, { config, redis: deps.redis, log: deps.log, sources: opts.cacheSources });

    app.addHook('onRequest', async (request, reply) => {
      reply.header('x-request-id', request.id);
    });
    if (config.metricsHttp) {
      // pmdata_http_* by route pattern (never the raw URL); no route matched → `unmatched`.
      const http = createHttpMetrics('api');
      app.addHook('onResponse', (request, reply, done) => {
        http.observe(request.routeOptions.url, request.method, reply.statusCode, reply.elapsedTime / 1000);
        done();
      });
    }
    app.addHook('onResponse', async (request, reply) => {
      request.log[config.logRequestLevel](
        {
          method: request.method,
          route: request.routeOptions.url ?? null,
          url: request.url.slice(0, 300),
          status_code: reply.statusCode,
          cache: request.cacheHit ? 'hit' : request.cacheKey ? 'miss' : undefined,
          ms: Math.round(reply.elapsedTime * 10) / 10,
        },
        'Served request',
      );
    });

    await app.register(healthRoutes);
    await app.register(retiredRoutes);
    await app.register(async (scope) => tickPartRoutes(scope, ctx));
    for (const resource of [...RESOURCES, ...(opts.extraResources ?? [])]) {
      await app.register(async (scope) => resource.register(scope, ctx));
    }
    for (const routes of opts.extraRoutes ?? []) {
      await app.register(async (scope) => routes(scope, ctx));
    }
    await registerAdmin(app, { deps, service: 'api', queuePrefix: opts.queuePrefix });
  },
  'pmdata-api',
);

export type App = FastifyInstance;

/** A ready app: plugins loaded, routes compiled, OpenAPI generated. Not listening. */
export async function buildApp(deps: Deps & AppOptions): Promise<App> {
  const { config, log } = deps;
  const app = Fastify({
    loggerInstance: log,
    // Our own onResponse line replaces Fastify's two per-request lines.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    handlerTimeout: config.requestTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    bodyLimit: 64 * 1024,
    return503OnClosing: true,
    // A path parameter of any length reaches its schema (a 422 naming it); the request line itself is
    // bounded by Node's 16 KiB header limit, and no route has a regular-expression parameter.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAM_LENGTH },
    ajv: AJV_OPTIONS,
    // A URL the router cannot decode answers SPEC's general body too.
    frameworkErrors: handleError,
  }).withTypeProvider<TypeBoxTypeProvider>();
  await app.register(pmdataApi, {
    deps: { config: deps.config, log: deps.log, clickhouse: deps.clickhouse, redis: deps.redis },
    secret: deps.secret,
    marketSlugs: deps.marketSlugs,
    extraRoutes: deps.extraRoutes,
    extraResources: deps.extraResources,
    tokens: deps.tokens,
    cacheSources: deps.cacheSources,
    queuePrefix: deps.queuePrefix,
    configure: deps.configure,
  });
  await app.ready();
  return app as unknown as App;
}
