/**
 * Every analytics product: the list of definitions (analytics/<product>/index.ts; analytics/shared/
 * product.ts says what a definition holds). jobs/products.ts derives the jobs, schedules, leases and
 * `pmdata recompute` from it; the operations sampler its freshness gauges (`analyticsProducts`: the `at`
 * of each product's run mark, analytics/shared/chain.ts `lastRun`); the API cache its data sources. A new product adds its definition here.
 */
import type { ClickHouse } from '../core/clickhouse/index.ts';
import type { OpsProduct } from '../core/ops/snapshot.ts';
import { catalogLists } from './catalog/index.ts';
import { marketData } from './market-data/index.ts';
import { positions } from './positions/index.ts';
import { profiles } from './profiles/index.ts';
import { rollingMetrics } from './rolling-metrics/index.ts';
import { lastRun } from './shared/chain.ts';
import { dependencyOrder, type ProductDefinition } from './shared/product.ts';

/** In dependency order (each product after the products it reads): how `recompute all` runs them. */
export const PRODUCTS: readonly ProductDefinition[] = dependencyOrder([
  marketData,
  rollingMetrics,
  positions,
  profiles,
  catalogLists,
]);

/** A product by name, or undefined. */
export const productNamed = (name: string) => PRODUCTS.find((p) => p.name === name);

/**
 * Each product's freshness, as the operations sampler reads it (jobs/ops-sampler.ts; core/ops/snapshot.ts):
 * when its last run landed, its run mark's `at`.
 */
export function analyticsProducts(ch: ClickHouse): OpsProduct[] {
  return PRODUCTS.map((p) => ({ product: p.name, computedAt: () => lastRun(ch, p.name) }));
}
