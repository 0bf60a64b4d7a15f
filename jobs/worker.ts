/**
 * Worker factory: one BullMQ worker per queue, dispatching each job to its definition by name.
 * Permanent failures become BullMQ `UnrecoverableError` (no retry); retryable ones are retried with
 * backoff. `close()` lets active jobs finish (graceful shutdown on SIGINT/SIGTERM).
 */
import { UnrecoverableError, Worker } from 'bullmq';
import type { Deps } from '../core/deps.ts';
import { isRetryable } from '../core/errors.ts';
import type { JobDefinition } from './define.ts';
import { createBullConnection, DEFAULT_PREFIX, type QueueName } from './queues.ts';

export interface Workers {
  readonly queues: QueueName[];
  /** Stops taking jobs, signals running ones to stop at a safe point, waits for them. */
  close(): Promise<void>;
}

export function createWorkers(opts: {
  deps: Deps;
  jobs: readonly JobDefinition<never, unknown>[];
  prefix?: string;
  concurrency?: number;
  /**
   * How long a job's lock lasts without renewal (ms, BullMQ default 30 000): a job whose worker died is
   * taken over by another once its lock expired.
   */
  lockDurationMs?: number;
}): Workers {
  const { deps } = opts;
  const byName = new Map(opts.jobs.map((j) => [j.name, j as JobDefinition<unknown, unknown>]));
  const queueNames = [...new Set(opts.jobs.map((j) => j.queue))];
  const shutdown = new AbortController();
  const workers = queueNames.map((queue) => {
    const worker = new Worker(
      queue,
      async (job) => {
        const def = byName.get(job.name);
        if (!def) throw new UnrecoverableError(`No processor for job ${job.name} on queue ${queue}`);
        const log = deps.log.child({ job: job.name, job_id: job.id, attempt: job.attemptsMade + 1 });
        const started = performance.now();
        try {
          const result = await def.process({ deps, job, log, signal: shutdown.signal });
          log.info({ ms: Math.round(performance.now() - started) }, 'Finished job');
          return result;
        } catch (err) {
          const retryable = isRetryable(err);
          log.error({ err, retryable }, 'Failed job');
          if (!retryable) throw new UnrecoverableError((err as Error).message);
          throw err;
        }
      },
      {
        connection: createBullConnection(deps.config.redisUrl),
        prefix: opts.prefix ?? DEFAULT_PREFIX,
        concurrency: opts.concurrency ?? deps.config.workerConcurrency,
        autorun: true,
        ...(opts.lockDurationMs
          ? {
              lockDuration: opts.lockDurationMs,
              stalledInterval: Math.max(500, Math.floor(opts.lockDurationMs / 2)),
            }
          : {}),
      },
    );
    worker.on('error', (err) => deps.log.error({ err, queue }, 'Worker error'));
    return worker;
  });
  return {
    queues: queueNames,
    async close() {
      shutdown.abort();
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}
