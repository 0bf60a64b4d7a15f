/**
 * Worker factory: one BullMQ worker per queue, dispatching each job to its definition by name.
 * Permanent failures become BullMQ `UnrecoverableError` (no retry); retryable ones are retried with
 * backoff. `close()` lets active jobs finish (graceful shutdown on SIGINT/SIGTERM): a job that stops at a
 * safe point because of the shutdown goes back to the wait list without using an attempt, and the next
 * worker resumes it (long jobs checkpoint, e.g. alpha backfill ranges).
 *
 * Metrics (core/metrics.ts): each attempt that completes or fails is timed in
 * `pmdata_job_duration_seconds{queue,job}`; each failed attempt counts in `pmdata_job_failures_total`.
 * An attempt stopped by the shutdown is neither.
 */
import { UnrecoverableError, WaitingError, Worker } from 'bullmq';
import type { Deps } from '../core/deps.ts';
import { isRetryable } from '../core/errors.ts';
import { jobDuration, jobFailures } from '../core/metrics.ts';
import { redisConnectionError } from '../core/redis.ts';
import type { AnyJob, JobContext } from './define.ts';
import { createBullConnection, createQueues, DEFAULT_PREFIX, type QueueName, type Queues } from './queues.ts';

export interface Workers {
  readonly queues: QueueName[];
  /** Stops taking jobs, signals running ones to stop at a safe point, waits for them. */
  close(): Promise<void>;
}

export function createWorkers(opts: {
  deps: Deps;
  jobs: readonly AnyJob[];
  prefix?: string;
  concurrency?: number;
  /**
   * How long a job's lock lasts without renewal (ms, BullMQ default 30 000): a job whose worker died is
   * taken over by another once its lock expired.
   */
  lockDurationMs?: number;
}): Workers {
  const { deps } = opts;
  const byName = new Map(opts.jobs.map((j) => [j.name, j]));
  const queueNames = [...new Set(opts.jobs.map((j) => j.queue))];
  const shutdown = new AbortController();
  // Queues for jobs that enqueue follow-up work, opened on first use.
  let queues: { connection: ReturnType<typeof createBullConnection>; queues: Queues } | undefined;
  const enqueue: JobContext<unknown>['enqueue'] = (def, payload) => {
    if (!queues) {
      const connection = createBullConnection(deps.config.redisUrl);
      queues = { connection, queues: createQueues({ connection, prefix: opts.prefix ?? DEFAULT_PREFIX }) };
    }
    return queues.queues.enqueue(def, payload);
  };
  const workers = queueNames.map((queue) => {
    const worker = new Worker(
      queue,
      async (job, token) => {
        const def = byName.get(job.name);
        if (!def) {
          jobFailures.labels(queue, job.name).inc();
          throw new UnrecoverableError(`No processor for job ${job.name} on queue ${queue}`);
        }
        const log = deps.log.child({ job: job.name, job_id: job.id, attempt: job.attemptsMade + 1 });
        const started = performance.now();
        const seconds = () => (performance.now() - started) / 1000;
        try {
          const result = await def.process({ deps, job, log, signal: shutdown.signal, enqueue });
          const s = seconds();
          jobDuration.labels(queue, def.name).observe(s);
          log.info({ ms: Math.round(s * 1000) }, 'Finished job');
          return result;
        } catch (err) {
          if (stoppedByShutdown(err, shutdown.signal)) {
            // Active → wait, releasing this worker's lock; the job keeps its attempts.
            await job.moveToWait(token);
            log.info('Stopped job for shutdown; back in the wait list');
            throw new WaitingError();
          }
          jobDuration.labels(queue, def.name).observe(seconds());
          jobFailures.labels(queue, def.name).inc();
          // A job cut off by a lost Redis is retried once it is back; the loss is the process's one line.
          const redisGone = redisConnectionError(err);
          const retryable = redisGone || isRetryable(err);
          // A failure BullMQ will retry (a lease held, an upstream hiccup) is a warning; the last one an error.
          const retries = retryable && job.attemptsMade + 1 < (job.opts.attempts ?? 1);
          log[retries || redisGone ? 'warn' : 'error']({ err, retryable }, 'Failed job');
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
    // A lost Redis is one line of the process (core/redis.ts), not one per worker and reconnect attempt.
    worker.on('error', (err) => {
      if (!redisConnectionError(err)) deps.log.error({ err, queue }, 'Worker error');
    });
    return worker;
  });
  return {
    queues: queueNames,
    async close() {
      shutdown.abort();
      await Promise.all(workers.map((w) => w.close()));
      if (queues) {
        await queues.queues.close();
        queues.connection.disconnect();
      }
    },
  };
}

/** The error is the shutdown's abort reaching a job that stopped at a safe point. */
function stoppedByShutdown(err: unknown, signal: AbortSignal): boolean {
  return signal.aborted && (err === signal.reason || (err as Error | undefined)?.name === 'AbortError');
}
