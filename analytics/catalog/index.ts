/**
 * Product `alpha-catalog-lists` (docs/catalog.md "Derived lists"): venue alpha's market, event, series,
 * tag and category lists, rebuilt whole from the catalog, the market analytics and the current prices
 * (build.ts), bumping `analytics:alpha-catalog`. Job `analytics.alpha-catalog-rollups`, enqueued after
 * every catalog sync (open and full), book sync and market-analytics run (market data, rolling), with a
 * job id naming a slot of ANALYTICS_CATALOG_COALESCE_S seconds (10): a burst of triggers within a slot is
 * one job (BullMQ ignores an add whose id exists); also every ANALYTICS_CATALOG_INTERVAL_S as a safety
 * net. Triggers that arrive while a build runs coalesce into one more build (the stale flag; at most 3
 * builds per job).
 */
import { fmtCount as fmt } from '../../core/progress.ts';
import { analyticsConfig } from '../config.ts';
import { defineProduct, type ProductPayload, secs } from '../shared/product.ts';
import { buildAlphaCatalogLists, CATALOG_PRODUCT, CATALOG_SOURCE } from './build.ts';

/** Which move asks for a rebuild, and why. */
const REASONS: Record<string, ProductPayload['reason']> = {
  'alpha-catalog': 'catalog-sync',
  'alpha-book': 'book-sync',
  'alpha-market-data': 'analytics',
  'alpha-rolling-metrics': 'analytics',
};

export const catalogLists = defineProduct({
  name: CATALOG_PRODUCT,
  inputs: ['alpha-catalog', 'alpha-book', 'alpha-market-data', 'alpha-rolling-metrics'],
  tables: [
    'alpha_market_list',
    'alpha_event_list',
    'alpha_series_list',
    'alpha_tag_list',
    'alpha_category_list',
  ],
  source: CATALOG_SOURCE,
  mode: 'whole',
  every: (c) => analyticsConfig.of(c).catalogIntervalS * 1000,
  job: {
    name: 'analytics.alpha-catalog-rollups',
    attempts: 3,
    jobId: (p) => `analytics:alpha-catalog-rollups:${p.slot ?? 'now'}`,
    lease: 'analytics:alpha-catalog:lease',
    schedule: { id: 'analytics:alpha-catalog-rollups', payload: { reason: 'schedule' } },
    coalesce: { flag: 'analytics:alpha-catalog:stale', maxRuns: 3 },
  },
  async run(ctx) {
    const summary = await buildAlphaCatalogLists(ctx);
    return { value: { ran: true, ...summary }, moved: { stream: 'run', kind: 'head' } };
  },
  onInput(moved, config) {
    const reason = REASONS[moved.source];
    // A market-data recompute of a backfilled range asks for none (the next incremental run does).
    if (!reason || (moved.source === 'alpha-market-data' && moved.kind === 'range')) return null;
    const slotMs = analyticsConfig.of(config).catalogCoalesceS * 1000;
    return { reason, slot: Math.floor(Date.now() / slotMs) };
  },
  async recompute(ctx) {
    const t0 = performance.now();
    const run = await buildAlphaCatalogLists(ctx);
    return {
      line: `${fmt(run.markets)} markets, ${fmt(run.events)} events, ${secs(performance.now() - t0)}`,
      fields: { markets: run.markets, events: run.events },
    };
  },
});
