/**
 * Venue alpha's positions job (analytics/positions/; docs/positions.md), queue `analytics`:
 * `alpha.positions` every ALPHA_POSITIONS_INTERVAL_S brings the positions up to the chain's contiguous
 * progress; with a `rewindTo` payload (enqueued by a finished backfill range, whose blocks may lie below
 * the positions' checkpoint) it first rewinds to just below that range. Its own Redis lease keeps one
 * positions run at a time across processes: a scheduled run that finds it taken completes at once, a
 * rewind retries later (it must not be lost).
 */
import { analyticsConfig } from '../../analytics/config.ts';
import type { PositionsSettings } from '../../analytics/positions/run.ts';
import { type PositionsRun, runPositions } from '../../analytics/positions/run.ts';
import type { Config } from '../../core/config.ts';
import { createDataVersions } from '../../core/data-version.ts';
import type { Deps } from '../../core/deps.ts';
import { RetryableError } from '../../core/errors.ts';
import { withLease } from '../../core/lease.ts';
import { alphaChainSettings } from '../../ingest/venues/alpha/chain/settings.ts';
import { allContracts, PROTOCOL_HOLDERS } from '../../schemas/abi/alpha-addresses.ts';
import { defineJob } from '../define.ts';
import type { Schedule } from '../schedules.ts';

export const ALPHA_POSITIONS_LEASE = 'analytics:alpha:positions:lease';

/** The positions' settings from alpha's chain settings: every protocol address, lowercase. */
export function alphaPositionsSettings(config: Config): PositionsSettings {
  const chain = alphaChainSettings(config);
  const protocol = new Set<string>([
    ...allContracts(chain.sets).map((c) => c.address.toLowerCase()),
    ...Object.values(chain.roles).map((a) => a.toLowerCase()),
    ...PROTOCOL_HOLDERS.map((a) => a.toLowerCase()),
  ]);
  return {
    chainId: chain.chainId,
    finalityDepth: chain.finalityDepth,
    protocol: [...protocol].sort(),
    negRiskAdapter: chain.roles.negRiskAdapter.toLowerCase(),
  };
}

/** Runs `fn` under the positions lease; null when another process holds it. */
export function withPositionsLease<T>(deps: Deps, fn: () => Promise<T>): Promise<T | null> {
  return withLease(deps.redis, ALPHA_POSITIONS_LEASE, 60_000, fn);
}

export const positionsDeps = (deps: Deps, log: Deps['log'] = deps.log) => ({
  clickhouse: deps.clickhouse,
  log,
  versions: createDataVersions({ redis: deps.redis }),
});

export interface AlphaPositionsPayload {
  /** A backfilled range's first block − 1: the positions rewind there first when they are above it. */
  rewindTo?: number;
}

export const alphaPositionsJob = defineJob<AlphaPositionsPayload, PositionsRun | { ran: false }>({
  name: 'alpha.positions',
  queue: 'analytics',
  attempts: 10,
  async process({ deps, job, log }) {
    const { rewindTo } = job.data;
    const run = await withPositionsLease(deps, () =>
      runPositions(positionsDeps(deps, log), alphaPositionsSettings(deps.config), {
        ...(rewindTo === undefined ? {} : { rewindTo }),
        // `{done, total, unit}` (core/progress.ts): a long run shows in Bull Board and to its watchers.
        onProgress: (p) => {
          job.updateProgress(p).catch(() => {});
        },
      }),
    );
    if (!run) {
      if (rewindTo !== undefined)
        throw new RetryableError('Another positions run holds the lease; retrying the rewind');
      return { ran: false };
    }
    if (run.mode !== 'idle') log.info({ ...run, stats: undefined }, 'Positions run');
    return run;
  },
});

export const POSITIONS_SCHEDULES: readonly Schedule[] = [
  {
    id: 'analytics:alpha-positions',
    job: alphaPositionsJob as never,
    everyMs: (c) => analyticsConfig.of(c).positionsIntervalS * 1000,
    payload: {},
  },
];
