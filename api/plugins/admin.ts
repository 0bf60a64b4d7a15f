/**
 * The admin routes (api/routes/admin/): mounted in one encapsulated scope whose first hook checks the
 * admin key (core/admin-auth.ts) — a refusal is answered there, before any route runs. Nothing is
 * mounted when there is no admin key (cluster mode without PMDATA_ADMIN_KEY): those paths answer 404.
 * `api/access.ts` declares the paths `admin` (no API key handling, hidden from `/openapi.json`, no CORS
 * headers: api/app.ts).
 */
import type { FastifyInstance } from 'fastify';
import { createAdminAuth } from '../../core/admin-auth.ts';
import { resolveAdminKey } from '../../core/admin-key.ts';
import type { Deps } from '../../core/deps.ts';
import { ADMIN_ROUTES, type AdminRoute, type AdminService } from '../routes/admin/index.ts';

export interface AdminPluginOptions {
  deps: Deps;
  service: AdminService;
  /** The BullMQ key prefix of the queue dashboard's queues (default DEFAULT_PREFIX). */
  queuePrefix?: string;
  /** Default: every admin route (ADMIN_ROUTES). */
  routes?: readonly AdminRoute[];
}

/** Registers the admin scope on `app`; returns whether anything was mounted. */
export async function registerAdmin(app: FastifyInstance, opts: AdminPluginOptions): Promise<boolean> {
  const { deps } = opts;
  const admin = resolveAdminKey(deps.config);
  if (admin === null) return false;
  const auth = createAdminAuth({ key: admin.key, redis: deps.redis });
  await app.register(async (scope) => {
    scope.addHook('onRequest', async (request, reply) => {
      const refusal = await auth.check({ authorization: request.headers.authorization, ip: request.ip });
      if (refusal === null) return;
      return reply.code(refusal.status).headers(refusal.headers).send(refusal.body);
    });
    for (const routes of opts.routes ?? ADMIN_ROUTES) {
      await routes(scope, { deps, service: opts.service, queuePrefix: opts.queuePrefix });
    }
  });
  return true;
}
