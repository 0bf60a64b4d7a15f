/**
 * The data sources of routes that are not resources (a test's or an embedder's route module, `cacheSources`
 * of api/app.ts), keyed by the route's URL pattern as Fastify spells it (`/v2/alpha/markets/:id/volume`).
 * A resource declares its own (api/resources/define.ts `sources`); a plain route module not listed here is
 * never cached (its answers still carry an ETag).
 */
import type { DataSource } from '../../core/data-version.ts';

export type RouteSources = Readonly<Record<string, readonly DataSource[]>>;

/** The sources of a route URL pattern (trailing slash ignored), or undefined: not cached. */
export function sourcesFor(url: string, table: RouteSources): readonly DataSource[] | undefined {
  const path = url.length > 1 ? url.replace(/\/+$/, '') : url;
  return Object.hasOwn(table, path) ? table[path] : undefined;
}
