/**
 * Every ingest source, as the operations sampler reads it (jobs/ops-sampler.ts; core/ops/snapshot.ts):
 * `{source, kind, head(), checkpoint()}`.
 * - `alpha-chain`: head = the RPC node's head block and its time; checkpoint = the chain's contiguous
 *   progress in the progress store (core/watermarks.ts `contiguous`: the follower's mark, or the end of
 *   the finished backfill ranges that join up from the lowest one, whichever is higher), its block's time
 *   (from the node) and when it was committed.
 * - REST sources (one per venue, given by the list of venues: jobs/venues.ts `VENUE_SOURCES`, alpha's
 *   being `alpha-catalog`): head = now; checkpoint = the last good poll, the newest `at` of the source's
 *   marks (every good poll commits one; ingest/rest/runner.ts), so the lag is the time since it.
 * - Feed sources (a venue's long-running feed, ingest/feed.ts: `beta-feed`): head = now on the upstream's
 *   clock (the wall clock moved by the offset the feed measured), checkpoint = the newest message's time,
 *   moved when it arrived (wall clock), so the lag is now − the newest message's time and a feed that
 *   hears nothing for OPS_STALL_S is stalled.
 */
import type { Redis } from 'ioredis';
import type { Deps } from '../core/deps.ts';
import type { CheckpointPoint, OpsSource, SourcePoint } from '../core/ops/snapshot.ts';
import { createWatermarks, type Watermarks } from '../core/watermarks.ts';
import { createLogSource, type LogSource } from './chain/source.ts';
import { chainSource } from './chain/tables.ts';
import { readFeedPosition } from './feed.ts';
import { alphaChainSettings } from './venues/alpha/chain/settings.ts';
import { ALPHA_CHAIN_WRITES } from './venues/alpha/chain/tables.ts';

/** A REST source by name (the source of its watermarks), or a feed's (kind `feed`: its position). */
export interface RestSource {
  source: string;
  kind?: 'rest' | 'feed';
}

export interface SourcesOptions {
  /** The chain's log source (default one on ALPHA_RPC_URLS, 10 s per request, 2 attempts). */
  chainSource?: LogSource;
  now?: () => number;
}

/** The chain's source, then one per REST source of `rest` (the venues', jobs/venues.ts `VENUE_SOURCES`). */
export function ingestSources(
  deps: Pick<Deps, 'config' | 'log' | 'clickhouse' | 'redis'>,
  rest: readonly RestSource[],
  o: SourcesOptions = {},
): OpsSource[] {
  const marks = createWatermarks(deps.clickhouse);
  return [
    alphaChainSource(deps, marks, o),
    ...rest.map((r) =>
      r.kind === 'feed'
        ? feedSource(deps.redis, r.source, o.now ?? Date.now)
        : restSource(marks, r.source, o.now ?? Date.now),
    ),
  ];
}

function alphaChainSource(
  deps: Pick<Deps, 'config' | 'log' | 'clickhouse'>,
  marks: Watermarks,
  o: SourcesOptions,
): OpsSource {
  const settings = alphaChainSettings(deps.config);
  let rpc = o.chainSource;
  const source = () => {
    rpc ??= createLogSource({ urls: settings.rpcUrls, log: deps.log, timeoutMs: 10_000, maxAttempts: 2 });
    return rpc;
  };
  const timeOf = async (block: number): Promise<number | null> =>
    (await source().getHeaders([block])).get(block)?.timestampMs ?? null;
  return {
    source: chainSource(ALPHA_CHAIN_WRITES),
    kind: 'chain',
    async head(): Promise<SourcePoint> {
      const block = await source().headNumber();
      return { block, time: await timeOf(block) };
    },
    async checkpoint(): Promise<CheckpointPoint | null> {
      const p = await marks.contiguous(chainSource(ALPHA_CHAIN_WRITES));
      if (!p) return null;
      return { block: p.block, time: await timeOf(p.block), movedAt: p.at };
    },
  };
}

function restSource(marks: Watermarks, source: string, now: () => number): OpsSource {
  return {
    source,
    kind: 'rest',
    async head() {
      return { block: null, time: now() };
    },
    async checkpoint() {
      const at = await marks.newest(source);
      return at === null ? null : { block: null, time: at, movedAt: at };
    },
  };
}

function feedSource(redis: Redis, source: string, now: () => number): OpsSource {
  return {
    source,
    kind: 'feed',
    async head() {
      const p = await readFeedPosition(redis, source);
      return { block: null, time: now() + (p?.offsetMs ?? 0) };
    },
    async checkpoint() {
      const p = await readFeedPosition(redis, source);
      return p === null ? null : { block: null, time: p.ts, movedAt: p.arrivedAt };
    },
  };
}
