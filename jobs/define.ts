/**
 * Job definitions. A job carries a work descriptor (a block range, a page, a metric + window), never
 * row data; its processor fetches, transforms and writes itself, and running it twice changes nothing.
 */
import type { Job } from 'bullmq';
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

export function defineJob<P, R>(def: JobDefinition<P, R>): JobDefinition<P, R> {
  return def;
}
