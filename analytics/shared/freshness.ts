/**
 * When a product's last computation landed (Unix ms), or null when it never ran: the freshness gauge
 * (`pmdata_analytics_freshness_seconds`, the status page) is now − that. One reader per way a product
 * records its runs; a definition (analytics/<product>/index.ts) names its own.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import { createWatermarks } from '../../core/watermarks.ts';

export type ComputedAt = (ch: ClickHouse) => Promise<number | null>;

/** One number (Unix ms) from a statement whose single column `t` is 0 or NULL when there is none. */
async function timeOf(ch: ClickHouse, label: string, sql: string, params: Record<string, unknown> = {}) {
  const rows = await ch.query<{ t: string | null }>(label, sql, params);
  const t = Number(rows[0]?.t ?? 0);
  return t > 0 ? t : null;
}

/** When a product's mark in the progress store (core/watermarks.ts; source: its name) was last committed. */
export const markCommitted =
  (product: string): ComputedAt =>
  async (ch) => {
    const t = await createWatermarks(ch).newest(product);
    return t !== null && t > 0 ? t : null;
  };

/** The newest `version` of a derived table whose rows carry their run's wall-clock version (Unix ms). */
export const newestVersion =
  (product: string, table: string): ComputedAt =>
  (ch) =>
    timeOf(ch, `ops.product.${product}`, `SELECT max(version) AS t FROM ${table}`);

/** When the active parts of a table rebuilt whole (swapped in by EXCHANGE TABLES) were written. */
export const rebuilt =
  (product: string, table: string): ComputedAt =>
  (ch) =>
    timeOf(
      ch,
      `ops.product.${product}`,
      `SELECT toUnixTimestamp(max(modification_time)) * 1000 AS t FROM system.parts
       WHERE database = currentDatabase() AND table = {t:String} AND active`,
      { t: table },
    );
