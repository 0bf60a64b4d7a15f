/**
 * The positions job's runs (docs/positions.md "The job"):
 * - `runPositions`: from the checkpoint (alpha_checkpoints, pipeline `positions`, number and hash) up to
 *   the chain's contiguous progress, in batches of whole blocks (`readEvents`): each batch's positions
 *   are loaded (alpha_positions), its events applied in chain order (apply.ts), its change rows and new
 *   states written, then the checkpoint: a crash leaves at most rows above the checkpoint, which the next
 *   run deletes first (a rewind to the checkpoint), so a rerun gives the same rows, never one twice.
 * - A checkpoint whose block a reorg orphaned: a rewind to a block at least the finality depth below it.
 *   A backfill that landed below the checkpoint: a rewind to just below it (`rewindTo`). A rewind deletes
 *   the change rows above its block and restores each position they touched from its last remaining
 *   change (store.ts), then the run goes on from there.
 * - `recomputePositions`: everything again from the first block (`pmdata recompute positions`).
 * - A run over more than STAGE_MIN_BLOCKS blocks copies the range's rows to the stage tables first and
 *   reads its batches from them (events.ts `stageEvents`).
 * - Each run then repairs the positions written before their token's market was known (markets.ts).
 * Each run that wrote refreshes the current prices (`alpha_token_prices`) of the tokens it touched, and
 * of every token with a position at most every PRICE_REFRESH_MS (book midpoints age out): the one
 * current-price function (analytics/shared/current-price.ts) at the analytics' "now" (the newest block's time).
 * Memory: the positions a run touched stay in a map of at most MAX_CACHED states; above it the map is
 * dropped and states are read again per batch (a fresh recomputation reads none while the map holds all),
 * and the map is kept for the process's next run (see `carried`). A recomputation merges
 * alpha_positions into one part at its end (OPTIMIZE FINAL).
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { DataVersions } from '../../core/data-version.ts';
import type { Logger } from '../../core/logger.ts';
import { alphaNow } from '../../core/now.ts';
import { PRODUCT_SOURCES } from '../../schemas/products.ts';
import { blockAtOrBelow, chainProgress, isCanonical } from '../shared/chain.ts';
import { currentPrices } from '../shared/current-price.ts';
import { nextVersion } from '../shared/version.ts';
import type { PositionState } from './accounting.ts';
import { type ApplyStats, applyEvents, emptyStats, touchedKeys } from './apply.ts';
import { createPositionCache, type PositionCache } from './cache.ts';
import { readEvents, stageEvents } from './events.ts';
import { repairMarkets } from './markets.ts';
import { createReference } from './reference.ts';
import {
  loadPositions,
  type PositionsCheckpoint,
  readPositionsCheckpoint,
  resetPositions,
  rewindPositions,
  writeChanges,
  writePositions,
  writePositionsCheckpoint,
} from './store.ts';

export const POSITIONS_SOURCE = PRODUCT_SOURCES['alpha-positions'];
/** Rows per chain table per batch. */
export const DEFAULT_BATCH_ROWS = 50_000;
export const MAX_CACHED = 2_000_000;
export const PRICE_REFRESH_MS = 60_000;
/** A run over more blocks than this copies its rows to the stage tables first (events.ts). */
export const STAGE_MIN_BLOCKS = 2_000;

export interface PositionsSettings {
  chainId: number;
  finalityDepth: number;
  /** Lowercase addresses that never hold a position (docs/positions.md "Accounts"). */
  protocol: readonly string[];
  /** Lowercase NegRiskAdapter address: its redemptions carry per-outcome amounts. */
  negRiskAdapter: string;
  batchRows?: number;
  /** Runs over more blocks than this stage their rows first (default STAGE_MIN_BLOCKS). */
  stageMinBlocks?: number;
}

export interface PositionsDeps {
  clickhouse: ClickHouse;
  log: Logger;
  versions?: DataVersions;
}

export interface PositionsRun {
  mode: 'idle' | 'incremental' | 'rewind' | 'full';
  /** The checkpoint before and after the run (null: none). */
  from: number | null;
  to: number | null;
  batches: number;
  events: number;
  changes: number;
  positions: number;
  /** Positions whose token's market became known since they were written, repaired (markets.ts). */
  repaired: number;
  prices: number;
  stats: ApplyStats;
  ms: number;
}

let lastFullPriceRefresh = 0;

/**
 * The positions a run of this process left in memory, valid for the next run only while the checkpoint
 * it ended at (block number and hash, in the same database) is still the checkpoint: the state of every
 * position at a canonical block is a function of the chain, so whoever moved the checkpoint there, the
 * states are the same. Anything else (a rewind, another process's run, a failed run) starts afresh.
 */
