/**
 * The operations snapshot (docs/operations.md "Status page"): where every ingest source stands against
 * its head, how fresh every analytics product is, the quarantine counts and the BullMQ job counts, as one
 * JSON document in Redis (`pmdata:ops:snapshot`). The sampler (jobs/ops-sampler.ts) writes it every
 * 15 s from the source and product registries; the metric gauges (gauges.ts), the status page and
 * `pmdata status` read it, so none of them queries the upstreams or ClickHouse on a request.
 */
import type { Redis } from 'ioredis';

export const SNAPSHOT_KEY = 'pmdata:ops:snapshot';

/** A point of a source: a block (null for a REST source) and its time (Unix ms; null when unknown). */
export interface SourcePoint {
  block: number | null;
  time: number | null;
}

/** A checkpoint also says when it last moved (Unix ms): a source behind whose checkpoint stands still is stalled. */
export interface CheckpointPoint extends SourcePoint {
  movedAt: number | null;
}

/**
 * An ingest source as the sampler reads it (ingest/sources.ts). Chain: head = the node's head block and
 * its time, checkpoint = the stored progress and its block's time. REST: head = now, checkpoint = the
 * last good poll (its time), so the lag is the time since that poll.
 */
export interface OpsSource {
  source: string;
  kind: SourceKind;
  head(): Promise<SourcePoint | null>;
  checkpoint(): Promise<CheckpointPoint | null>;
}

/** An analytics product (analytics/products.ts): when its last computation landed (Unix ms), or null. */
export interface OpsProduct {
  product: string;
  computedAt(): Promise<number | null>;
}

export type SourceState = 'ok' | 'lagging' | 'stalled';

/** chain: blocks; rest: a venue's polls; feed: a venue's long-running feed (ingest/feed.ts). */
export type SourceKind = 'chain' | 'rest' | 'feed';

export interface SourceStatus {
  source: string;
  kind: SourceKind;
  head: number | null;
  checkpoint: number | null;
  /** ISO 8601; for a REST source the head is the sample's time and the checkpoint the last good poll. */
  head_time: string | null;
  checkpoint_time: string | null;
  lag_blocks: number | null;
  lag_seconds: number | null;
  state: SourceState;
  /** When the checkpoint last moved (ISO 8601). */
  progressed_at: string | null;
  /** Why the head or the checkpoint could not be read (then the source is never `ok`). */
  error?: string;
}

export interface ProductStatus {
  product: string;
  computed_at: string | null;
  freshness_seconds: number | null;
}

export interface QuarantineCount {
  source: string;
  kind: string;
  records: number;
}

export interface QueueCounts {
  queue: string;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  completed: number;
}

export interface OpsSnapshot {
  generated_at: string;
  sources: SourceStatus[];
  products: ProductStatus[];
  quarantine: QuarantineCount[];
  queues: QueueCounts[];
}

export interface StateLimits {
  /** OPS_LAG_WARN_S. */
  lagWarnS: number;
  /** OPS_STALL_S. */
  stallS: number;
}

const iso = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());
const seconds = (ms: number) => Math.round(ms / 100) / 10;

/**
 * A source's status from what was read at `now`. Behind = the checkpoint below the head (chain) or any
 * time since the last poll (REST, whose head is now). Stalled: behind, and the checkpoint has not moved
 * for OPS_STALL_S (a REST source: no good poll for that long). Lagging: lag_seconds above OPS_LAG_WARN_S,
 * or the head or checkpoint unreadable.
 */
export function sourceStatus(
  s: { source: string; kind: SourceKind },
  read: { head: SourcePoint | null; checkpoint: CheckpointPoint | null; error?: string },
  now: number,
  limits: StateLimits,
): SourceStatus {
  const { head, checkpoint } = read;
  const lagBlocks = head?.block != null ? Math.max(0, head.block - (checkpoint?.block ?? -1)) : null;
  const lagMs =
    head?.time != null && checkpoint?.time != null ? Math.max(0, head.time - checkpoint.time) : null;
  const behind = s.kind !== 'chain' ? true : lagBlocks === null ? true : lagBlocks > 0;
  const moved = checkpoint?.movedAt ?? null;
  let state: SourceState = 'ok';
  if (behind && (moved === null || now - moved > limits.stallS * 1000)) state = 'stalled';
  else if ((lagMs !== null && lagMs > limits.lagWarnS * 1000) || read.error || head === null)
    state = 'lagging';
  const out: SourceStatus = {
    source: s.source,
    kind: s.kind,
    head: head?.block ?? null,
    checkpoint: checkpoint?.block ?? null,
    head_time: iso(head?.time),
    checkpoint_time: iso(checkpoint?.time),
    lag_blocks: lagBlocks,
    lag_seconds: lagMs === null ? null : seconds(lagMs),
    state,
    progressed_at: iso(moved),
  };
  if (read.error) out.error = read.error;
  return out;
}

export function productStatus(product: string, computedAt: number | null, now: number): ProductStatus {
  return {
    product,
    computed_at: iso(computedAt),
    freshness_seconds: computedAt === null ? null : seconds(Math.max(0, now - computedAt)),
  };
}

/** Writes the snapshot; it expires after `ttlS` so a sampler that stopped leaves none (default 10 min). */
export async function writeSnapshot(redis: Redis, snapshot: OpsSnapshot, ttlS = 600): Promise<void> {
  await redis.set(SNAPSHOT_KEY, JSON.stringify(snapshot), 'EX', ttlS);
}

export async function readSnapshot(redis: Redis): Promise<OpsSnapshot | null> {
  const raw = await redis.get(SNAPSHOT_KEY);
  return raw ? (JSON.parse(raw) as OpsSnapshot) : null;
}

/** True when a source lags or stalls, or a queue holds failed jobs: what `pmdata status` exits 1 on. */
export function needsAttention(s: Pick<OpsSnapshot, 'sources' | 'queues'>): boolean {
  return s.sources.some((x) => x.state !== 'ok') || s.queues.some((q) => q.failed > 0);
}
