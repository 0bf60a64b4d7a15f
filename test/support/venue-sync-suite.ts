/**
 * What every REST venue's listing stream must do against the sim's replica, compared with the world's
 * truth (test/support/<v>-truth.ts), in one world per test file:
 *
 * - the first sync stores every record of the truth once (read = written = the truth's markets and
 *   events), quarantines nothing, commits its watermark after the data (every row stored when the mark
 *   is recorded; the mark's stream and time the venue's), reports its progress (steps whose written count
 *   never goes down, the last one the summary returned) and bumps the `venue:<code>` data version once;
 * - an idle sync (same time, same mode) writes nothing: every count 0, no table gains a row, the data
 *   version stays;
 * - after the world moved on, the next sync writes the changed records, the tables equal the truth again
 *   and the data version is bumped once.
 *
 * A venue's sync file calls `venueSyncSuite` inside its `describe` with its case; the hooks make the
 * venue's own assertions on the same runs (beta's trades and `min_updated_ts`, delta's price reads, ...),
 * `between` registers its own tests that must run between the idle sync and the change, and its own
 * tests after the suite hold what only that venue does (read-by-slug, read-by-id, relabelling, ...).
 */
import { expect, it } from 'vitest';
import { createDataVersions } from '../../core/data-version.ts';
import { createWatermarks, type Watermarks } from '../../core/watermarks.ts';
import {
  type StreamSummary,
  streamOf,
  type TableCounts,
  type VenueDefinition,
} from '../../ingest/rest/runner.ts';
import type { TestDeps } from './deps.ts';

/** The fields of a listing stream's summary the suite checks. */
export interface SyncSummary extends StreamSummary {
  read: number;
  written: number;
  events: TableCounts;
}

export type SyncMode = 'poll' | 'reconcile';

/** What the suite passes into a run: the progress callback (options) and the progress store (deps). */
export interface SyncHooks {
  onProgress(step: string, summary: SyncSummary): void;
  watermarks: Watermarks;
}

export interface SyncCase<S extends SyncSummary> {
  venue: VenueDefinition;
  deps: () => TestDeps;
  /** Ticks the world to `at`, then runs the venue's `markets` stream in `mode` (`hooks` passed on). */
  sync(at: number, mode: SyncMode, hooks?: SyncHooks): Promise<S>;
  /** The tables the stream writes, the markets' first. */
  tables: readonly string[];
  /** The truth's record counts now. */
  counts(): { markets: number; events: number };
  /** The tables equal the truth now. */
  expectTruth(): Promise<void>;
  /** The records stored more than once (checked after the first sync, which writes each record once). */
  doubled(): Promise<string[]>;
  first: {
    at: number;
    mode: SyncMode;
    /** The watermark the first sync commits (evaluated after it). */
    mark(): { stream: string; time: number };
    /** The venue's own assertions on the first sync. */
    check?(s: S): Promise<void>;
  };
  /** The venue's own assertions on the idle sync. */
  idle?(s: S): Promise<void>;
  /** Registers the venue's tests that must run between the idle sync and the change. */
  between?(): void;
  changed: {
    /** When the world has changed enough (evaluated when the test runs). */
    at(): number;
    mode?: SyncMode;
    /** The venue's own assertions on the changed sync (`before`: the truth's counts before it). */
    check?(s: S): Promise<void>;
  };
}

export function venueSyncSuite<S extends SyncSummary>(c: SyncCase<S>): void {
  const code = c.venue.code;
  const rows = async (table: string) =>
    Number(
      (await c.deps().clickhouse.query<{ n: string }>('test.n', `SELECT count() AS n FROM ${table}`))[0]?.n,
    );
  const version = async () =>
    (await createDataVersions({ redis: c.deps().redis }).read([`venue:${code}`]))[0] ?? '';
  const counter = (v: string) => Number(v.split(':')[0] || 0);

  it(`${code}: the first sync stores the truth once, commits its mark after the data, reports progress`, async () => {
    const store = createWatermarks(c.deps().clickhouse);
    /** The markets' row count at each commit. */
    const atCommit: { stream: string; rows: number }[] = [];
    const watermarks: Watermarks = {
      ...store,
      async commit(mark, write) {
        atCommit.push({ stream: mark.stream, rows: await rows(c.tables[0]!) });
        return store.commit(mark, write);
      },
    };
    const progress: { step: string; written: number; summary: SyncSummary }[] = [];
    const onProgress = (step: string, summary: SyncSummary) =>
      progress.push({ step, written: summary.written, summary });
    const v0 = await version();

    const s = await c.sync(c.first.at, c.first.mode, { onProgress, watermarks });
    const n = c.counts();
    expect(n.markets).toBeGreaterThan(5);
    expect(n.events).toBeGreaterThan(0);
    await c.expectTruth();
    expect(await c.doubled()).toEqual([]);
    expect([s.read, s.written]).toEqual([n.markets, n.markets]);
    expect(s.events).toEqual({ read: n.events, written: n.events });
    expect(s.quarantined).toBe(0);

    // The mark after the data: every market row is stored when it is recorded.
    const mark = c.first.mark();
    expect((await store.read(c.venue.source, mark.stream))?.time).toBe(mark.time);
    expect(atCommit.map((x) => x.stream)).toContain(mark.stream);
    const stored = await rows(c.tables[0]!);
    expect(atCommit.every((x) => x.rows === stored)).toBe(true);

    // Progress: steps of this run's summary, written never going down, the last one the final count.
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((p) => p.summary === s)).toBe(true);
    expect(progress.map((p) => p.written)).toEqual(progress.map((p) => p.written).sort((a, b) => a - b));
    const finalStep = streamOf(c.venue, 'markets').finalStep;
    if (finalStep !== null) {
      expect(progress.at(-1)).toMatchObject({ step: finalStep ?? 'written', written: s.written });
    }

    // One data-version bump for the run.
    expect(counter(await version())).toBe(counter(v0) + 1);
    await c.first.check?.(s);
  });

  it(`${code}: an idle sync writes nothing and keeps the data version`, async () => {
    const before = await Promise.all(c.tables.map(rows));
    const v0 = await version();
    const s = await c.sync(c.first.at, c.first.mode);
    expect([s.written, s.events.written, s.quarantined]).toEqual([0, 0, 0]);
    expect(await Promise.all(c.tables.map(rows))).toEqual(before);
    expect(await version()).toBe(v0);
    await c.idle?.(s);
  });

  c.between?.();

  it(`${code}: a change in the world shows after the next sync`, async () => {
    const v0 = await version();
    const s = await c.sync(c.changed.at(), c.changed.mode ?? 'poll');
    expect(s.written).toBeGreaterThan(0);
    expect(s.quarantined).toBe(0);
    await c.expectTruth();
    expect(counter(await version())).toBe(counter(v0) + 1);
    await c.changed.check?.(s);
  });
}
