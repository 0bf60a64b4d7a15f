/**
 * The queue registry: every queue name, and one factory for queues and their connections.
 * BullMQ keys live under `<prefix>:<queue>`; tests use a prefix of their own.
 */
import { Queue, type QueueOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { DEFAULT_PREFIX, type QueueName } from '../core/queue-names.ts';
import { redisBackoff, redisConnectionError, watchRedis } from '../core/redis.ts';
import { type JobDefinition, type Work, work } from './define.ts';

export { DEFAULT_PREFIX, QUEUE_NAMES, type QueueName } from '../core/queue-names.ts';

/** A connection suitable for BullMQ workers (blocking commands need maxRetriesPerRequest null). */
export function createBullConnection(url: string): Redis {
  return watchRedis(
    new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: false, retryStrategy: redisBackoff }),
  );
}

export interface Queues {
  get(name: QueueName): Queue;
  /** Adds one job; the definition's jobId makes a second add of the same work a no-op. */
  enqueue<P>(def: JobDefinition<P, unknown>, payload: P): Promise<string | undefined>;
  /** Adds one piece of work built by `work` (jobs/define.ts), as `enqueue` does. */
  add(w: Work): Promise<string | undefined>;
  close(): Promise<void>;
  readonly prefix: string;
}

export function createQueues(opts: { connection: Redis; prefix?: string }): Queues {
  const prefix = opts.prefix ?? DEFAULT_PREFIX;
  const queues = new Map<QueueName, Queue>();
  const queueOptions: QueueOptions = {
    connection: opts.connection,
    prefix,
    defaultJobOptions: {
      attempts: 5,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: { count: 1000, age: 24 * 3600 },
      removeOnFail: { count: 5000 },
    },
  };
  function get(name: QueueName): Queue {
    let q = queues.get(name);
    if (!q) {
      q = new Queue(name, queueOptions);
      // Its connection's errors: a lost Redis is reported once by the process (core/redis.ts).
      q.on('error', (err) => {
        redisConnectionError(err);
      });
      queues.set(name, q);
    }
    return q;
  }
  async function add(w: Work): Promise<string | undefined> {
    const job = await get(w.job.queue).add(w.job.name, w.payload, {
      // BullMQ reserves ':' in custom ids; map it so definitions may use natural `a:b` ids.
      jobId: w.jobId?.replaceAll(':', '-'),
      attempts: w.job.attempts,
    });
    return job.id;
  }
  return {
    prefix,
    get,
    add,
    enqueue: (def, payload) => add(work(def, payload)),
    async close() {
      await Promise.all([...queues.values()].map((q) => q.close()));
      queues.clear();
    },
  };
}
