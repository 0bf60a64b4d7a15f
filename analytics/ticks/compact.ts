/**
 * Tick dataset compaction (docs/ticks.md "Compaction"): each final day of each dataset (schemas/ticks.ts;
 * the datasets are the venues', schemas/venues/index.ts `TICK_DATASETS`) becomes zstd Parquet parts of
 * at most TICKS_PART_ROWS rows under TICKS_DIR, sorted by the dataset's sort order, with the manifest
 * (`tick_parts`, then `tick_days` after the parts: a day is compacted once its `tick_days` row exists).
 *
 * A day is final once the dataset's newest row is more than TICKS_FINAL_GRACE_S past the day's end. The
 * parts of a day are cut at ticker boundaries (a ticker with more rows than a part holds is split by
 * row offset), so `id_min`/`id_max` prune well. Each part is written to a temporary name, then renamed:
 * a crash leaves either the old file or the new one, never half of one; compacting a day again writes the
 * same bytes (the rows, their order and the writer's settings are fixed).
 *
 * The Parquet bytes come from the engine through the one wrapper (`queryBytes`, both run modes) and are
 * written here, so a ClickHouse server on another host works as well as the embedded one.
 *
 * A dataset whose days open on the books (`closing`) leaves each compacted day's closing books in
 * `tick_books`; the next day opens on them instead of reading the whole history before it.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { Logger } from '../../core/logger.ts';
import { DAY_MS, partPath, type TickDataset, type TicksSettings } from '../../schemas/ticks.ts';

/** The writer's settings: part of what makes a day's files the same bytes each time. */
const PARQUET_SETTINGS = [
  "output_format_parquet_compression_method = 'zstd'",
  'output_format_parquet_string_as_string = 1',
  'output_format_parquet_row_group_size = 1000000',
].join(', ');

export interface CompactDeps {
  clickhouse: ClickHouse;
  log: Logger;
  settings: Pick<TicksSettings, 'dir' | 'partRows' | 'finalGraceS'>;
}

export interface PartWritten {
  part: number;
  path: string;
  rows: number;
  bytes: number;
  id_min: string;
  id_max: string;
  ts_min: number;
  ts_max: number;
  sha256: string;
}

export interface DayCompacted {
  dataset: string;
  date: string;
  parts: PartWritten[];
  rows: number;
  bytes: number;
  /** The day opened on the previous day's closing books (`tick_books`) rather than the history. */
  carried: boolean;
}

/** `YYYY-MM-DD` of a UTC day start (Unix ms). */
export const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Unix ms of a `YYYY-MM-DD` day's start, UTC. */
export const dayStart = (date: string) => Date.parse(`${date}T00:00:00Z`);

/** A DateTime64(3) value ClickHouse parses from JSON. */
const chTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

interface Bounds {
  /** The first day with rows (its start, Unix ms), or null for an empty source. */
  first: number | null;
  /** The newest row's time, Unix ms. */
  last: number;
}

async function boundsOf(ch: ClickHouse, dataset: TickDataset): Promise<Bounds> {
  const [b] = await ch.query<{ first_ms: string; last_ms: string; n: string }>(
    `ticks.bounds.${dataset.name}`,
    dataset.bounds,
  );
  if (!b || Number(b.n) === 0) return { first: null, last: 0 };
  const first = Number(b.first_ms);
  return { first: first - (first % DAY_MS), last: Number(b.last_ms) };
}

/**
 * The start (Unix ms) of the newest final day when the newest row is at `lastMs`: the day whose end plus
 * the grace is before it; null when none is.
 */
export function latestFinalDay(lastMs: number, graceS: number): number {
  const x = lastMs - graceS * 1000;
  return Math.floor((x - DAY_MS - 1) / DAY_MS) * DAY_MS;
}

/** The days of `dataset` compacted so far (`tick_days`), as `YYYY-MM-DD`. */
async function compactedDays(ch: ClickHouse, dataset: string): Promise<Set<string>> {
  const rows = await ch.query<{ date: string }>(
    'ticks.days',
    'SELECT toString(date) AS date FROM tick_days FINAL WHERE dataset = {dataset:String}',
    { dataset },
  );
  return new Set(rows.map((r) => r.date));
}

interface TickerCount {
  id: string;
  rows: number;
  ts_min: number;
  ts_max: number;
}

