/**
 * The market-data run of venue alpha (docs/analytics.md): candles, open interest and totals, computed
 * from the chain tables into the derived tables of migration 027.
 *
 * - `runMarketData` (job `analytics.alpha-market-data`, every ANALYTICS_INTERVAL_S): from the analytics
 *   checkpoint up to the chain's contiguous progress, in steps of at most `stepBlocks` blocks. A step
 *   recomputes, from the minute of the checkpoint's block on, the whole buckets of the tokens and
 *   conditions with new rows (rows up to the step's block only), then moves the checkpoint. No
 *   checkpoint: a full recomputation. A checkpoint whose block a reorg orphaned: every key is
 *   recomputed from a block at least the finality depth below it (beneath any reorg the follower
 *   follows), then the run goes on.
 * - `recomputeMarketData` (a finished backfill range; `pmdata analytics recompute alpha`): every key's
 *   buckets over the blocks' time span, in windows of `windowSeconds`, then the totals of what changed.
 *
 * Runs must not overlap (the jobs take a lease); a rerun of the same work writes the same rows again.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import { PRODUCT_SOURCES } from '../../schemas/products.ts';
import {
  type BlockRef,
  blockAtOrAbove,
  blockAtOrBelow,
  chainProgress,
  isCanonical,
} from '../shared/chain.ts';
import { DAY, floorTo, MINUTE, type Scope, tokenMapSql } from '../shared/scope.ts';
import type { AlphaAnalyticsSettings } from '../shared/settings.ts';
import { type AnalyticsDeps, nextVersion } from '../shared/version.ts';
import { recomputeCandles } from './candles.ts';
import { oiConditionsIn, recomputeOpenInterest } from './open-interest.ts';
import { readAnalyticsCheckpoint, writeAnalyticsCheckpoint } from './progress.ts';
import { recomputeTotals } from './totals.ts';

export const MARKET_DATA_SOURCE = PRODUCT_SOURCES['alpha-market-data'];

export interface MarketDataRun {
  mode: 'idle' | 'incremental' | 'rewind' | 'full' | 'from-block' | 'range';
  /** Blocks covered: after `from` up to `to` (null when idle). */
  from: number | null;
  to: number | null;
  /** Steps (incremental) or windows (recomputation) computed. */
  steps: number;
  /** Run version (Unix ms) of the rows written. */
  version: number;
  ms: number;
}

const DEFAULT_STEP_BLOCKS = 20_000;
const DEFAULT_WINDOW_SECONDS = 7 * DAY;

const minuteOf = (ms: number) => floorTo(Math.floor(ms / 1000), MINUTE);

async function strings(ch: ClickHouse, label: string, sql: string, params: Record<string, unknown>) {
  const rows = await ch.query<{ k: string }>(label, sql, params);
  return rows.map((r) => r.k);
}

async function computeScope(deps: AnalyticsDeps, s: AlphaAnalyticsSettings, scope: Scope): Promise<void> {
  await recomputeCandles(deps.clickhouse, scope);
  await recomputeOpenInterest(deps.clickhouse, scope, s.usdcE);
}

async function bump(deps: AnalyticsDeps, tip: { number: number; hash: string } | null): Promise<void> {
  await deps.versions?.bump(MARKET_DATA_SOURCE, tip ? `${tip.number}:${tip.hash}` : '');
}

/**
 * Recomputes every key's buckets over [fromTime, toTime) (Unix s; toTime null: open-ended) from chain
 * rows up to `maxBlock`, window by window, then the totals of every key written.
 */
async function recomputeSpan(
  deps: AnalyticsDeps,
  s: AlphaAnalyticsSettings,
  span: { fromTime: number; toTime: number | null; lastTime: number; maxBlock: number },
  version: number,
  after?: Scope,
): Promise<number> {
  const width = s.windowSeconds ?? DEFAULT_WINDOW_SECONDS;
  let steps = 0;
  let from = span.fromTime;
  for (;;) {
    // Windows are whole days so that each one's hourly and daily rollups stay inside it.
    const next = floorTo(from, DAY) + width;
    const last = next > span.lastTime && (span.toTime === null || next >= span.toTime);
    const to = last ? span.toTime : next;
    await computeScope(deps, s, {
      version,
      chainId: s.chainId,
      from,
      to,
      maxBlock: span.maxBlock,
      tokens: null,
      conditions: null,
      oiConditions: null,
      additive: false,
    });
    steps++;
    if (last) break;
    from = next;
  }
  if (after) {
    if (after.tokens?.length) await recomputeCandles(deps.clickhouse, after);
    await recomputeOpenInterest(deps.clickhouse, after, s.usdcE);
    steps++;
  }
  await recomputeTotals(deps.clickhouse, s.chainId, version);
  return steps;
}

/**
 * The conditions (and their tokens) whose market data depends on reference rows of blocks from..to:
 * tokens known from there (condition candles join `alpha_tokens`), conditions prepared there (open
 * interest counts a USDC.e CTF event only on a prepared 2-outcome condition, and maps a conversion's
 * questions to conditions through them) and the conditions of neg-risk markets prepared there (a
 * conversion's fee). Rows computed before such a range was backfilled missed them.
 */
