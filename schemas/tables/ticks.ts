/**
 * The tick datasets' manifest (schemas/clickhouse/045_tick_datasets.sql, docs/ticks.md): `tick_parts`, one
 * row per Parquet part of a compacted day, and `tick_days`, one per compacted day (written after its parts), and `tick_books`, the books at the end of a
 * day of a dataset with books (the next day opens on them).
 * Written by analytics/ticks/compact.ts, read by `GET /v2/data/ticks` (api/queries/data-ticks.ts), both
 * with FINAL. Checked against `DESCRIBE TABLE` by test/table-descriptions.test.ts.
 */
import { type Column, c, defineTable } from '../../core/clickhouse/table.ts';

/** A `Date` column, written and read as `YYYY-MM-DD` (JSONEachRow). */
const date = { ch: 'Date', write: 'str', written: true } as Column & {
  readonly ts?: string;
  readonly rd?: string;
};

export const TICK_PARTS = defineTable('tick_parts', {
  /** The dataset's name (the `venue` parameter of `/v2/data/ticks`). */
  dataset: c.lowText(),
  /** The UTC day. */
  date,
  /** 0, 1, … within the day, in the dataset's sort order. */
  part: c.u32,
  /** The file, relative to TICKS_DIR: `<dataset>/<date>/part-00000.parquet`. */
  path: c.text,
  rows: c.u64n,
  bytes: c.u64n,
  /** The first and last ticker of the part (its rows are sorted by ticker first). */
  id_min: c.text,
  id_max: c.text,
  ts_min: c.time,
  ts_max: c.time,
  /** SHA-256 of the file, hex. */
  sha256: c.hex(),
  compacted_at: c.time,
});

export const TICK_DAYS = defineTable('tick_days', {
  dataset: c.lowText(),
  date,
  /** Its parts: tick_parts rows 0 … parts − 1 (0: a final day without rows). */
  parts: c.u32,
  rows: c.u64n,
  bytes: c.u64n,
  compacted_at: c.time,
});

/** Exact decimals as text (JSONEachRow). */
const decimal = { ch: 'Decimal(18, 6)', write: 'decimal', written: true } as Column & {
  readonly ts?: string;
  readonly rd?: string;
};

/** The books at the end of a compacted day (a dataset with `closing`): the next day opens on them. */
export const TICK_BOOKS = defineTable('tick_books', {
  dataset: c.lowText(),
  /** The day whose end the book is at. */
  date,
  ticker: c.text,
  side: c.lowText(),
  price: decimal,
  size: decimal,
  /** The compaction that wrote the set: the newest set of a day is its book. */
  compacted_at: c.time,
});

export const TICK_TABLES = { TICK_PARTS, TICK_DAYS, TICK_BOOKS } as const;
