/**
 * The analytics products' jobs, derived from their definitions (analytics/products.ts; analytics/shared/
 * product.ts), queue `analytics`: one job per product (its name, attempts and job id as the definition
 * says), its schedule, its lease, and the one rule that replaces hand-written enqueue chains: when a job
 * commits a move of a source (a finished backfill range of `alpha-chain`, a catalog or book sync, a
 * product's run mark), `enqueueDependents` enqueues every product whose `inputs` include that source and
 * whose `onInput` asks for a run, with the payload it returns, in the list's order. A job names the mark
 * it commits (a product's run: which of its run marks); `enqueueAfterCommit` reads that mark back from
 * the store (core/watermarks.ts) and its dependents follow it only when this run committed it (`at` not
 * before the run's start). alpha's book sync commits no mark: its job calls `enqueueDependents` itself.
 *
 * `productRegistry(products)` derives all of it from a given list (a test's temporary one); the module's
 * constants are it applied to analytics/products.ts.
 *
 * A product's job runs `run` under its lease; a job that finds the lease taken completes at once as
 * `{ran: false}`, unless the definition says the payload must not be lost (then it retries later). A
 * product with `coalesce` first sets its stale flag, and builds again while the flag was set during a
 * build.
 */
import { PRODUCTS } from '../analytics/products.ts';
import type {
  Moved,
  ProductContext,
  ProductDefinition,
  ProductPayload,
  ProductReport,
} from '../analytics/shared/product.ts';
import type { AlphaProductSettings } from '../analytics/shared/settings.ts';
import type { Config } from '../core/config.ts';
import { createDataVersions } from '../core/data-version.ts';
import type { Deps } from '../core/deps.ts';
import { RetryableError } from '../core/errors.ts';
import { withLease } from '../core/lease.ts';
import { createWatermarks } from '../core/watermarks.ts';
import { alphaChainSettings } from '../ingest/venues/alpha/chain/settings.ts';
import { allContracts, PROTOCOL_HOLDERS } from '../schemas/abi/alpha-addresses.ts';
import { defineJob, type JobContext, type JobDefinition, type Schedule, schedule } from './define.ts';

const LEASE_MS = 60_000;

/** The products' settings from alpha's chain settings: every protocol address, lowercase. */
export function productSettings(config: Config): AlphaProductSettings {
  const chain = alphaChainSettings(config);
  const protocol = new Set<string>([
    ...allContracts(chain.sets).map((c) => c.address.toLowerCase()),
    ...Object.values(chain.roles).map((a) => a.toLowerCase()),
    ...PROTOCOL_HOLDERS.map((a) => a.toLowerCase()),
  ]);
  return {
    chainId: chain.chainId,
    usdcE: chain.roles.usdcE.toLowerCase(),
    finalityDepth: chain.finalityDepth,
    protocol: [...protocol].sort(),
    negRiskAdapter: chain.roles.negRiskAdapter.toLowerCase(),
  };
}

/** What a product's run takes, from the process's dependencies. */
export function productContext(
  deps: Deps,
  log: Deps['log'] = deps.log,
  onProgress?: ProductContext['onProgress'],
): ProductContext {
  return {
    clickhouse: deps.clickhouse,
    log,
    versions: createDataVersions({ redis: deps.redis }),
    redis: deps.redis,
    config: deps.config,
    settings: productSettings(deps.config),
    ...(onProgress ? { onProgress } : {}),
  };
}

/** Runs `fn` under the product's lease (clearing its stale flag first); null when another run holds it. */
export function underLease<T>(deps: Deps, p: ProductDefinition, fn: () => Promise<T>): Promise<T | null> {
  return withLease(deps.redis, p.job.lease, LEASE_MS, async () => {
    if (p.job.coalesce) await deps.redis.del(p.job.coalesce.flag);
    return fn();
  });
}

/** `pmdata recompute`'s run of one product under its lease, or null when another run holds it. */
export function recomputeProduct(
  deps: Deps,
  p: ProductDefinition,
  from: number | null,
  onProgress?: ProductContext['onProgress'],
): Promise<ProductReport | null> {
  return underLease(deps, p, () =>
    p.recompute(productContext(deps, deps.log, onProgress), { from: p.mode === 'whole' ? null : from }),
  );
}

/** The jobs, schedules and dependents rule of a list of products (the module's own: analytics/products.ts). */
export interface ProductRegistry {
  products: readonly ProductDefinition[];
  jobs: readonly JobDefinition<ProductPayload, unknown>[];
  schedules: readonly Schedule[];
  /** The job of the product named `name`. */
  jobOf(name: string): JobDefinition<ProductPayload, unknown>;
  /**
   * After a job committed a move of `moved.source`: enqueues the run of every product that reads it and
   * asks for one (`onInput`), in the list's order. Returns the job names enqueued.
   */
  enqueueDependents(ctx: Pick<JobContext<unknown>, 'enqueue' | 'deps'>, moved: Moved): Promise<string[]>;
}

