/**
 * The operations sampler (docs/operations.md "Status page"): every 15 s it reads every ingest source
 * (ingest/sources.ts), every analytics product (analytics/products.ts), the quarantine counts and the
 * BullMQ job counts of every queue, and writes the snapshot (core/ops/snapshot.ts) to Redis. Runs in the
 * scheduler role and in `up`; two schedulers sampling at once only write the same snapshot twice.
 */
import { analyticsProducts } from '../analytics/products.ts';
import type { Deps } from '../core/deps.ts';
import {
  type OpsProduct,
  type OpsSnapshot,
  type OpsSource,
  productStatus,
  type QuarantineCount,
  type QueueCounts,
  sourceStatus,
  writeSnapshot,
} from '../core/ops/snapshot.ts';
import { ingestSources } from '../ingest/sources.ts';
import { QUEUE_NAMES, type Queues } from './queues.ts';
import { VENUE_SOURCES } from './venues.ts';

export const SAMPLE_INTERVAL_MS = 15_000;

export interface OpsSampler {
  /** Reads everything once and writes the snapshot; returns it. */
  sample(): Promise<OpsSnapshot>;
  /** Samples now and every `intervalMs` until `stop`. */
  start(): void;
  stop(): Promise<void>;
}

export interface OpsSamplerOptions {
  deps: Deps;
  /** The queues whose job counts are read. */
  queues: Pick<Queues, 'get'>;
  sources?: OpsSource[];
  products?: OpsProduct[];
  intervalMs?: number;
  now?: () => number;
}

/** A reading that does not come within this long counts as failed (an RPC node that hangs). */
const READ_TIMEOUT_MS = 10_000;

function within<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} took longer than ${READ_TIMEOUT_MS} ms`)),
      READ_TIMEOUT_MS,
    );
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function createOpsSampler(o: OpsSamplerOptions): OpsSampler {
  const { deps } = o;
  const sources = o.sources ?? ingestSources(deps, VENUE_SOURCES);
  const products = o.products ?? analyticsProducts(deps.clickhouse);
  const now = o.now ?? Date.now;
  const limits = { lagWarnS: deps.config.opsLagWarnS, stallS: deps.config.opsStallS };
  const lastErrors = new Map<string, string>();

  async function readSource(s: OpsSource) {
    const [head, checkpoint] = await Promise.allSettled([
      within(s.head(), `${s.source} head`),
      within(s.checkpoint(), `${s.source} checkpoint`),
    ]);
    const errors = [head, checkpoint].filter((r) => r.status === 'rejected').map((r) => message(r.reason));
    // Logged when the failure starts or changes, and when it ends: not every 15 s.
    const error = errors.join('; ');
    if (error !== (lastErrors.get(s.source) ?? '')) {
      if (error) deps.log.warn({ source: s.source, errors }, 'Failed to read an ingest source');
      else deps.log.info({ source: s.source }, 'Read an ingest source again');
      lastErrors.set(s.source, error);
    }
    return sourceStatus(
      s,
      {
        head: head.status === 'fulfilled' ? head.value : null,
        checkpoint: checkpoint.status === 'fulfilled' ? checkpoint.value : null,
        ...(errors.length > 0 ? { error: errors.join('; ') } : {}),
      },
      now(),
      limits,
    );
  }

  async function readProduct(p: OpsProduct) {
    try {
      return productStatus(p.product, await within(p.computedAt(), p.product), now());
    } catch (err) {
      deps.log.warn({ product: p.product, err: message(err) }, 'Failed to read an analytics product');
      return productStatus(p.product, null, now());
    }
  }

  async function quarantine(): Promise<QuarantineCount[]> {
    const rows = await deps.clickhouse.query<{ source: string; kind: string; n: string }>(
      'ops.quarantine',
      'SELECT source, kind, count() AS n FROM quarantine FINAL GROUP BY source, kind ORDER BY source, kind',
    );
    return rows.map((r) => ({ source: r.source, kind: r.kind, records: Number(r.n) }));
  }

  async function queueCounts(): Promise<QueueCounts[]> {
    const out: QueueCounts[] = [];
    for (const name of QUEUE_NAMES) {
      const c = await o.queues.get(name).getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed');
      out.push({
        queue: name,
        waiting: c.waiting ?? 0,
        active: c.active ?? 0,
        delayed: c.delayed ?? 0,
        failed: c.failed ?? 0,
        completed: c.completed ?? 0,
      });
    }
    return out;
  }

  async function sample(): Promise<OpsSnapshot> {
    const snapshot: OpsSnapshot = {
      generated_at: new Date(now()).toISOString(),
      sources: await Promise.all(sources.map(readSource)),
      products: await Promise.all(products.map(readProduct)),
      quarantine: await quarantine(),
      queues: await queueCounts(),
    };
    await writeSnapshot(deps.redis, snapshot);
    return snapshot;
  }

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  const tick = () => {
    if (running) return;
    running = sample()
      .catch((err) => deps.log.warn({ err: message(err) }, 'Failed to sample the operations snapshot'))
      .finally(() => {
        running = undefined;
      });
  };
  return {
    sample,
    start() {
      if (timer) return;
      tick();
      timer = setInterval(tick, o.intervalMs ?? SAMPLE_INTERVAL_MS);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
