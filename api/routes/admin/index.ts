/**
 * The admin routes: operator pages and data behind the admin key (api/plugins/admin.ts), never behind
 * an API key, absent from `/openapi.json`, without CORS headers. Each module registers its routes on the
 * admin scope it is given; the list is mounted by the API (and, for `/metrics`, by the stream server).
 */
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../core/deps.ts';
import { metricsRoute } from './metrics.ts';
import { queuesRoute } from './queues.ts';
import { statusRoutes } from './status.ts';

/** Which server mounts the admin routes: metric labels and what a page may show depend on it. */
export type AdminService = 'api' | 'stream' | 'trade';

export interface AdminContext {
  deps: Deps;
  service: AdminService;
  /** The BullMQ key prefix of the queues shown (default DEFAULT_PREFIX, core/queue-names.ts; tests use their own). */
  queuePrefix?: string;
}

export type AdminRoute = (scope: FastifyInstance, ctx: AdminContext) => Promise<void>;

/** Every admin route module, mounted in this order. */
export const ADMIN_ROUTES: AdminRoute[] = [metricsRoute, statusRoutes, queuesRoute];
