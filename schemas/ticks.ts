/**
 * The tick datasets (docs/ticks.md): what the compaction job (analytics/ticks/, job `ticks.compact`) and
 * `GET /v2/data/ticks` (api/resources/data-ticks.ts) share — the settings, the price, where a part's file
 * lives, and what a dataset declares. The datasets themselves are declared by their venue (its contract's
 * `ticks`, schemas/venues/<code>.ts) and listed by schemas/venues/index.ts (`TICK_DATASETS`): nothing here
 * names one.
 */
import path from 'node:path';
import { type Config, defineConfigSection, integer, optional, text } from '../core/config.ts';

export const ticksConfig = defineConfigSection('ticks', {
  /** Where the Parquet parts are written (and served from); unset: `<PMDATA_DATA_DIR>/ticks`. */
  dir: {
    env: 'TICKS_DIR',
    default: undefined,
    form: 'a directory path (default: <PMDATA_DATA_DIR>/ticks)',
    parse: optional(text),
  },
  /** At most this many rows per Parquet part. */
  partRows: {
    env: 'TICKS_PART_ROWS',
    default: '1000000',
    form: 'an integer 1..100000000 (rows)',
    parse: integer(1, 100_000_000),
  },
  /** A day is final once the dataset's newest row is this many seconds past the day's end. */
  finalGraceS: {
    env: 'TICKS_FINAL_GRACE_S',
    default: '300',
    form: 'an integer 0..604800 (seconds)',
    parse: integer(0, 604_800),
  },
  /** Seconds a part URL of `/v2/data/ticks` stays valid. */
  urlTtlS: {
    env: 'TICKS_URL_TTL_S',
    default: '3600',
    form: 'an integer 1..604800 (seconds)',
    parse: integer(1, 604_800),
  },
  /** Seconds between two runs of `ticks.compact` (a run with no new final day only reads two counts). */
  compactIntervalS: {
    env: 'TICKS_COMPACT_INTERVAL_S',
    default: '300',
    form: 'an integer 1..86400 (seconds)',
    parse: integer(1, 86_400),
  },
});

export interface TicksSettings {
  /** Absolute. */
  dir: string;
  partRows: number;
  finalGraceS: number;
  urlTtlS: number;
  compactIntervalS: number;
}

export function ticksSettings(config: Config): TicksSettings {
  const s = ticksConfig.of(config);
  return {
    dir: path.resolve(s.dir ?? path.join(config.dataDir, 'ticks')),
    partRows: s.partRows,
    finalGraceS: s.finalGraceS,
    urlTtlS: s.urlTtlS,
    compactIntervalS: s.compactIntervalS,
  };
}

/** The price of a download: USD per GiB (2^30 bytes) of Parquet, no minimum. */
export const TICKS_USD_PER_GIB = 80;

/** Requests at most this many days. */
export const TICKS_MAX_DAYS = 31;

/** `market_id` lists at most this many ids. */
export const TICKS_MAX_IDS = 50;

export const DAY_MS = 86_400_000;

/** A part's file relative to TICKS_DIR. */
export const partPath = (dataset: string, date: string, part: number) =>
  `${dataset}/${date}/part-${String(part).padStart(5, '0')}.parquet`;

/** A column of a dataset's files: its name, its type as written in the Parquet file, what it holds. */
export interface TickColumn {
  name: string;
  type: string;
  description: string;
}

/** Columns declared as a record, name → [type, description] (the order of the keys is the files' order). */
export function tickColumns(
  columns: Record<string, readonly [type: string, description: string]>,
): TickColumn[] {
  return Object.entries(columns).map(([name, [type, description]]) => ({ name, type, description }));
}

/**
 * A dataset, declared by its venue: its columns, its sort order, and two SQL statements over the venue's
 * tables. Every statement takes `{start:Int64}` and `{end:Int64}`, the day's bounds in Unix ms (end
 * excluded); `rows(ids)` also the engine's condition on the id column (code-made, its values bound).
 */
export interface TickDataset {
  /** The `venue` value of `/v2/data/ticks` and the name of its folder under TICKS_DIR. */
  name: string;
  /** One line for the docs and the route's description. */
  about: string;
  columns: readonly TickColumn[];
  /** The rows' order: the id column first, then `timestamp` and `sequence` (and what makes it total). */
  sortOrder: readonly string[];
  /**
   * `first_ms`, `last_ms` (Int64: the oldest and newest source row's time, Unix ms) and `n` (UInt64: rows,
   * 0 when the source is empty, when the two times mean nothing).
   */
  bounds: string;
  /**
   * The day's rows, unordered, with the columns in `columns` order; `ids(column)` is the engine's condition
   * on the source's column holding the id (the rows' `ticker`). The engine orders them by `sortOrder`.
   * `carried`: the previous day's closing book is in `tick_books` (`closing` below; the statement then
   * takes `{prev:String}`, that day), so a dataset that opens each day on the books reads them there
   * instead of the history before the day.
   */
  rows(ids: (column: string) => string, carried: boolean): string;
  /**
   * A dataset whose days open on the books: the books at the day's end (`ticker, side, price, size`), which
   * the engine keeps in `tick_books` for the next day (absent: no books carried).
   */
  closing?(ids: (column: string) => string, carried: boolean): string;
}
