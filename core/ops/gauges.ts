/**
 * The snapshot's gauges on the metric registry (docs/operations.md "Metrics"): each scrape reads the
 * snapshot the sampler last wrote (one Redis GET, shared by the gauges of one scrape) and sets
 * `pmdata_ingest_{head,checkpoint}_block`, `pmdata_ingest_lag_{blocks,seconds}`,
 * `pmdata_quarantine_records`, `pmdata_jobs` and `pmdata_analytics_{computed_at,freshness}_seconds`.
 * A process exposes them once it binds a reader (`bindSnapshotGauges`: the API does, through its status
 * routes); without a snapshot they have no series.
 */
import { Gauge } from 'prom-client';
import { registry } from '../metrics.ts';
import type { OpsSnapshot } from './snapshot.ts';

let reader: (() => Promise<OpsSnapshot | null>) | undefined;
let cached: { at: number; value: Promise<OpsSnapshot | null> } | undefined;

/** Makes the gauges read the snapshot through `read` (the last binding wins). */
export function bindSnapshotGauges(read: () => Promise<OpsSnapshot | null>): void {
  reader = read;
  cached = undefined;
}

/** The snapshot for this scrape: the gauges of one scrape share one read (reused for 1 s). */
function current(): Promise<OpsSnapshot | null> {
  if (!reader) return Promise.resolve(null);
  const now = Date.now();
  if (!cached || now - cached.at > 1000) {
    cached = { at: now, value: reader().catch(() => null) };
  }
  return cached.value;
}

type Labels<K extends string> = Partial<Record<K, string>>;

function snapshotGauge<K extends string>(
  name: string,
  help: string,
  labelNames: readonly K[],
  values: (s: OpsSnapshot, now: number) => Iterable<[Labels<K>, number | null]>,
): Gauge<K> {
  return new Gauge<K>({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      this.reset();
      const s = await current();
      if (!s) return;
      for (const [labels, v] of values(s, Date.now())) if (v !== null) this.set(labels, v);
    },
  });
}

const ms = (iso: string | null) => (iso === null ? null : Date.parse(iso));

snapshotGauge('pmdata_ingest_head_block', 'Head block of a chain source.', ['source'], (s) =>
  s.sources.map((x) => [{ source: x.source }, x.head]),
);
snapshotGauge(
  'pmdata_ingest_checkpoint_block',
  'Checkpoint block of a chain source (its stored progress).',
  ['source'],
  (s) => s.sources.map((x) => [{ source: x.source }, x.checkpoint]),
);
snapshotGauge(
  'pmdata_ingest_lag_blocks',
  'Head block − checkpoint block of a chain source.',
  ['source'],
  (s) => s.sources.map((x) => [{ source: x.source }, x.lag_blocks]),
);
snapshotGauge(
  'pmdata_ingest_lag_seconds',
  'Chain: head block time − checkpoint block time; REST source: seconds since its last good poll.',
  ['source'],
  (s) => s.sources.map((x) => [{ source: x.source }, x.lag_seconds]),
);
snapshotGauge(
  'pmdata_quarantine_records',
  'Records in quarantine, by source and kind.',
  ['source', 'kind'],
  (s) => s.quarantine.map((q) => [{ source: q.source, kind: q.kind }, q.records]),
);
const JOB_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const;
snapshotGauge('pmdata_jobs', 'BullMQ jobs by queue and state.', ['queue', 'state'], (s) =>
  s.queues.flatMap((q) =>
    JOB_STATES.map((state): [Labels<'queue' | 'state'>, number] => [{ queue: q.queue, state }, q[state]]),
  ),
);
snapshotGauge(
  'pmdata_analytics_computed_at_seconds',
  'Unix time of the last computation of an analytics product.',
  ['product'],
  (s) =>
    s.products.map((p) => [
      { product: p.product },
      p.computed_at === null ? null : ms(p.computed_at)! / 1000,
    ]),
);
snapshotGauge(
  'pmdata_analytics_freshness_seconds',
  'Seconds since the last computation of an analytics product.',
  ['product'],
  (s, now) =>
    s.products.map((p) => [
      { product: p.product },
      p.computed_at === null ? null : Math.max(0, (now - ms(p.computed_at)!) / 1000),
    ]),
);