/** The registry of `products`: one job each, its schedule, and the enqueueing of its runs after a move. */
export function productRegistry(products: readonly ProductDefinition[]): ProductRegistry {
  const jobs = new Map<string, JobDefinition<ProductPayload, unknown>>();
  const jobOf = (name: string) => {
    const job = jobs.get(name);
    if (!job) throw new Error(`No analytics product named ${name}`);
    return job;
  };
  const registry: ProductRegistry = {
    products,
    jobs: [],
    schedules: [],
    jobOf,
    async enqueueDependents(ctx, moved) {
      const enqueued: string[] = [];
      for (const p of products) {
        if (!p.inputs.includes(moved.source) || !p.onInput) continue;
        const payload = p.onInput(moved, ctx.deps.config);
        if (payload === null) continue;
        await ctx.enqueue(jobOf(p.name), payload);
        enqueued.push(p.job.name);
      }
      return enqueued;
    },
  };
  for (const p of products) jobs.set(p.name, productJob(p, registry));
  registry.jobs = [...jobs.values()];
  registry.schedules = products.map((p) =>
    schedule(p.job.schedule.id, jobOf(p.name), p.every, p.job.schedule.payload),
  );
  return registry;
}

/** The job of one product; its moves enqueue the dependents of `registry`. */
function productJob(
  p: ProductDefinition,
  registry: Pick<ProductRegistry, 'enqueueDependents'>,
): JobDefinition<ProductPayload, unknown> {
  return defineJob<ProductPayload, unknown>({
    name: p.job.name,
    queue: 'analytics',
    attempts: p.job.attempts,
    ...(p.job.jobId ? { jobId: p.job.jobId } : {}),
    async process({ deps, job, log, enqueue }) {
      const ctx = productContext(deps, log, (progress) => {
        job.updateProgress(progress).catch(() => {});
      });
      const coalesce = p.job.coalesce;
      if (coalesce) await deps.redis.set(coalesce.flag, '1');
      let last: unknown = null;
      for (let runs = 0; runs < (coalesce?.maxRuns ?? 1); runs++) {
        const started = Date.now();
        const out = await underLease(deps, p, () => p.run(ctx, job.data));
        // Taken: complete at once (a coalescing holder sees the flag after its run and runs again), unless
        // the payload must not be lost.
        if (!out) {
          const why = last === null ? p.job.retryWhenHeld?.(job.data) : undefined;
          if (why) throw new RetryableError(why);
          break;
        }
        last = out.value;
        if (out.moved) {
          // Its dependents follow the mark only when this run committed it.
          const mark = await committedMark(deps, { source: p.name, ...out.moved }, started);
          if (mark) await registry.enqueueDependents({ deps, enqueue }, mark);
        }
        // A coalescing product runs again when a trigger set its flag while it ran.
        if (!coalesce || !(await deps.redis.exists(coalesce.flag))) break;
      }
      return last ?? { ran: false };
    },
  });
}

/**
 * The mark `moved` names (its source, stream, kind and a range's bounds), as committed in the store, with
 * the run's `caughtUp`; null when the run that started at `started` (Unix ms) committed none (a mark's
 * `at`, a run version or the commit's wall clock, is never before the start of the run that committed it).
 */
async function committedMark(deps: Deps, moved: Moved, started: number): Promise<Moved | null> {
  const range =
    moved.kind === 'range' && moved.from !== undefined && moved.to !== undefined
      ? { from: moved.from, to: moved.to }
      : undefined;
  const mark = await createWatermarks(deps.clickhouse).read(moved.source, moved.stream, range);
  if (!mark || mark.at < started) return null;
  return { ...mark, ...(moved.caughtUp === undefined ? {} : { caughtUp: moved.caughtUp }) };
}

/**
 * After a run that started at `started` (Unix ms) and commits the mark `moved` names: reads that mark back
 * from the store and, when the run committed it, enqueues the products that follow it (enqueueDependents).
 * Returns the job names enqueued (none when it committed no such mark).
 */
export async function enqueueAfterCommit(
  ctx: Pick<JobContext<unknown>, 'enqueue' | 'deps'>,
  moved: Moved,
  started: number,
): Promise<string[]> {
  const mark = await committedMark(ctx.deps, moved, started);
  return mark ? enqueueDependents(ctx, mark) : [];
}

const REGISTRY = productRegistry(PRODUCTS);

/** The job of the product named `name` (analytics/products.ts). */
export const productJobOf = REGISTRY.jobOf;

export const PRODUCT_JOBS: readonly JobDefinition<ProductPayload, unknown>[] = REGISTRY.jobs;

export const PRODUCT_SCHEDULES: readonly Schedule[] = REGISTRY.schedules;

/**
 * After a job committed a move of `moved.source`: enqueues the run of every product of analytics/
 * products.ts that reads it and asks for one (`onInput`), in the list's order. Returns the job names.
 */
export const enqueueDependents = REGISTRY.enqueueDependents;
