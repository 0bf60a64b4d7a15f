/**
 * Product `alpha-market-data` (docs/analytics.md): venue alpha's candles, open interest and all-time
 * totals, computed incrementally from the chain tables up to the chain's contiguous progress (run.ts).
 * Job `analytics.alpha-market-data`: every ANALYTICS_INTERVAL_S the incremental run; after a finished
 * backfill range (an `alpha-chain` range mark) a recompute of that range's buckets (`range` payload, no
 * job id: a range backfilled again is recomputed again), also below the checkpoint, committing its own
 * range mark (the checkpoint stays). It shares the
 * analytics lease with the rolling metrics; a range must not be lost, so a held lease retries it.
 */
import { fmtCount as fmt } from '../../core/progress.ts';
import { analyticsConfig } from '../config.ts';
import { defineProduct, secs } from '../shared/product.ts';
import { ALPHA_ANALYTICS_LEASE } from '../shared/settings.ts';
import { MARKET_DATA_SOURCE, type MarketDataRun, recomputeMarketData, runMarketData } from './run.ts';

/** A run that covered more than one step (or recomputed a span) caught up: the rolling metrics follow. */
const caughtUp = (run: MarketDataRun) => run.mode !== 'idle' && (run.mode !== 'incremental' || run.steps > 1);

export const marketData = defineProduct({
  name: 'alpha-market-data',
  inputs: ['alpha-chain'],
  tables: [
    'alpha_token_candles_1m',
    'alpha_token_candles_1h',
    'alpha_token_candles_1d',
    'alpha_condition_candles_1m',
    'alpha_condition_candles_1h',
    'alpha_condition_candles_1d',
    'alpha_oi_deltas_1h',
    'alpha_market_totals',
  ],
  source: MARKET_DATA_SOURCE,
  mode: 'incremental',
  every: (c) => analyticsConfig.of(c).intervalS * 1000,
  job: {
    name: 'analytics.alpha-market-data',
    attempts: 10,
    lease: ALPHA_ANALYTICS_LEASE,
    schedule: { id: 'analytics:alpha-market-data', payload: {} },
    retryWhenHeld: (p) =>
      p.range ? 'Another analytics run holds the lease; retrying the range later' : undefined,
  },
  async run(ctx, { range }) {
    const run = range
      ? await recomputeMarketData(ctx, ctx.settings, { fromBlock: range.from, toBlock: range.to })
      : await runMarketData(ctx, ctx.settings);
    if (run.mode === 'idle') return { value: run, moved: null };
    // Its checkpoint, or the backfilled range's own mark.
    return {
      value: run,
      moved: {
        stream: 'run',
        ...(range ? { kind: 'range', ...range } : { kind: 'head' }),
        caughtUp: caughtUp(run),
      },
    };
  },
  onInput: (moved) =>
    moved.source === 'alpha-chain' &&
    moved.kind === 'range' &&
    moved.from !== undefined &&
    moved.to !== undefined
      ? { range: { from: moved.from, to: moved.to } }
      : null,
  async recompute(ctx, { from }) {
    const run = await recomputeMarketData(ctx, ctx.settings, from === null ? {} : { fromBlock: from });
    if (run.mode === 'idle') {
      return {
        line: 'no chain rows to compute from (backfill first: pmdata backfill alpha)',
        fields: { idle: true },
      };
    }
    return {
      line: `blocks ${fmt(run.from ?? 0)}..${fmt(run.to ?? 0)} in ${run.steps} window(s), ${secs(run.ms)}`,
      fields: { from_block: run.from, to_block: run.to, windows: run.steps },
    };
  },
});
