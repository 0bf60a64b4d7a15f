/**
 * A venue's long-running feed (a WebSocket read without end, such as beta's book feed,
 * ingest/venues/beta/feed.ts), declared in the venue's unit (`defineVenue`'s `feeds`, ingest/rest/runner.ts)
 * so that the list of venues derives its job, schedule and status source (jobs/venues.ts,
 * jobs/processors/venue-feeds.ts):
 * - job `<code>.<name>` on queue `venues`, re-enqueued every `everyMs` by a schedule; a run takes the
 *   feed's lease (one reader across processes) and runs until the worker shuts down or the lease is lost
 *   (a run finding it held completes at once, so a crashed holder's feed resumes within one interval);
 * - its position: the newest message's time and when it arrived, in Redis (`recordFeedPosition`), which
 *   the operations sampler reads as the status source `source` (ingest/sources.ts): lag = the upstream's
 *   now − the newest message's time.
 */
import type { Redis } from 'ioredis';
import type { Config } from '../core/config.ts';
import type { Deps } from '../core/deps.ts';

export interface FeedRun {
  /** Aborted at shutdown or when the lease is lost. */
  signal: AbortSignal;
  /** True once the lease was lost: the run writes nothing more (another holder may be writing). */
  leaseLost(): boolean;
  /** Stops the run after this long (ms; tests, benchmarks). */
  maxRunMs?: number;
}

export interface FeedDefinition<S = unknown> {
  /** The job is `<code>.<name>`. */
  name: string;
  /** Its status source (ingest/sources.ts). */
  source: string;
  /** Its lease (one reader across processes). */
  lease: string;
  /** How often a schedule enqueues a run (a run finding the lease held completes at once). */
  everyMs(config: Config): number;
  run(deps: Deps, run: FeedRun): Promise<S>;
}

export function defineFeed<S>(f: FeedDefinition<S>): FeedDefinition<S> {
  return f;
}

/** Redis hash of a feed's position (under the client's key prefix), one per status source. */
export const FEED_POSITION_PREFIX = 'pmdata:feed:';

export interface FeedPosition {
  /** The newest message's time (Unix ms, the upstream's clock). */
  ts: number;
  /** When it arrived (Unix ms, the wall clock). */
  arrivedAt: number;
  /** The upstream's clock minus the wall clock (a simulated world's offset; 0 for a real upstream). */
  offsetMs: number;
}

export async function recordFeedPosition(redis: Redis, source: string, p: FeedPosition): Promise<void> {
  await redis.hset(FEED_POSITION_PREFIX + source, {
    ts: String(p.ts),
    arrived_at: String(p.arrivedAt),
    offset_ms: String(p.offsetMs),
  });
}

export async function readFeedPosition(redis: Redis, source: string): Promise<FeedPosition | null> {
  const h = await redis.hgetall(FEED_POSITION_PREFIX + source);
  if (!h.ts) return null;
  return { ts: Number(h.ts), arrivedAt: Number(h.arrived_at), offsetMs: Number(h.offset_ms ?? 0) };
}
