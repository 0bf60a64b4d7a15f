/**
 * Product `alpha-rolling-metrics` (docs/analytics.md "Rolling metrics"): every token's and condition's
 * rolling windows, rewritten at now = the block the market data was computed up to (run.ts). Job
 * `analytics.alpha-rolling`, every ANALYTICS_ROLLING_INTERVAL_S and after a market-data run that caught
 * up; it shares the analytics lease with the market data (a run that finds it taken completes at once).
 */
import { analyticsConfig } from '../config.ts';
import { defineProduct, secs } from '../shared/product.ts';
import { ALPHA_ANALYTICS_LEASE } from '../shared/settings.ts';
import { ROLLING_PRODUCT, ROLLING_SOURCE, runRolling } from './run.ts';

export const rollingMetrics = defineProduct({
  name: ROLLING_PRODUCT,
  inputs: ['alpha-market-data'],
  tables: ['alpha_market_rolling'],
  source: ROLLING_SOURCE,
  mode: 'whole',
  every: (c) => analyticsConfig.of(c).rollingIntervalS * 1000,
  job: {
    name: 'analytics.alpha-rolling',
    attempts: 3,
    lease: ALPHA_ANALYTICS_LEASE,
    schedule: { id: 'analytics:alpha-rolling', payload: { reason: 'schedule' } },
  },
  async run(ctx) {
    const { computedAt } = await runRolling(ctx, ctx.settings);
    return {
      value: { ran: true, computedAt: new Date(computedAt).toISOString() },
      moved: { stream: 'run', kind: 'head' },
    };
  },
  onInput: (moved) =>
    moved.source === 'alpha-market-data' && moved.caughtUp ? { reason: 'catch-up' } : null,
  async recompute(ctx) {
    const run = await runRolling(ctx, ctx.settings);
    return {
      line: `at ${new Date(run.computedAt).toISOString()}, ${secs(run.ms)}`,
      fields: { computed_at: new Date(run.computedAt).toISOString() },
    };
  },
});