async function taughtIn(
  ch: ClickHouse,
  chainId: number,
  blocks: { from: number; to: number },
): Promise<{ tokens: string[]; conditions: string[] }> {
  const params = { chain: chainId, from: blocks.from, to: blocks.to };
  const inRange = 'chain_id = {chain:UInt32} AND block_number BETWEEN {from:UInt64} AND {to:UInt64}';
  const conditions = await strings(
    ch,
    'analytics.taught.conditions',
    `SELECT DISTINCT condition_id AS k FROM (
       SELECT condition_id FROM alpha_tokens WHERE ${inRange}
       UNION ALL
       SELECT condition_id FROM alpha_lifecycle WHERE kind = 'condition_prepared' AND ${inRange}
       UNION ALL
       SELECT condition_id FROM alpha_lifecycle
       WHERE chain_id = {chain:UInt32} AND kind = 'condition_prepared' AND substring(question_id, 1, 64) IN (
         SELECT substring(market_id, 1, 64) FROM alpha_neg_risk_markets WHERE ${inRange}))
     WHERE condition_id != ''`,
    params,
  );
  if (conditions.length === 0) return { tokens: [], conditions };
  const tokens = await strings(
    ch,
    'analytics.taught.tokens',
    `SELECT DISTINCT token_id AS k FROM alpha_tokens
     WHERE chain_id = {chain:UInt32} AND condition_id IN {conditions:Array(String)}`,
    { chain: chainId, conditions },
  );
  return { tokens, conditions };
}

/**
 * Recomputes the market data of blocks `fromBlock`..`toBlock` (defaults: the first block with rows, the
 * chain's progress). Without `toBlock` it also moves the analytics checkpoint to the progress, so the
 * incremental runs go on from there; with it (a backfilled range, perhaps below the checkpoint) the
 * checkpoint stays and the range's own run mark (`fromBlock`..`toBlock`) is committed.
 */
export async function recomputeMarketData(
  deps: AnalyticsDeps,
  s: AlphaAnalyticsSettings,
  o: { fromBlock?: number; toBlock?: number } = {},
): Promise<MarketDataRun> {
  const started = Date.now();
  const ch = deps.clickhouse;
  const progress = await chainProgress(ch);
  const checkpoint = await readAnalyticsCheckpoint(ch, s.chainId);
  const version = nextVersion(checkpoint?.version);
  const range = o.toBlock !== undefined;
  const maxBlock = Math.max(progress?.number ?? 0, o.toBlock ?? 0);
  const first = await blockAtOrAbove(ch, s.chainId, o.fromBlock ?? 0);
  const last = await blockAtOrBelow(ch, s.chainId, range ? (o.toBlock as number) : maxBlock);
  const mode: MarketDataRun['mode'] = range ? 'range' : o.fromBlock !== undefined ? 'from-block' : 'full';
  if (!first || !last || last.number < first.number) {
    return { mode: 'idle', from: null, to: null, steps: 0, version, ms: Date.now() - started };
  }
  const toTime = range ? minuteOf(last.time) + MINUTE : null;
  // A range below the analytics checkpoint may teach conditions traded above it (an older range
  // backfilled after the follower started): their buckets after the range are recomputed too, from the
  // rows the analytics computed (up to the checkpoint; the incremental runs go on from there).
  let after: Scope | undefined;
  if (range && toTime !== null && checkpoint && checkpoint.number > last.number) {
    const taught = await taughtIn(ch, s.chainId, { from: o.fromBlock ?? 0, to: o.toBlock as number });
    if (taught.conditions.length > 0) {
      after = {
        version,
        chainId: s.chainId,
        from: toTime,
        to: null,
        maxBlock: checkpoint.number,
        tokens: taught.tokens,
        conditions: taught.conditions,
        oiConditions: taught.conditions,
        additive: false,
      };
    }
  }
  let steps = 0;
  // The checkpoint moves to the last block; a backfilled range's recomputation commits the range's mark.
  const span = range ? { from: o.fromBlock ?? 0, to: o.toBlock as number } : undefined;
  await writeAnalyticsCheckpoint(
    ch,
    last,
    version,
    async () => {
      steps = await recomputeSpan(
        deps,
        s,
        {
          fromTime: mode === 'full' ? floorTo(minuteOf(first.time), DAY) : minuteOf(first.time),
          toTime,
          lastTime: minuteOf(last.time) + MINUTE,
          maxBlock: range ? maxBlock : last.number,
        },
        version,
        after,
      );
    },
    span,
  );
  await bump(deps, range ? checkpoint : last);
  deps.log.info(
    { mode, from: first.number, to: last.number, windows: steps, ms: Date.now() - started },
    'Recomputed alpha market data',
  );
  return { mode, from: first.number - 1, to: last.number, steps, version, ms: Date.now() - started };
}

/**
 * One incremental step: the keys with rows in blocks (after, upTo], from the minute of `after` on. The
 * rows at or below `after` are the ones the previous step read (the checkpoint's hash is canonical), so
 * the step only adds: it writes no deleted rows.
 */