/** A planned part: tickers [idMin, idMax], and a row window when it is a slice of one ticker. */
interface PartPlan {
  idMin: string;
  idMax: string;
  rows: number;
  tsMin: number;
  tsMax: number;
  slice?: { offset: number; limit: number };
}

/** Tickers packed in order into parts of ≤ `partRows`; a ticker above it gets parts of its own, sliced. */
export function planParts(counts: readonly TickerCount[], partRows: number): PartPlan[] {
  const parts: PartPlan[] = [];
  let open: PartPlan | undefined;
  for (const t of counts) {
    if (t.rows > partRows) {
      open = undefined;
      for (let offset = 0; offset < t.rows; offset += partRows) {
        const limit = Math.min(partRows, t.rows - offset);
        parts.push({ idMin: t.id, idMax: t.id, rows: limit, tsMin: 0, tsMax: 0, slice: { offset, limit } });
      }
      continue;
    }
    if (!open || open.rows + t.rows > partRows) {
      open = { idMin: t.id, idMax: t.id, rows: 0, tsMin: t.ts_min, tsMax: t.ts_max };
      parts.push(open);
    }
    open.idMax = t.id;
    open.rows += t.rows;
    open.tsMin = Math.min(open.tsMin, t.ts_min);
    open.tsMax = Math.max(open.tsMax, t.ts_max);
  }
  return parts;
}

const ALL_IDS = () => '1';
const ID_RANGE = (column: string) => `${column} >= {id_min:String} AND ${column} <= {id_max:String}`;

/** The statement of one part's rows, in the dataset's order (a slice: its row window). */
function partSql(dataset: TickDataset, plan: PartPlan, carried: boolean): string {
  const window = plan.slice ? ' LIMIT {limit:UInt64} OFFSET {offset:UInt64}' : '';
  return `SELECT * FROM (${dataset.rows(ID_RANGE, carried)}) ORDER BY ${dataset.sortOrder.join(', ')}${window}`;
}

/**
 * Whether the day before `date` left its closing books in `tick_books` (a dataset with books whose
 * previous day is compacted: its `tick_days` row is written after its books).
 */
async function carriedInto(ch: ClickHouse, dataset: TickDataset, date: string): Promise<boolean> {
  if (!dataset.closing) return false;
  const [r] = await ch.query<{ n: string }>(
    'ticks.carried',
    'SELECT count() AS n FROM tick_days FINAL WHERE dataset = {dataset:String} AND date = toDate({prev:String})',
    { dataset: dataset.name, prev: dateOf(dayStart(date) - DAY_MS) },
  );
  return Number(r?.n ?? 0) > 0;
}