let carried: {
  database: string;
  chainId: number;
  checkpoint: PositionsCheckpoint;
  states: PositionCache;
  complete: boolean;
} | null = null;

/** Rewinds to the highest block with rows at or below `to` (none: empties everything); the new checkpoint. */
async function rewind(
  deps: PositionsDeps,
  s: PositionsSettings,
  to: number,
): Promise<PositionsCheckpoint | null> {
  const ch = deps.clickhouse;
  const floor = to >= 0 ? await blockAtOrBelow(ch, s.chainId, to) : null;
  if (!floor) {
    await resetPositions(ch);
    return null;
  }
  const version = nextVersion();
  const cp = { number: floor.number, hash: floor.hash };
  let done: Awaited<ReturnType<typeof rewindPositions>> | undefined;
  await writePositionsCheckpoint(ch, cp, async () => {
    done = await rewindPositions(ch, s.chainId, floor.number, version);
  });
  deps.log.info({ to: floor.number, ...done }, 'Positions rewound');
  return cp;
}

async function hasRowsAbove(ch: ClickHouse, chainId: number, block: number | null): Promise<boolean> {
  const rows = await ch.read<[number]>(
    'analytics.positions.leftovers',
    `SELECT count() > 0 FROM (SELECT 1 FROM alpha_position_changes
       WHERE chain_id = {chain:UInt32} AND block_number >= {first:UInt64} LIMIT 1)`,
    { chain: chainId, first: block === null ? 0 : block + 1 },
  );
  return Number(rows[0]?.[0] ?? 0) === 1;
}

export async function runPositions(
  deps: PositionsDeps,
  s: PositionsSettings,
  opts: {
    rewindTo?: number;
    full?: boolean;
    /** After each batch: blocks done of the run's blocks (core/progress.ts's `{done, total, unit}`). */
    onProgress?: (p: { done: number; total: number; unit: 'blocks' }) => void;
  } = {},
): Promise<PositionsRun> {
  const started = Date.now();
  const ch = deps.clickhouse;
  const stats = emptyStats();
  let mode: PositionsRun['mode'] = 'incremental';
  let cp = await readPositionsCheckpoint(ch);
  const from = cp?.number ?? null;

  if (opts.full) {
    await resetPositions(ch);
    cp = null;
    mode = 'full';
  } else if (cp && cp.hash !== '' && !(await isCanonical(ch, s.chainId, cp))) {
    deps.log.warn({ checkpoint: cp.number }, 'Positions checkpoint orphaned by a reorg: rewinding');
    cp = await rewind(deps, s, cp.number - s.finalityDepth - 1);
    mode = 'rewind';
  } else if (cp && opts.rewindTo !== undefined && opts.rewindTo < cp.number) {
    cp = await rewind(deps, s, opts.rewindTo);
    mode = 'rewind';
  }
  // Rows above the checkpoint are an interrupted run's: remove them before going on.
  if (await hasRowsAbove(ch, s.chainId, cp?.number ?? null)) {
    if (cp) cp = await rewind(deps, s, cp.number);
    else await resetPositions(ch);
  }

  const progress = await chainProgress(ch);
  const ref = createReference(ch, s.chainId);
  const reuse =
    carried !== null &&
    cp !== null &&
    mode === 'incremental' &&
    carried.database === ch.database &&
    carried.chainId === s.chainId &&
    carried.checkpoint.number === cp.number &&
    carried.checkpoint.hash === cp.hash;
  const cache = reuse && carried ? carried.states : createPositionCache();
  // Starting from nothing, every position is in the map: no reads of alpha_positions until it overflows.
  let complete = reuse && carried ? carried.complete : cp === null;
  carried = null;
  const touchedTokens = new Set<string>();
  let at = cp?.number ?? -1;
  let batches = 0;
  let positions = 0;
  const limit = s.batchRows ?? DEFAULT_BATCH_ROWS;
  const staged = progress !== null && progress.number - at > (s.stageMinBlocks ?? STAGE_MIN_BLOCKS);
  if (staged) {
    await stageEvents(ch, { chainId: s.chainId, from: at, to: progress.number, protocol: s.protocol });
  }

  const startAt = at;
  while (progress && at < progress.number) {
    const batch = await readEvents(ch, {
      chainId: s.chainId,
      from: at,
      to: progress.number,
      limit,
      protocol: s.protocol,
      staged,
    });
    await ref.load(batch.events, batch.to);
    const keys = touchedKeys(batch.events, ref);
    cache.nextBatch();
    if (!complete) {
      const missing = keys.filter((k) => !cache.has(k.wallet, k.tokenId));
      const loaded = await loadPositions(ch, s.chainId, missing);
      for (const state of loaded.values()) cache.set(state);
    }
    const changes = applyEvents(batch.events, cache, ref, stats, s.negRiskAdapter);
    const dirty = new Set<PositionState>();
    for (const c of changes) {
      dirty.add(cache.get(c.state.wallet, c.state.tokenId) as PositionState);
      touchedTokens.add(c.state.tokenId);
    }
    // The states kept share their strings (the change rows keep their own until written).
    for (const p of dirty) cache.adopt(p);
    const version = nextVersion();
    const write = async () => {
      await writeChanges(ch, s.chainId, changes);
      await writePositions(ch, s.chainId, version, [...dirty.values()]);
    };
    // The batch's rows, then the checkpoint at its last block with rows (when that moved).
    const b = await blockAtOrBelow(ch, s.chainId, batch.to);
    if (b && b.number > at) {
      cp = { number: b.number, hash: b.hash };
      await writePositionsCheckpoint(ch, cp, write);
    } else await write();
    positions += dirty.size;
    at = batch.to;
    batches++;
    opts.onProgress?.({ done: at - startAt, total: progress.number - startAt, unit: 'blocks' });
    if (cache.size > MAX_CACHED) {
      cache.clear();
      complete = false;
    }
  }

  // Positions written before their token's market was known carry it from now on (markets.ts).
  const repaired = await repairMarkets(ch, s.chainId, nextVersion(), cache);
  for (const t of repaired) touchedTokens.add(t);
  if (cp) carried = { database: ch.database, chainId: s.chainId, checkpoint: cp, states: cache, complete };
  if (mode === 'full' && batches > 1) {
    // A recomputation wrote the positions in as many parts as batches: merged into one, the reads of
    // alpha_positions FINAL (the API's, the next runs' loads) read each position once, not once per part.
    await ch.command('analytics.positions.optimize', 'OPTIMIZE TABLE alpha_positions FINAL');
  }
  let prices = 0;
  const full = mode !== 'incremental' || Date.now() - lastFullPriceRefresh >= PRICE_REFRESH_MS;
  if (full || touchedTokens.size > 0) {
    prices = await refreshPrices(ch, full ? null : [...touchedTokens], full ? 0 : (from ?? -1) + 1);
    if (full) lastFullPriceRefresh = Date.now();
  }
  if (batches > 0 || repaired.length > 0 || mode !== 'incremental') {
    await deps.versions?.bump(POSITIONS_SOURCE, cp ? `${cp.number}:${cp.hash}` : '');
  }
  if (batches === 0 && repaired.length === 0 && mode === 'incremental') mode = 'idle';
  return {
    mode,
    from,
    to: cp?.number ?? null,
    batches,
    events: stats.events,
    changes: stats.changes,
    positions,
    repaired: repaired.length,
    prices,
    stats,
    ms: Date.now() - started,
  };
}

