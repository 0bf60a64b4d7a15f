/**
 * `GET /metrics`: the process's Prometheus metrics (core/metrics.ts) in the text exposition format,
 * behind the admin key like every admin route. Under `pmdata up` this is the whole process: API,
 * stream, workers, scheduler.
 */
import { registry } from '../../../core/metrics.ts';
import type { AdminRoute } from './index.ts';

export const metricsRoute: AdminRoute = async (scope) => {
  scope.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    const text = await registry.metrics();
    reply.header('content-type', registry.contentType).header('cache-control', 'no-store');
    return text;
  });
};
