/**
 * A resource is the unit of the read side: one served path with its schema, its access rule, the data
 * sources its answers depend on (the response cache keys on their versions), its read and its row mapping.
 * The route list (api/resources/index.ts), the access rules of served paths and the cache's sources are
 * derived from these definitions; api/access.ts keeps only public, admin, retired and not-yet-served paths.
 *
 * `read` is either a `ListSpec` (a feed: api/read/list.ts, whose `toItem` is the row → item mapping the
 * stream shares, api/stream/channels.ts) or a function of the validated request.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest, FastifySchema, RouteOptions } from 'fastify';
import type { DataSource } from '../../core/data-version.ts';
import type { Access } from '../access.ts';
import type { RouteContext } from '../context.ts';
import { type ListSpec, listHandler } from '../read/list.ts';

/** The access rules a resource takes (SPEC's Limits): FREE, GATED (Dev or higher) or METERED. */
export { FREE, GATED, METERED } from '../access.ts';

/**
 * What the response cache keys an answer on: the data sources it reads (core/data-version.ts), or
 * `uncached` with the reason an answer may not be kept (it still carries an ETag).
 */
export type Sources = readonly DataSource[] | { readonly uncached: string };

/** The validated request a read receives, typed from the route's schema. */
export interface ResourceInput<S> {
  query: S extends { querystring: infer Q extends TSchema } ? Static<Q> : undefined;
  params: S extends { params: infer P extends TSchema } ? Static<P> : undefined;
  request: FastifyRequest;
}

export interface ResourceSchema extends FastifySchema {
  summary: string;
  description: string;
  tags: string[];
  querystring?: TSchema;
  params?: TSchema;
  response: Record<number | string, TSchema>;
}

export interface ResourceDefinition<S extends ResourceSchema, Env> {
  /** The URL pattern in Fastify's syntax (`/v2/alpha/markets/:token_id/volume`). */
  path: string;
  method?: 'GET';
  schema: S;
  access: Access;
  sources: Sources;
  /** Per-app state the read needs (in-process maps), made once when the route is registered. */
  setup?(scope: FastifyInstance, ctx: RouteContext): Env;
  /** A feed's declaration, or the read of one request (the answer's body). */
  // biome-ignore lint/suspicious/noExplicitAny: a list of any row, item and lookups type
  read:
    | ListSpec<any, unknown, string, any, any>
    | ((ctx: RouteContext, input: ResourceInput<S>, env: Env) => Promise<unknown>);
}

export interface Resource {
  readonly path: string;
  readonly method: 'GET';
  readonly schema: ResourceSchema;
  readonly access: Access;
  readonly sources: Sources;
  /** Registers the route on `scope` (its access and sources in the route's config). */
  register(scope: FastifyInstance, ctx: RouteContext): void;
}

/** The cache's sources of a resource: its list, or undefined when its answers are not cached. */
export const cachedSources = (s: Sources): readonly DataSource[] | undefined =>
  'uncached' in s ? undefined : (s as readonly DataSource[]);

export function defineResource<const S extends ResourceSchema, Env = undefined>(
  def: ResourceDefinition<S, Env>,
): Resource {
  const method = def.method ?? 'GET';
  return {
    path: def.path,
    method,
    schema: def.schema,
    access: def.access,
    sources: def.sources,
    register(scope, ctx) {
      const read = def.read;
      const handler =
        typeof read === 'function'
          ? (() => {
              const env = def.setup?.(scope, ctx) as Env;
              return (request: FastifyRequest) =>
                read(ctx, { query: request.query, params: request.params, request } as ResourceInput<S>, env);
            })()
          : listHandler(scope, ctx, read);
      const route: RouteOptions = {
        method,
        url: def.path,
        schema: def.schema,
        config: { access: def.access, sources: def.sources },
        handler,
      };
      scope.route(route);
    },
  };
}