/** Everything again from the first block. */
export function recomputePositions(
  deps: PositionsDeps,
  s: PositionsSettings,
  onProgress?: (p: { done: number; total: number; unit: 'blocks' }) => void,
): Promise<PositionsRun> {
  return runPositions(deps, s, { full: true, onProgress });
}

/**
 * Writes the current price of `tokens` (null: every token with a position, and their complements so a
 * fill on either side shows) into alpha_token_prices at the analytics' "now". Returns how many.
 */
export async function refreshPrices(
  ch: ClickHouse,
  tokens: readonly string[] | null,
  /** The run's first block: the tokens it touched traded since (currentPrices reads the fills from there). */
  sinceBlock = 0,
): Promise<number> {
  const rows = await ch.read<[string, string]>(
    'analytics.positions.price_tokens',
    tokens === null
      ? 'SELECT token_id, any(condition_id) FROM alpha_positions GROUP BY token_id'
      : `SELECT token_id, any(condition_id) FROM alpha_tokens
         WHERE condition_id IN (SELECT condition_id FROM alpha_tokens WHERE token_id IN {tokens:Array(String)})
         GROUP BY token_id`,
    tokens === null ? {} : { tokens },
  );
  if (rows.length === 0) return 0;
  const now = await alphaNow(ch);
  const prices = await currentPrices(
    ch,
    rows.map(([t]) => t),
    now,
    { sinceBlock },
  );
  const version = nextVersion();
  const at = new Date(now).toISOString().replace('T', ' ').replace('Z', '');
  await ch.insert(
    'analytics.positions.write_prices',
    'alpha_token_prices',
    rows.map(([token, condition]) => {
      const p = prices.get(token) ?? null;
      return {
        token_id: token,
        condition_id: condition,
        price: p?.price ?? null,
        source: p?.source ?? 'none',
        priced_at: at,
        version,
      };
    }),
  );
  return rows.length;
}
