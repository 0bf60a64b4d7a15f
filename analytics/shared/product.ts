/**
 * An analytics product as one declared unit (`analytics/<product>/index.ts`): `defineProduct({ name,
 * inputs, tables, source, mode, every, job, run, recompute, … })`. analytics/products.ts lists the
 * definitions; jobs/products.ts derives from that list the jobs, their schedules and leases, `pmdata
 * recompute` (ordered by `inputs`), the freshness gauges (its run mark), the data sources the API cache reads, and the
 * enqueueing of a product's run when one of its inputs moved.
 *
 * - `inputs`: what the product reads, as the sources that commit progress: a source ('alpha-chain',
 *   'alpha-catalog', 'alpha-book') or another product's name. They order `recompute all` (each product
 *   after the products it reads) and decide which runs follow a move (`onInput`).
 * - `mode`: 'incremental' (from its own progress on; `--from` recomputes from a block), 'path' (the same,
 *   but each state depends on the one before it: a recomputation from a block rewinds to below it) or
 *   'whole' (rewritten whole at now; `--from` does not apply).
 * - `run(ctx, payload)`: one run of the product's job (the caller holds its lease). Every run that wrote
 *   commits its run mark (source: its name, stream 'run'; analytics/shared/chain.ts `commitRun`) after its
 *   writes, and returns what the job returns and which mark it committed (null when none): the job reads
 *   that mark back from the store and the product's dependents are enqueued from it, as after any other
 *   committed mark. The `at` of its head mark is its freshness (analytics/products.ts).
 * - `onInput(moved, config)`: the payload of the run that follows a move of one of its inputs, or null
 *   when that move asks for none (the schedule brings it).
 * - `recompute(ctx, {from})`: `pmdata recompute`'s run (under the same lease), with its report.
 */
import type { Redis } from 'ioredis';
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { Config } from '../../core/config.ts';
import type { DataSource, DataVersions } from '../../core/data-version.ts';
import type { Logger } from '../../core/logger.ts';
import type { AlphaProductSettings } from './settings.ts';

export type ProductMode = 'incremental' | 'whole' | 'path';

/** What a product's run takes: the engine, a logger, the data versions it bumps, Redis and its settings. */
export interface ProductContext {
  clickhouse: ClickHouse;
  log: Logger;
  versions: DataVersions;
  redis: Redis;
  config: Config;
  settings: AlphaProductSettings;
  /** `{done, total, unit}` of a long run (core/progress.ts). */
  onProgress?(p: { done: number; total: number; unit: string }): void;
}

/**
 * The work descriptor of a product's job (never row data). Each product reads its own fields:
 * alpha-market-data `range`, alpha-positions `rewindTo`, alpha-rolling-metrics and alpha-catalog-lists
 * `reason` (and the lists' coalescing `slot`).
 */
export interface ProductPayload {
  /** A backfilled block range whose buckets are recomputed (absent: the incremental run). */
  range?: { from: number; to: number };
  /** A backfilled range's first block − 1: a path product rewinds there first when it is above it. */
  rewindTo?: number;
  /** What asked for the run. */
  reason?: 'schedule' | 'catch-up' | 'catalog-sync' | 'book-sync' | 'analytics' | 'manual';
  /** The coalescing slot (Unix ms ÷ the slot's length) of a triggered run. */
  slot?: number;
}

/**
 * A move of a source's or a product's progress: a committed watermark (core/watermarks.ts: `source`,
 * `stream`, `kind`, a range's `from`/`to`), with what a product run adds for its dependents.
 */
export interface Moved {
  source: string;
  stream: string;
  kind: 'head' | 'range';
  from?: number;
  to?: number;
  /** A product run that covered more than one step or recomputed a span: its dependents catch up. */
  caughtUp?: boolean;
}

/**
 * What one run of a product's job returns: the job's result, and the run mark it committed (its stream,
 * kind and a range's bounds, read back from the store; null: none), with `caughtUp` for its dependents.
 */
export interface ProductOutcome {
  value: unknown;
  moved: Omit<Moved, 'source'> | null;
}

/** What one recomputation reports: a line, and the figures of the JSON summary. */
export interface ProductReport {
  line: string;
  fields: Record<string, unknown>;
}

/** The product's job, as jobs/products.ts derives it (names, ids and attempts as operators know them). */
export interface ProductJob {
  name: string;
  attempts: number;
  /** Deterministic job id from the payload (absent: every enqueue is a job). */
  jobId?(payload: ProductPayload): string;
  /** The Redis lease its runs (the job's and `pmdata recompute`'s) take; products may share one. */
  lease: string;
  schedule: { id: string; payload: ProductPayload };
  /**
   * Why a payload must not be lost when the lease is held (the job retries later), or undefined: the run
   * completes at once as `{ran: false}` (the next one comes within an interval).
   */
  retryWhenHeld?(payload: ProductPayload): string | undefined;
  /**
   * Triggers that arrive while a run goes coalesce into one more run: a job sets `flag` (a Redis key),
   * then takes the lease; a run clears it when it starts. A job that finds the lease taken completes at
   * once — the holder sees the flag after its run and runs again (at most `maxRuns` times per job).
   */
  coalesce?: { flag: string; maxRuns: number };
}

export interface ProductDefinition {
  name: string;
  inputs: readonly string[];
  /** The tables it writes. */
  tables: readonly string[];
  /** The data source (core/data-version.ts) it bumps after a run that wrote: what the API cache keys on. */
  source: DataSource;
  mode: ProductMode;
  /** Interval of its scheduled run, ms. */
  every(config: Config): number;
  job: ProductJob;
  run(ctx: ProductContext, payload: ProductPayload): Promise<ProductOutcome>;
  onInput?(moved: Moved, config: Config): ProductPayload | null;
  /** `from`: the first block to recompute (null: all; never given to a 'whole' product). */
  recompute(ctx: ProductContext, o: { from: number | null }): Promise<ProductReport>;
}

export function defineProduct(def: ProductDefinition): ProductDefinition {
  return def;
}

/** Seconds with one decimal, as the recompute reports print them. */
export const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * `products` with each one after the products it reads (its `inputs` that are products of the list),
 * otherwise in list order. Throws on a cycle or on two products of one name.
 */
export function dependencyOrder(products: readonly ProductDefinition[]): ProductDefinition[] {
  const names = new Set(products.map((p) => p.name));
  if (names.size !== products.length) throw new Error('Two analytics products share a name');
  const done = new Set<string>();
  const order: ProductDefinition[] = [];
  while (order.length < products.length) {
    const next = products.find(
      (p) => !done.has(p.name) && p.inputs.every((i) => !names.has(i) || done.has(i)),
    );
    if (!next) {
      const left = products.filter((p) => !done.has(p.name)).map((p) => p.name);
      throw new Error(`Analytics products read each other in a cycle: ${left.join(', ')}`);
    }
    done.add(next.name);
    order.push(next);
  }
  return order;
}
