/**
 * Writes of the REST venue ingestors, shared by all of them (ingest/venues/<code>/):
 * - `writeChanged`: a table of one row per upstream record (ReplacingMergeTree by `observed_at`, with a
 *   `content_hash` column): only rows that are new or whose content differs from the stored row of the
 *   same key are inserted, so an idle poll writes nothing and a re-read page changes nothing.
 * - `quarantineRecords`: records that failed their schema, by (source, kind, record id).
 * - `readCheckpoint` / `writeCheckpoint`: a source's position per stream (Unix ms), a head mark of the
 *   progress store (core/watermarks.ts) committed after the data it covers; the newest `at` of a source
 *   is its last good poll (ingest/sources.ts).
 * - `countWritten`: the ingest counters of rows written (core/ops/ingest-counts.ts), by the writes here and
 *   by a venue's own inserts.
 */
import { createHash } from 'node:crypto';
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import { insertColumns, type TableDescription } from '../../core/clickhouse/table.ts';
import { countEvents, countRowsWritten } from '../../core/ops/ingest-counts.ts';
import { createWatermarks } from '../../core/watermarks.ts';
import type { InvalidRecord } from './records.ts';

/** `YYYY-MM-DD HH:MM:SS.mmm` (UTC) from Unix ms: how JSONEachRow reads a DateTime64(3). */
export function chTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/** SHA-256 of a row's values in the table's column order, the version columns left out. */
export function contentHash(t: TableDescription, row: Record<string, unknown>): string {
  const values: unknown[] = [];
  for (const name of Object.keys(t.columns)) {
    if (name !== 'content_hash' && name !== 'observed_at') values.push(row[name]);
  }
  return createHash('sha256').update(JSON.stringify(values)).digest('hex');
}

const HASH_CHUNK = 5_000;

/**
 * Counts `rows` written to a REST venue's table `<venue>_<kind>` as events of its source (the venue's
 * code; alpha's catalog tables: `alpha-catalog`) and as rows written.
 */
export function countWritten(table: string, rows: number): void {
  const venue = table.slice(0, table.indexOf('_'));
  countRowsWritten(table, rows);
  countEvents(venue === 'alpha' ? 'alpha-catalog' : venue, table.slice(venue.length + 1), rows);
}

export interface WriteChangedOptions {
  /** The key column (default `id`); compared as text, so numeric keys work too. */
  key?: string;
  /** The statement label prefix (default the table's name). */
  label?: string;
}

/**
 * Inserts the rows of `t` whose content differs from the stored row of the same key (or that have none),
 * stamped `observedAt`; returns how many it wrote. Rows repeating a key: the last one counts.
 */
export async function writeChanged(
  ch: ClickHouse,
  t: TableDescription,
  rows: readonly Record<string, unknown>[],
  observedAt: number,
  options: WriteChangedOptions = {},
): Promise<number> {
  const key = options.key ?? 'id';
  const label = options.label ?? t.name;
  const byKey = new Map<string, Record<string, unknown>>();
  for (const r of rows) byKey.set(String(r[key]), r);
  const keys = [...byKey.keys()];
  const stored = new Map<string, string>();
  for (let i = 0; i < keys.length; i += HASH_CHUNK) {
    const found = await ch.query<{ k: string; content_hash: string }>(
      `${label}.hashes`,
      `SELECT toString(${key}) AS k, content_hash FROM ${t.name} FINAL WHERE toString(${key}) IN {keys:Array(String)}`,
      { keys: keys.slice(i, i + HASH_CHUNK) },
    );
    for (const f of found) stored.set(f.k, f.content_hash);
  }
  const times = new Set(
    Object.entries(t.columns)
      .filter(([, k]) => k.ch.includes('DateTime64'))
      .map(([n]) => n),
  );
  const columns = insertColumns(t);
  const out: Record<string, unknown>[] = [];
  for (const [k, r] of byKey) {
    const hash = contentHash(t, r);
    if (stored.get(k) === hash) continue;
    const row: Record<string, unknown> = {};
    for (const name of columns) {
      const v = name === 'content_hash' ? hash : name === 'observed_at' ? observedAt : r[name];
      row[name] = times.has(name) && typeof v === 'number' ? chTime(v) : v;
    }
    out.push(row);
  }
  if (out.length > 0) {
    await ch.insert(`${label}.write`, t.name, out);
    countWritten(t.name, out.length);
  }
  return out.length;
}

/** Stores failed records under `source` (the venue code or upstream name); the caller counts them. */
export async function quarantineRecords(
  ch: ClickHouse,
  source: string,
  invalid: readonly InvalidRecord[],
): Promise<void> {
  if (invalid.length === 0) return;
  await ch.insert(
    `${source}.quarantine`,
    'quarantine',
    invalid.map((r) => ({
      source,
      kind: r.kind,
      record_id: r.recordId,
      reason: r.reason,
      payload: r.payload,
    })),
  );
  countRowsWritten('quarantine', invalid.length);
}

/** A source's position on one stream (Unix ms), or null when none was committed. */
export async function readCheckpoint(ch: ClickHouse, source: string, stream: string): Promise<number | null> {
  return (await createWatermarks(ch).read(source, stream))?.time ?? null;
}

/**
 * Records a source's position on one stream (Unix ms); call it after the data it covers is written. The
 * mark's `at` is the wall clock (when the poll ran, for the operations' lag), not the venue's "now"
 * (core/now.ts).
 */
export async function writeCheckpoint(
  ch: ClickHouse,
  source: string,
  stream: string,
  time: number,
): Promise<void> {
  await createWatermarks(ch).commit({ source, stream, kind: 'head', time });
}
