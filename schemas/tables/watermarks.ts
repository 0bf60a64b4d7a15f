/**
 * The progress store's table (schemas/clickhouse/042_watermarks.sql; core/watermarks.ts). Checked against
 * `DESCRIBE TABLE` by test/table-descriptions.test.ts.
 */
import { c, defineTable } from '../../core/clickhouse/table.ts';

export const WATERMARKS = defineTable('watermarks', {
  source: c.lowText(),
  stream: c.lowText(),
  kind: c.enum8({ head: 1, range: 2 }),
  /** A range mark's bounds (0 for a head mark). */
  range_from: c.u64n,
  range_to: c.u64n,
  block: c.nullableU64,
  /** '' without one. */
  hash: c.hex(),
  /** A REST stream's position (Unix ms). */
  time: c.nullableTime,
  /** When committed (Unix ms); a product's run version. */
  at: c.time,
});

export const WATERMARK_TABLES = { watermarks: WATERMARKS } as const;
