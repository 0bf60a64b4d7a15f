/**
 * Every analytics product, as the operations sampler reads it (jobs/ops-sampler.ts; core/ops/snapshot.ts):
 * `{product, computedAt()}` = the wall-clock time (Unix ms) its last computation landed, or null when it
 * never ran. Freshness on the status page and in `pmdata_analytics_freshness_seconds` is now − that.
 * A new product adds its entry here.
 */
import type { ClickHouse } from '../core/clickhouse/index.ts';
import type { OpsProduct } from '../core/ops/snapshot.ts';
import { ANALYTICS_PIPELINE } from './market-data/progress.ts';
import { POSITIONS_PIPELINE } from './positions/store.ts';

/** One number (Unix ms) from a statement whose single column `t` is 0 or NULL when there is none. */
async function timeOf(ch: ClickHouse, label: string, sql: string, params: Record<string, unknown> = {}) {
  const rows = await ch.query<{ t: string | null }>(label, sql, params);
  const t = Number(rows[0]?.t ?? 0);
  return t > 0 ? t : null;
}

/** When a pipeline's checkpoint in alpha_checkpoints was last written. */
const checkpointWritten = (ch: ClickHouse, product: string, pipeline: string): OpsProduct => ({
  product,
  computedAt: () =>
    timeOf(
      ch,
      `ops.product.${product}`,
      `SELECT toUnixTimestamp64Milli(max(updated_at)) AS t FROM alpha_checkpoints WHERE pipeline = {p:String}`,
      { p: pipeline },
    ),
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
    checkpointWritten(ch, 'alpha-market-data', ANALYTICS_PIPELINE),
    newestVersion(ch, 'alpha-rolling-metrics', 'alpha_market_rolling'),
    checkpointWritten(ch, 'alpha-positions', POSITIONS_PIPELINE),
    newestVersion(ch, 'alpha-profiles', 'alpha_wallet_profiles'),
    rebuilt(ch, 'alpha-catalog-lists', 'alpha_market_list'),
  ];
}
