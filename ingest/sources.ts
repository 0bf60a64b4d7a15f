/**
 * Every ingest source, as the operations sampler reads it (jobs/ops-sampler.ts; core/ops/snapshot.ts):
 * `{source, kind, head(), checkpoint()}`.
 * - `alpha-chain`: head = the RPC node's head block and its time; checkpoint = the chain's stored
 *   progress (`alpha_checkpoints`: the follower's checkpoint, or the end of the finished backfill ranges
 *   that join up from the lowest one, whichever is higher), its block's time (from the node) and when it
 *   was written.
 * - REST sources (one per venue, given by the list of venues: jobs/venues.ts `VENUE_SOURCES`, alpha's
 *   being `alpha-catalog`): head = now; checkpoint = the last good poll, the newest `at` of the source's
 *   watermarks (every good poll commits one; ingest/rest/runner.ts, core/watermarks.ts), so the lag is the
 *   time since it.
 */
import type { ClickHouse } from '../core/clickhouse/index.ts';
import type { Deps } from '../core/deps.ts';
import type { CheckpointPoint, OpsSource, SourcePoint } from '../core/ops/snapshot.ts';
import { createWatermarks } from '../core/watermarks.ts';
import { createLogSource, type LogSource } from './chain/source.ts';
import { alphaChainSettings } from './venues/alpha/chain/settings.ts';
import { ALPHA_CHAIN_WRITES } from './venues/alpha/chain/tables.ts';

/** A REST source by name: the source of its watermarks. */
export interface RestSource {
  source: string;
}

export interface SourcesOptions {
  /** The chain's log source (default one on ALPHA_RPC_URLS, 10 s per request, 2 attempts). */
  chainSource?: LogSource;
  now?: () => number;
}

/** The chain's source, then one per REST source of `rest` (the venues', jobs/venues.ts `VENUE_SOURCES`). */
export function ingestSources(
  deps: Pick<Deps, 'config' | 'log' | 'clickhouse'>,
  rest: readonly RestSource[],
  o: SourcesOptions = {},
): OpsSource[] {
  return [alphaChainSource(deps, o), ...rest.map((r) => restSource(deps.clickhouse, r, o.now ?? Date.now))];
}

function alphaChainSource(deps: Pick<Deps, 'config' | 'log' | 'clickhouse'>, o: SourcesOptions): OpsSource {
  const settings = alphaChainSettings(deps.config);
  let rpc = o.chainSource;
  const source = () => {
    rpc ??= createLogSource({ urls: settings.rpcUrls, log: deps.log, timeoutMs: 10_000, maxAttempts: 2 });
    return rpc;
  };
  const timeOf = async (block: number): Promise<number | null> =>
    (await source().getHeaders([block])).get(block)?.timestampMs ?? null;
  return {
    source: 'alpha-chain',
    kind: 'chain',
    async head(): Promise<SourcePoint> {
      const block = await source().headNumber();
      return { block, time: await timeOf(block) };
    },
    async checkpoint(): Promise<CheckpointPoint | null> {
      const p = await chainProgress(deps.clickhouse, settings.chainId);
      if (!p) return null;
      return { block: p.block, time: await timeOf(p.block), movedAt: p.movedAt };
    },
  };
}

/**
 * The chain's contiguous progress: the follower's checkpoint, or the end of the finished backfill ranges
 * joining up from the lowest one (a range's partial checkpoint extends it), whichever is higher; with the
 * time it was written.
 */
export async function chainProgress(
  ch: ClickHouse,
  chainId: number,
): Promise<{ block: number; movedAt: number } | null> {
  const rows = await ch.query<{ pipeline: string; n: string; at: string }>(
    'ops.chain.progress',
    `SELECT pipeline, argMax(block_number, updated_at) AS n, toUnixTimestamp64Milli(max(updated_at)) AS at
     FROM ${ALPHA_CHAIN_WRITES.checkpoints.name}
     WHERE chain_id = {chain:UInt32} AND (pipeline = 'follow' OR startsWith(pipeline, 'backfill:'))
     GROUP BY pipeline`,
    { chain: chainId },
  );
  let best: { block: number; movedAt: number } | null = null;
  const follow = rows.find((r) => r.pipeline === 'follow');
  if (follow) best = { block: Number(follow.n), movedAt: Number(follow.at) };
  const ranges = rows
    .filter((r) => r.pipeline.startsWith('backfill:'))
    .map((r) => {
      const [from, to] = r.pipeline.slice('backfill:'.length).split('-').map(Number) as [number, number];
      return { from, to, at: Number(r.n), movedAt: Number(r.at) };
    })
    .filter((r) => r.at >= r.from)
    .sort((a, b) => a.from - b.from);
  let endBlock = -1;
  let endMoved = 0;
  for (const r of ranges) {
    if (endBlock >= 0 && r.from > endBlock + 1) break;
    endBlock = Math.max(endBlock, r.at);
    endMoved = Math.max(endMoved, r.movedAt);
    if (r.at < r.to) break; // an unfinished range: nothing above it joins up yet
  }
  if (endBlock >= 0 && (!best || endBlock > best.block)) best = { block: endBlock, movedAt: endMoved };
  return best;
}

function restSource(ch: ClickHouse, r: RestSource, now: () => number): OpsSource {
  const watermarks = createWatermarks(ch);
  return {
    source: r.source,
    kind: 'rest',
    async head() {
      return { block: null, time: now() };
    },
    async checkpoint() {
      const at = await watermarks.newest(r.source);
      if (at === null) return null;
      return { block: null, time: at, movedAt: at };
    },
  };
}
