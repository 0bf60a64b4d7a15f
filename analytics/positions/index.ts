/**
 * Product `alpha-positions` (docs/positions.md): every wallet's positions and their changes, a path over
 * the chain's events (run.ts), and the current prices of the tokens they hold. Job `alpha.positions`:
 * every ALPHA_POSITIONS_INTERVAL_S up to the chain's contiguous progress; after a finished backfill range
 * (an `alpha-chain` range mark, whose blocks may lie below the positions' checkpoint) it first rewinds to
 * just below that range (`rewindTo`). Its own Redis lease keeps one run at a time across processes: a
 * scheduled run that finds it taken completes at once, a rewind retries later (it must not be lost).
 */
import { fmtCount as fmt } from '../../core/progress.ts';
import { analyticsConfig } from '../config.ts';
import { defineProduct, secs } from '../shared/product.ts';
import { POSITIONS_SOURCE, recomputePositions, runPositions } from './run.ts';

export const positions = defineProduct({
  name: 'alpha-positions',
  inputs: ['alpha-chain', 'alpha-book'],
  tables: ['alpha_positions', 'alpha_position_changes', 'alpha_token_prices'],
  source: POSITIONS_SOURCE,
  mode: 'path',
  every: (c) => analyticsConfig.of(c).positionsIntervalS * 1000,
  job: {
    name: 'alpha.positions',
    attempts: 10,
    lease: 'analytics:alpha:positions:lease',
    schedule: { id: 'analytics:alpha-positions', payload: {} },
    retryWhenHeld: (p) =>
      p.rewindTo === undefined ? undefined : 'Another positions run holds the lease; retrying the rewind',
  },
  async run(ctx, { rewindTo }) {
    const run = await runPositions(ctx, ctx.settings, {
      ...(rewindTo === undefined ? {} : { rewindTo }),
      ...(ctx.onProgress ? { onProgress: ctx.onProgress } : {}),
    });
    if (run.mode === 'idle') return { value: run, moved: null };
    ctx.log.info({ ...run, stats: undefined }, 'Positions run');
    return { value: run, moved: { stream: 'run', kind: 'head' } };
  },
  onInput: (moved) =>
    moved.source === 'alpha-chain' && moved.kind === 'range' && moved.from !== undefined
      ? { rewindTo: moved.from - 1 }
      : null,
  async recompute(ctx, { from }) {
    const run =
      from === null
        ? await recomputePositions(ctx, ctx.settings, ctx.onProgress)
        : await runPositions(ctx, ctx.settings, {
            rewindTo: from - 1,
            ...(ctx.onProgress ? { onProgress: ctx.onProgress } : {}),
          });
    return {
      line:
        `up to block ${fmt(run.to ?? 0)} in ${run.batches} batch(es), ${fmt(run.events)} events, ` +
        `${fmt(run.changes)} changes, ${fmt(run.positions)} position writes, ${fmt(run.prices)} prices, ${secs(run.ms)}`,
      fields: {
        to_block: run.to,
        batches: run.batches,
        events: run.events,
        changes: run.changes,
        positions: run.positions,
        prices: run.prices,
      },
    };
  },
});