/** Writes the stream to `file` through a temporary name, returning its size and SHA-256. */
async function writeAtomically(
  source: NodeJS.ReadableStream,
  file: string,
): Promise<{ bytes: number; sha256: string }> {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.tmp-${process.pid}`);
  const hash = createHash('sha256');
  let bytes = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  try {
    await pipeline(source, tap, fs.createWriteStream(tmp));
    const fd = fs.openSync(tmp, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/**
 * Compacts one day of `dataset` (whether final is the caller's decision): its parts written, then its
 * manifest rows. Running it again rewrites the same files.
 */
export async function compactDay(
  deps: CompactDeps,
  dataset: TickDataset,
  date: string,
): Promise<DayCompacted> {
  const { clickhouse: ch, settings } = deps;
  const start = dayStart(date);
  const day = { start, end: start + DAY_MS, prev: dateOf(start - DAY_MS) };
  const carried = await carriedInto(ch, dataset, date);
  const counts = (
    await ch.query<{ id: string; rows: string; ts_min: string; ts_max: string }>(
      `ticks.counts.${dataset.name}`,
      `SELECT ticker AS id, count() AS rows, min(timestamp) AS ts_min, max(timestamp) AS ts_max
       FROM (${dataset.rows(ALL_IDS, carried)}) GROUP BY id ORDER BY id`,
      day,
    )
  ).map((r) => ({ id: r.id, rows: Number(r.rows), ts_min: Number(r.ts_min), ts_max: Number(r.ts_max) }));
  const plans = planParts(counts, settings.partRows);
  const folder = path.join(settings.dir, dataset.name, date);
  fs.mkdirSync(folder, { recursive: true });

  const parts: PartWritten[] = [];
  for (const [part, plan] of plans.entries()) {
    const params = {
      ...day,
      id_min: plan.idMin,
      id_max: plan.idMax,
      ...(plan.slice ? { limit: plan.slice.limit, offset: plan.slice.offset } : {}),
    };
    const sql = partSql(dataset, plan, carried);
    let { tsMin, tsMax } = plan;
    if (plan.slice) {
      const [s] = await ch.query<{ ts_min: string; ts_max: string }>(
        `ticks.slice.${dataset.name}`,
        `SELECT min(timestamp) AS ts_min, max(timestamp) AS ts_max FROM (${sql})`,
        params,
      );
      tsMin = Number(s!.ts_min);
      tsMax = Number(s!.ts_max);
    }
    const rel = partPath(dataset.name, date, part);
    const bytes = await ch.queryBytes(
      `ticks.part.${dataset.name}`,
      `${sql} SETTINGS ${PARQUET_SETTINGS} FORMAT Parquet`,
      params,
    );
    const written = await writeAtomically(bytes, path.join(settings.dir, rel));
    parts.push({
      part,
      path: rel,
      rows: plan.rows,
      bytes: written.bytes,
      id_min: plan.idMin,
      id_max: plan.idMax,
      ts_min: tsMin,
      ts_max: tsMax,
      sha256: written.sha256,
    });
  }
  // Parts an earlier compaction of the day wrote beyond this one's are not served (tick_days.parts).
  const kept = new Set(parts.map((p) => path.basename(p.path)));
  for (const f of fs.readdirSync(folder)) {
    if (/^part-\d+\.parquet$/.test(f) && !kept.has(f)) fs.rmSync(path.join(folder, f), { force: true });
  }

  const compactedAt = chTime(Date.now());
  await ch.insert(
    'ticks.parts',
    'tick_parts',
    parts.map((p) => ({
      dataset: dataset.name,
      date,
      ...p,
      ts_min: chTime(p.ts_min),
      ts_max: chTime(p.ts_max),
      compacted_at: compactedAt,
    })),
  );
  if (dataset.closing) {
    // The books at the day's end, for the next day to open on (before tick_days: the day's commit).
    await ch.command(
      'ticks.books',
      `INSERT INTO tick_books (dataset, date, ticker, side, price, size, compacted_at)
       SELECT {dataset:String}, toDate({date:String}), ticker, side, price, size,
              parseDateTime64BestEffort({at:String}, 3, 'UTC')
       FROM (${dataset.closing(ALL_IDS, carried)})`,
      { ...day, dataset: dataset.name, date, at: compactedAt },
    );
  }
  const rows = parts.reduce((n, p) => n + p.rows, 0);
  const bytes = parts.reduce((n, p) => n + p.bytes, 0);
  await ch.insert('ticks.day', 'tick_days', [
    { dataset: dataset.name, date, parts: parts.length, rows, bytes, compacted_at: compactedAt },
  ]);
  deps.log.info(
    { dataset: dataset.name, date, parts: parts.length, rows, bytes, carried },
    'Compacted tick day',
  );
  return { dataset: dataset.name, date, parts, rows, bytes, carried };
}

export interface CompactRun {
  days: { dataset: string; date: string; parts: number; rows: number; bytes: number }[];
}

/**
 * Compacts every final day not compacted yet of each dataset, oldest first; stops between days when
 * `signal` aborts (the days done are kept: each is committed by its own `tick_days` row).
 */
export async function compactFinalDays(
  deps: CompactDeps,
  datasets: readonly TickDataset[],
  signal?: AbortSignal,
): Promise<CompactRun> {
  const run: CompactRun = { days: [] };
  for (const dataset of datasets) {
    const bounds = await boundsOf(deps.clickhouse, dataset);
    if (bounds.first === null) continue;
    const latest = latestFinalDay(bounds.last, deps.settings.finalGraceS);
    const done = await compactedDays(deps.clickhouse, dataset.name);
    for (let d = bounds.first; d <= latest; d += DAY_MS) {
      if (signal?.aborted) return run;
      const date = dateOf(d);
      if (done.has(date)) continue;
      const c = await compactDay(deps, dataset, date);
      run.days.push({
        dataset: c.dataset,
        date: c.date,
        parts: c.parts.length,
        rows: c.rows,
        bytes: c.bytes,
      });
    }
  }
  return run;
}
