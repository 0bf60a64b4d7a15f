/**
 * The alpha chain pipeline's settings, derived once from the validated config (alpha's section,
 * ingest/venues/alpha/config.ts). Address sets come from
 * schemas/abi/alpha-addresses.ts unless ALPHA_ADDRESSES_FILE names a JSON file of the same shape
 * (`{ "<set>": [{ "address", "kind", "label", "version", "negRisk" }], "roles": { ... } }`).
 */
import fs from 'node:fs';
import type { Config } from '../../../../core/config.ts';
import { PermanentError } from '../../../../core/errors.ts';
import {
  type AddressSets,
  ALPHA_ADDRESS_SETS,
  ALPHA_ROLES,
} from '../../../../schemas/abi/alpha-addresses.ts';
import { EVENTS_BY_KIND } from '../../../../schemas/abi/alpha-events.ts';
import { alphaConfig } from '../config.ts';
import type { PositionIdScheme } from './position-ids.ts';

export interface AlphaChainSettings {
  chainId: number;
  rpcUrls: readonly string[];
  finalityDepth: number;
  startBlock: number;
  sets: AddressSets;
  roles: { usdcE: string; wcol: string; pUsd: string; conditionalTokens: string; negRiskAdapter: string };
  positionIds: PositionIdScheme;
  logRange: number;
  logRangeMax: number;
  /** getLogs requests in flight. */
  logConcurrency: number;
  /** Pages above this many logs shrink the next ranges. */
  targetLogsPerPage: number;
  /** Rows per ClickHouse insert and inserts in flight. */
  batchRows: number;
  maxInFlight: number;
  pollIntervalMs: number;
  backfillJobBlocks: number;
  /** Worker threads beside the calling thread for a backfill range (page-workers.ts); 0: none. */
  pipelineWorkers: number;
  /** Most blocks the follower ingests per tick (bounded work and memory per tick). */
  followMaxBlocksPerTick: number;
}

function readAddressFile(file: string): { sets: AddressSets; roles?: Partial<AlphaChainSettings['roles']> } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new PermanentError(`ALPHA_ADDRESSES_FILE ${file} could not be read as JSON`, { cause: err });
  }
  const { roles, ...sets } = parsed as Record<string, unknown>;
  for (const [name, list] of Object.entries(sets)) {
    if (!Array.isArray(list)) throw new PermanentError(`ALPHA_ADDRESSES_FILE: set "${name}" is not an array`);
    for (const c of list as { address?: string; kind?: string }[]) {
      if (!/^0x[0-9a-fA-F]{40}$/.test(c.address ?? '') || !(c.kind && c.kind in EVENTS_BY_KIND)) {
        throw new PermanentError(`ALPHA_ADDRESSES_FILE: set "${name}" has a bad entry ${JSON.stringify(c)}`);
      }
    }
  }
  return { sets: sets as AddressSets, roles: roles as Partial<AlphaChainSettings['roles']> | undefined };
}

export function alphaChainSettings(
  config: Config,
  overrides: Partial<AlphaChainSettings> = {},
): AlphaChainSettings {
  const alpha = alphaConfig.of(config);
  const file = alpha.addressesFile ? readAddressFile(alpha.addressesFile) : undefined;
  return {
    chainId: alpha.chainId,
    rpcUrls: alpha.rpcUrls,
    finalityDepth: alpha.finalityDepth,
    startBlock: alpha.startBlock,
    sets: file?.sets ?? ALPHA_ADDRESS_SETS,
    roles: { ...ALPHA_ROLES, ...(file?.roles ?? {}) },
    positionIds: alpha.positionIds,
    logRange: alpha.logRange,
    logRangeMax: Math.max(alpha.logRange, alpha.logRangeMax),
    logConcurrency: 4,
    targetLogsPerPage: 10_000,
    batchRows: 15_000,
    maxInFlight: 4,
    pollIntervalMs: alpha.pollIntervalMs,
    backfillJobBlocks: alpha.backfillJobBlocks,
    pipelineWorkers: alpha.pipelineWorkers,
    followMaxBlocksPerTick: 500,
    ...overrides,
  };
}
