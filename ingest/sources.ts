/**
 * Every ingest source, as the operations sampler reads it (jobs/ops-sampler.ts; core/ops/snapshot.ts):
 * `{source, kind, head(), checkpoint()}`.
 * - `alpha-chain`: head = the RPC node's head block and its time; checkpoint = the chain's contiguous
 *   progress in the progress store (core/watermarks.ts `contiguous`: the follower's mark, or the end of
 *   the finished backfill ranges that join up from the lowest one, whichever is higher), its block's time
 *   (from the node) and when it was committed.
 * - REST sources (`alpha-catalog`, `beta`, `gamma`, `delta`, `epsilon`): head = now; checkpoint = the
 *   last good poll, the newest `at` of the source's marks (every good poll commits one;
 *   ingest/rest/store.ts), so the lag is the time since it.
 * A new source adds its entry here.
 */
import type { Deps } from '../core/deps.ts';
import type { CheckpointPoint, OpsSource, SourcePoint } from '../core/ops/snapshot.ts';
import { createWatermarks, type Watermarks } from '../core/watermarks.ts';
import { createLogSource, type LogSource } from './chain/source.ts';
import { chainSource } from './chain/tables.ts';
import { alphaChainSettings } from './venues/alpha/chain/settings.ts';
import { ALPHA_CHAIN_WRITES } from './venues/alpha/chain/tables.ts';

/** REST sources by name (their polls' marks in the progress store). */
export const REST_SOURCES: readonly string[] = ['alpha-catalog', 'beta', 'gamma', 'delta', 'epsilon'];

export interface SourcesOptions {
  /** The chain's log source (default one on ALPHA_RPC_URLS, 10 s per request, 2 attempts). */
  chainSource?: LogSource;
  now?: () => number;
}

export function ingestSources(
  deps: Pick<Deps, 'config' | 'log' | 'clickhouse'>,
  o: SourcesOptions = {},
): OpsSource[] {
  const marks = createWatermarks(deps.clickhouse);
  return [
    alphaChainSource(deps, marks, o),
    ...REST_SOURCES.map((source) => restSource(marks, source, o.now ?? Date.now)),
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
