/**
 * The queue dashboard: Bull Board (`@bull-board/api`, `@bull-board/fastify`) at `/admin/queues`, a
 * BullMQ adapter per queue of QUEUE_NAMES, behind the admin key like every admin route (its page, its
 * assets and its JSON API `/admin/queues/api/...` are all in the admin scope). Operators see each
 * queue's jobs and may retry, promote, clean or remove them. Mounted by the API only; its Queue objects
 * share one Redis connection of their own (BullMQ refuses a key-prefixed one) and close with the app.
 */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { DEFAULT_PREFIX, QUEUE_NAMES } from '../../../core/queue-names.ts';
import { redisBackoff, redisConnectionError, watchRedis } from '../../../core/redis.ts';
import type { AdminRoute } from './index.ts';

export const QUEUES_PATH = '/admin/queues';

export const queuesRoute: AdminRoute = async (scope, { deps, service, queuePrefix }) => {
  if (service !== 'api') return;
  const connection = watchRedis(
    new Redis(deps.config.redisUrl, {
      maxRetriesPerRequest: null,
      lazyConnect: true,
      retryStrategy: redisBackoff,
    }),
  );
  const queues = QUEUE_NAMES.map((name) => {
    const queue = new Queue(name, { connection, prefix: queuePrefix ?? DEFAULT_PREFIX });
    queue.on('error', (err) => {
      if (!redisConnectionError(err)) deps.log.warn({ err, queue: name }, 'Queue dashboard: queue error');
    });
    return queue;
  });
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(QUEUES_PATH);
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue)),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'pmdata queues' } },
  });
  scope.addHook('onClose', async () => {
    await Promise.all(queues.map((queue) => queue.close()));
    // quit() would wait for a connection that never came up (Redis down): then just drop it.
    if (connection.status === 'ready') await connection.quit().catch(() => connection.disconnect());
    else connection.disconnect();
  });
  await scope.register(serverAdapter.registerPlugin(), { prefix: QUEUES_PATH });
};
