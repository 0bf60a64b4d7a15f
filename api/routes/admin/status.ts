/**
 * The status page (docs/operations.md "Status page"), behind the admin key like every admin route:
 * - `GET /admin` → 302 to `/admin/status`;
 * - `GET /admin/status.json`: the sampler's snapshot (core/ops/snapshot.ts: sources, products,
 *   quarantine, queues; `generated_at` null when no sampler wrote one in the last 10 minutes), the roles
 *   alive now (heartbeats) and the events per minute of the last hour, by source;
 * - `GET /admin/status`: the same as one server-rendered HTML page (status-page.ts) that reloads itself
 *   every 10 s.
 * The API reads Redis only: the sampler runs in the scheduler role (or `up`). Registering these routes
 * also binds the snapshot gauges of `/metrics` (core/ops/gauges.ts) to this process's Redis.
 */
import type { Redis } from 'ioredis';
import { bindSnapshotGauges } from '../../../core/ops/gauges.ts';
import { type RoleBeat, readRoles } from '../../../core/ops/heartbeat.ts';
import { type EventMinute, readEventMinutes } from '../../../core/ops/ingest-counts.ts';
import { type OpsSnapshot, readSnapshot } from '../../../core/ops/snapshot.ts';
import type { AdminRoute } from './index.ts';
import { renderStatusPage } from './status-page.ts';

export interface StatusDocument extends Omit<OpsSnapshot, 'generated_at'> {
  generated_at: string | null;
  roles: RoleBeat[];
  events_per_minute: EventMinute[];
}

/** What `/admin/status.json` answers, read from Redis at `now`. */
export async function readStatus(redis: Redis, now = Date.now()): Promise<StatusDocument> {
  const [snapshot, roles, events] = await Promise.all([
    readSnapshot(redis),
    readRoles(redis, now),
    readEventMinutes(redis, now, 60),
  ]);
  return {
    generated_at: snapshot?.generated_at ?? null,
    sources: snapshot?.sources ?? [],
    products: snapshot?.products ?? [],
    quarantine: snapshot?.quarantine ?? [],
    queues: snapshot?.queues ?? [],
    roles,
    events_per_minute: events,
  };
}

export const statusRoutes: AdminRoute = async (scope, { deps, service }) => {
  // The API's (and `up`'s) only: the stream and trade servers' /metrics leave the fleet-wide gauges to it.
  if (service !== 'api') return;
  bindSnapshotGauges(() => readSnapshot(deps.redis));
  scope.get('/admin', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/admin/status'));
  scope.get('/admin/status.json', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return readStatus(deps.redis);
  });
  scope.get('/admin/status', { schema: { hide: true } }, async (_request, reply) => {
    const doc = await readStatus(deps.redis);
    reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; img-src data:");
    return renderStatusPage(doc, { lagWarnS: deps.config.opsLagWarnS, stallS: deps.config.opsStallS });
  });
};