async function step(
  deps: AnalyticsDeps,
  s: AlphaAnalyticsSettings,
  after: BlockRef,
  upTo: BlockRef,
  version: number,
): Promise<void> {
  const ch = deps.clickhouse;
  const from = minuteOf(after.time);
  const blocks = { chain: s.chainId, after: after.number, up_to: upTo.number, from };
  // Tokens with new maker fills, each with its condition ('' when alpha_tokens does not know it).
  const touched = await ch.query<{ token_id: string; condition_id: string }>(
    'analytics.touched.tokens',
    `SELECT f.token_id AS token_id, any(m.condition_id) AS condition_id
     FROM (SELECT DISTINCT token_id FROM alpha_fills
           WHERE chain_id = {chain:UInt32} AND role = 'maker' AND block_number > {after:UInt64}
             AND block_number <= {up_to:UInt64} AND block_time >= toDateTime({from:UInt32}, 'UTC')) AS f
     LEFT JOIN ${tokenMapSql()} AS m ON m.token_id = f.token_id
     GROUP BY f.token_id`,
    blocks,
  );
  const tokens = touched.map((r) => r.token_id);
  const conditions = [...new Set(touched.map((r) => r.condition_id).filter((c) => c !== ''))];
  const oiConditions = await oiConditionsIn(ch, s.chainId, s.usdcE, {
    after: after.number,
    upTo: upTo.number,
  });
  if (tokens.length === 0 && oiConditions.length === 0) return;
  const scope: Scope = {
    version,
    chainId: s.chainId,
    from,
    to: null,
    maxBlock: upTo.number,
    tokens,
    conditions,
    oiConditions,
    additive: true,
  };
  if (tokens.length > 0) await recomputeCandles(ch, scope);
  if (oiConditions.length > 0) await recomputeOpenInterest(ch, scope, s.usdcE);
  // The tokens of conditions whose open interest changed carry it on their totals rows.
  const oiTokens =
    oiConditions.length === 0
      ? []
      : await ch.query<{ token_id: string; condition_id: string }>(
          'analytics.touched.oi_tokens',
          `SELECT token_id, condition_id FROM ${tokenMapSql('condition_id IN {conditions:Array(String)}')}`,
          { chain: s.chainId, conditions: oiConditions },
        );
  const allTokens = [...new Set([...tokens, ...oiTokens.map((r) => r.token_id)])];
  const tokenConditions = [
    ...new Set([...touched.map((r) => r.condition_id), ...oiTokens.map((r) => r.condition_id)]),
  ].filter((c) => c !== '');
  await recomputeTotals(ch, s.chainId, version, {
    additive: true,
    keys: { tokens: allTokens, tokenConditions, conditions: [...new Set([...conditions, ...oiConditions])] },
  });
}

/** The incremental run: from the analytics checkpoint up to the chain's contiguous progress. */
export async function runMarketData(deps: AnalyticsDeps, s: AlphaAnalyticsSettings): Promise<MarketDataRun> {
  const started = Date.now();
  const ch = deps.clickhouse;
  const progress = await chainProgress(ch);
  const checkpoint = await readAnalyticsCheckpoint(ch, s.chainId);
  if (!checkpoint) return recomputeMarketData(deps, s);
  if (!progress) {
    return {
      mode: 'idle',
      from: null,
      to: null,
      steps: 0,
      version: checkpoint.version,
      ms: Date.now() - started,
    };
  }
  if (!(await isCanonical(ch, s.chainId, checkpoint))) {
    // Rewind beneath any reorg the follower follows, then recompute every key from there.
    const floor = await blockAtOrBelow(ch, s.chainId, Math.max(0, checkpoint.number - s.finalityDepth - 1));
    deps.log.warn(
      { checkpoint: checkpoint.number, rewindTo: floor?.number ?? null },
      'Analytics checkpoint orphaned by a reorg: rewinding',
    );
    const run = await recomputeMarketData(deps, s, floor ? { fromBlock: floor.number } : {});
    return { ...run, mode: 'rewind', ms: Date.now() - started };
  }
  const stepBlocks = s.stepBlocks ?? DEFAULT_STEP_BLOCKS;
  let at: BlockRef = checkpoint;
  let steps = 0;
  let version = checkpoint.version;
  while (at.number < progress.number) {
    let next = await blockAtOrBelow(ch, s.chainId, Math.min(progress.number, at.number + stepBlocks));
    if (!next || next.number <= at.number) {
      // No block with rows in this stretch: jump to the next one, if any below the progress.
      next = await blockAtOrAbove(ch, s.chainId, at.number + 1);
      if (!next || next.number > progress.number) break;
    }
    const v = nextVersion(version);
    const from = at;
    const to: BlockRef = next;
    await writeAnalyticsCheckpoint(ch, to, v, () => step(deps, s, from, to, v));
    version = v;
    at = next;
    steps++;
  }
  if (steps > 0) await bump(deps, at);
  return {
    mode: steps > 0 ? 'incremental' : 'idle',
    from: checkpoint.number,
    to: at.number,
    steps,
    version,
    ms: Date.now() - started,
  };
}
