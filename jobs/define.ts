/**
 * Job definitions. A job carries a work descriptor (a block range, a page, a metric + window), never
 * row data; its processor fetches, transforms and writes itself, and running it twice changes nothing.
 *
 * `defineJob` keeps a job's payload type for whoever enqueues it; lists of jobs (the registry, the
 * workers) hold them as `AnyJob`, the payload erased, and lists of work (schedules, work at start) hold
 * `Work` built by `work`/`schedule`, whose payload was checked against its job when built.
 */
import type { Job } from 'bullmq';
import type { Config } from '../core/config.ts';
import type { Deps } from '../core/deps.ts';
import type { QueueName } from './queues.ts';

export interface JobContext<P> {
  deps: Deps;
  job: Job<P>;
  /** A child logger bound to this job. */
  log: Deps['log'];
  /** Aborted when the worker shuts down: long jobs should stop at the next safe point. */
  signal: AbortSignal;
  /** Enqueues follow-up work (e.g. a finished backfill range's analytics recompute). */
  enqueue<Q>(def: JobDefinition<Q, unknown>, payload: Q): Promise<string | undefined>;
}

export interface JobDefinition<P = unknown, R = unknown> {
  /** Job name, unique across queues. */
  name: string;
  queue: QueueName;
  /**
   * Deterministic job id from the payload, so enqueueing the same work twice is harmless
   * (BullMQ ignores an add whose id exists).
   */
  jobId?(payload: P): string;
  /** Attempts for retryable failures (default 5, exponential backoff). */
  attempts?: number;
  process(ctx: JobContext<P>): Promise<R>;
}

/** A job of any payload and result: what the registry and the workers hold (every definition is one). */
export type AnyJob = JobDefinition<unknown, unknown>;

export function defineJob<P, R>(def: JobDefinition<P, R>): JobDefinition<P, R> {
  return def;
}

/** One piece of work: a job, a payload it takes, and the job id the job derives from it. */
export interface Work {
  job: AnyJob;
  payload: unknown;
  jobId?: string;
}

export function work<P>(job: JobDefinition<P, unknown>, payload: P): Work {
  return { job, payload, jobId: job.jobId?.(payload) };
}

/** Recurring work (jobs/schedules.ts applies it): one scheduler per id, every `everyMs(config)`. */
export interface Schedule extends Work {
  id: string;
  everyMs(config: Config): number;
}

export function schedule<P>(
  id: string,
  job: JobDefinition<P, unknown>,
  everyMs: (config: Config) => number,
  payload: P,
): Schedule {
  return { id, everyMs, ...work(job, payload) };
}
