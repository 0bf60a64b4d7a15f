/**
 * Every analytics product, as the operations sampler reads it (jobs/ops-sampler.ts; core/ops/snapshot.ts):
 * `{product, computedAt()}` = the wall-clock time (Unix ms) its last computation landed, or null when it
 * never ran. Freshness on the status page and in `pmdata_analytics_freshness_seconds` is now − that.
 * A new product adds its entry here.
 */
import type { ClickHouse } from '../core/clickhouse/index.ts';
import type { OpsProduct } from '../core/ops/snapshot.ts';
import { createWatermarks } from '../core/watermarks.ts';
import { MARKET_DATA_SOURCE } from './market-data/progress.ts';
import { POSITIONS_SOURCE } from './positions/store.ts';

/** One number (Unix ms) from a statement whose single column `t` is 0 or NULL when there is none. */
async function timeOf(ch: ClickHouse, label: string, sql: string, params: Record<string, unknown> = {}) {
  const rows = await ch.query<{ t: string | null }>(label, sql, params);
  const t = Number(rows[0]?.t ?? 0);
  return t > 0 ? t : null;
}

/** When a product's mark in the progress store (core/watermarks.ts) was last committed. */
const checkpointWritten = (ch: ClickHouse, product: string): OpsProduct => ({
  product,
  computedAt: async () => {
    const t = await createWatermarks(ch).newest(product);
    return t !== null && t > 0 ? t : null;
  },
});

/** The newest `version` of a derived table whose rows carry their run's wall-clock version (Unix ms). */
const newestVersion = (ch: ClickHouse, product: string, table: string): OpsProduct => ({
  product,
  computedAt: () => timeOf(ch, `ops.product.${product}`, `SELECT max(version) AS t FROM ${table}`),
});

/** When the active parts of a table rebuilt whole (swapped in by EXCHANGE TABLES) were written. */
const rebuilt = (ch: ClickHouse, product: string, table: string): OpsProduct => ({
  product,
  computedAt: () =>
    timeOf(
      ch,
      `ops.product.${product}`,
      `SELECT toUnixTimestamp(max(modification_time)) * 1000 AS t FROM system.parts
       WHERE database = currentDatabase() AND table = {t:String} AND active`,
      { t: table },
    ),
});

export function analyticsProducts(ch: ClickHouse): OpsProduct[] {
  return [
    // Candles, open interest and all-time totals: one incremental run and its checkpoint.
    checkpointWritten(ch, MARKET_DATA_SOURCE),
    newestVersion(ch, 'alpha-rolling-metrics', 'alpha_market_rolling'),
    checkpointWritten(ch, POSITIONS_SOURCE),
    newestVersion(ch, 'alpha-profiles', 'alpha_wallet_profiles'),
    rebuilt(ch, 'alpha-catalog-lists', 'alpha_market_list'),
  ];
}
