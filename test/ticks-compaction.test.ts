/**
 * `ticks.compact` (analytics/ticks/compact.ts) over rows inserted straight into beta_book_ticks and
 * orderbook_snapshots: a day compacted twice gives the same files, whose rows are the tick table's; the
 * book rebuilt from a day's file at 23:59:59 equals the truth; only final days are compacted; parts hold at
 * most TICKS_PART_ROWS rows, sorted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactDay, compactFinalDays, latestFinalDay } from '../analytics/ticks/compact.ts';
import { acquireLease } from '../core/lease.ts';
import type { JobContext } from '../jobs/define.ts';
import { ticksCompactJob } from '../jobs/processors/ticks-compact.ts';
import { ALL_JOBS } from '../jobs/registry.ts';
import { SCHEDULES } from '../jobs/schedules.ts';
import { BETA_SNAPSHOT_TICKS, BETA_TICKS } from '../schemas/api/beta-ticks.ts';
import { DAY_MS, ticksSettings } from '../schemas/ticks.ts';
import { TICK_DATASETS } from '../schemas/venues/index.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import {
  dec,
  insertTicks,
  readParquet,
  rebuildBooks,
  type TickHistory,
  tickHistory,
  truthAt,
} from './support/ticks.ts';

const DAY = Date.UTC(2026, 8, 20);
const DATE = '2026-09-20';
const TICKERS = ['KXA-26SEP20-T1', 'KXB-26SEP20-T2', 'KXC-26SEP20-T3', 'KXD-26SEP20-T4'];
const PART_ROWS = 700;

let deps: TestDeps;
let history: TickHistory;
/** The day's parts as first compacted (its opening books read from the history). */
let fromHistory: Awaited<ReturnType<typeof compactDay>>['parts'];

const sha = (file: string) => fs.readFileSync(file);
const chTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

beforeAll(async () => {
  deps = await createTestDeps('ticks_compaction', {
    env: { TICKS_PART_ROWS: String(PART_ROWS), TICKS_FINAL_GRACE_S: '300' },
  });
  // From 20:00 the day before to 01:00 the day after: the day opens on books built the day before.
  history = tickHistory({
    tickers: TICKERS,
    from: DAY - 4 * 3_600_000,
    to: DAY + DAY_MS + 3_600_000,
    messages: 600,
    seed: 7,
  });
  await insertTicks(deps.clickhouse, history.rows);
  // A retried insert of some rows: the table keeps one of each (read with FINAL).
  await insertTicks(deps.clickhouse, history.rows.slice(100, 400));
});
afterAll(async () => deps?.close());

const settings = () => ticksSettings(deps.config);
const compactDeps = () => ({ clickhouse: deps.clickhouse, log: deps.log, settings: settings() });

describe('ticks.compact: beta', () => {
  it('compacts a day twice into identical files whose rows equal the tick table', async () => {
    const first = await compactDay(compactDeps(), BETA_TICKS, DATE);
    const files = first.parts.map((p) => path.join(settings().dir, p.path));
    const bytes = files.map(sha);
    const second = await compactDay(compactDeps(), BETA_TICKS, DATE);
    expect(second.parts).toEqual(first.parts);
    expect(first.carried).toBe(false);
    fromHistory = first.parts;
    expect(files.map(sha)).toEqual(bytes);
    expect(first.parts.length).toBeGreaterThan(1);

    const rows: Awaited<ReturnType<typeof readParquet>> = [];
    for (const [i, file] of files.entries()) {
      const part = await readParquet(deps.clickhouse, BETA_TICKS, file);
      expect(part.length).toBe(first.parts[i]!.rows);
      expect(part.length).toBeLessThanOrEqual(PART_ROWS);
      expect(part[0]!.ticker).toBe(first.parts[i]!.id_min);
      expect(part.at(-1)!.ticker).toBe(first.parts[i]!.id_max);
      rows.push(...part);
    }
    // Sorted by (ticker, timestamp, sequence) across the parts.
    const key = (r: (typeof rows)[number]) => [r.ticker, r.timestamp, r.sequence] as [string, number, number];
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [key(rows[i - 1]!), key(rows[i]!)];
      expect(a[0] < b[0] || (a[0] === b[0] && (a[1] < b[1] || (a[1] === b[1] && a[2] <= b[2])))).toBe(true);
    }
    // The day's own rows (sequence > 0) are the tick table's rows of the day.
    const ofDay = rows
      .filter((r) => r.sequence !== 0)
      .map((r) => [r.ticker, r.timestamp, r.side, r.price, r.delta, r.is_snapshot, r.resync].join('|'))
      .sort();
    const truth = history.rows
      .filter((r) => r.ts >= DAY && r.ts < DAY + DAY_MS)
      .map((r) => [r.ticker, r.ts, r.side, dec(r.price), dec(r.delta), r.is_snapshot, r.resync].join('|'))
      .sort();
    expect(ofDay).toEqual(truth);
    // Messages numbered 1, 2, … per ticker in feed order; one number per snapshot's levels.
    for (const ticker of TICKERS) {
      const seqs = [
        ...new Set(rows.filter((r) => r.ticker === ticker && r.sequence !== 0).map((r) => r.sequence)),
      ];
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    }
    // The opening rows are each ticker's book at the day's start.
    for (const ticker of TICKERS) {
      const opening = rows.filter((r) => r.ticker === ticker && r.sequence === 0);
      expect(opening.every((r) => r.timestamp === DAY && r.is_snapshot && !r.resync)).toBe(true);
      const book = new Map(opening.map((r) => [`${r.side}|${r.price}`, String(r.delta)]));
      expect(book, ticker).toEqual(truthAt(history, ticker, DAY - 1));
    }
  });

  it('rebuilds from the day file the true book of every ticker at 23:59:59', async () => {
    const day = await compactDay(compactDeps(), BETA_TICKS, DATE);
    const rows: Awaited<ReturnType<typeof readParquet>> = [];
    for (const p of day.parts)
      rows.push(...(await readParquet(deps.clickhouse, BETA_TICKS, path.join(settings().dir, p.path))));
    const at = DAY + DAY_MS - 1000;
    const books = rebuildBooks(rows, at);
    for (const ticker of TICKERS) {
      const truth = truthAt(history, ticker, at);
      expect(truth.size).toBeGreaterThan(0);
      expect(books.get(ticker) ?? new Map(), ticker).toEqual(truth);
    }
    // And at a time inside the day, after a resync.
    const mid = DAY + 13 * 3_600_000;
    const midBooks = rebuildBooks(rows, mid);
    for (const ticker of TICKERS)
      expect(midBooks.get(ticker) ?? new Map()).toEqual(truthAt(history, ticker, mid));
    expect(rows.some((r) => r.resync && r.sequence !== 0)).toBe(true);
  });
});

describe('ticks.compact: beta_snapshots', () => {
  it('writes a row per resting level of each beta snapshot of the day, sorted', async () => {
    const snap = (
      market: string,
      ts: number,
      source: string,
      bids: [string, string][],
      asks: [string, string][],
    ) => ({
      venue: 'beta',
      market,
      token_id: '',
      ts: chTime(ts),
      sequence: ts + 5,
      source,
      observed_at: chTime(ts + 5),
      bid_prices: bids.map((b) => b[0]),
      bid_sizes: bids.map((b) => b[1]),
      ask_prices: asks.map((a) => a[0]),
      ask_sizes: asks.map((a) => a[1]),
      hash: '1',
      midpoint: null,
      adjusted_midpoint: null,
    });
    await deps.clickhouse.insert('test.snapshots', 'orderbook_snapshots', [
      snap(
        'KXB-1',
        DAY + 60_000,
        'rest',
        [
          ['0.45', '10'],
          ['0.44', '2.5'],
        ],
        [['0.47', '3']],
      ),
      snap('KXA-1', DAY + 120_000, 'ws', [['0.0125', '100']], []),
      snap('KXA-1', DAY - 60_000, 'rest', [['0.3', '1']], []),
      { ...snap('OTHER', DAY + 60_000, 'rest', [['0.5', '1']], []), venue: 'gamma' },
      // The newest snapshot, past the day's end + grace: the day is final.
      snap('KXA-1', DAY + DAY_MS + 3_600_000, 'rest', [['0.3', '1']], []),
    ]);
    const run = await compactFinalDays(compactDeps(), [BETA_SNAPSHOT_TICKS]);
    expect(run.days.map((d) => d.date)).toEqual(['2026-09-19', DATE]);
    const day = await compactDay(compactDeps(), BETA_SNAPSHOT_TICKS, DATE);
    expect(day.parts).toHaveLength(1);
    const rows = await readParquet(
      deps.clickhouse,
      BETA_SNAPSHOT_TICKS,
      path.join(settings().dir, day.parts[0]!.path),
    );
    expect(rows).toEqual([
      {
        ticker: 'KXA-1',
        timestamp: DAY + 120_000,
        sequence: DAY + 120_005,
        source: 'ws',
        side: 'bid',
        level: 1,
        price: '0.0125',
        size: '100',
      },
      {
        ticker: 'KXB-1',
        timestamp: DAY + 60_000,
        sequence: DAY + 60_005,
        source: 'rest',
        side: 'ask',
        level: 1,
        price: '0.47',
        size: '3',
      },
      {
        ticker: 'KXB-1',
        timestamp: DAY + 60_000,
        sequence: DAY + 60_005,
        source: 'rest',
        side: 'bid',
        level: 1,
        price: '0.45',
        size: '10',
      },
      {
        ticker: 'KXB-1',
        timestamp: DAY + 60_000,
        sequence: DAY + 60_005,
        source: 'rest',
        side: 'bid',
        level: 2,
        price: '0.44',
        size: '2.5',
      },
    ]);
    expect(day.parts[0]).toMatchObject({
      id_min: 'KXA-1',
      id_max: 'KXB-1',
      ts_min: DAY + 60_000,
      ts_max: DAY + 120_000,
    });
  });
});

describe('ticks.compact: final days', () => {
  it('compacts only days whose end plus the grace is before the newest row, each once', async () => {
    expect(latestFinalDay(DAY + DAY_MS + 300_000, 300)).toBe(DAY - DAY_MS);
    expect(latestFinalDay(DAY + DAY_MS + 300_001, 300)).toBe(DAY);
    expect(TICK_DATASETS.map((d) => d.name)).toEqual(['beta', 'beta_snapshots']);
    // The ticks end at 01:00 the day after: the day before and the day are final, the day after is not.
    const run = await compactFinalDays(compactDeps(), [BETA_TICKS]);
    expect(run.days.map((d) => d.date)).toEqual(['2026-09-19']);
    const again = await compactFinalDays(compactDeps(), [BETA_TICKS]);
    expect(again.days).toEqual([]);
    const days = await deps.clickhouse.query<{ date: string; parts: number }>(
      'test.days',
      "SELECT toString(date) AS date, parts FROM tick_days FINAL WHERE dataset = 'beta' ORDER BY date",
    );
    expect(days.map((d) => d.date)).toEqual(['2026-09-19', DATE]);
  });

  it("opens a day on the previous day's closing books once that day is compacted: the same files", async () => {
    const books = await deps.clickhouse.query<{ n: string }>(
      'test.books',
      "SELECT count() AS n FROM tick_books WHERE dataset = 'beta' AND date = '2026-09-19'",
    );
    expect(Number(books[0]!.n)).toBeGreaterThan(0);
    const again = await compactDay(compactDeps(), BETA_TICKS, DATE);
    expect(again.carried).toBe(true);
    expect(again.parts).toEqual(fromHistory);
  });
});

describe('job ticks.compact', () => {
  it('is registered, scheduled every TICKS_COMPACT_INTERVAL_S, and runs under its lease', async () => {
    expect(ALL_JOBS).toContain(ticksCompactJob);
    const scheduled = SCHEDULES.find((s) => s.job === ticksCompactJob)!;
    expect(scheduled.id).toBe('ticks:compact');
    expect(scheduled.everyMs(deps.config)).toBe(300_000);
    const ctx = {
      deps,
      log: deps.log,
      signal: new AbortController().signal,
      job: { data: {} },
      enqueue: async () => undefined,
    } as unknown as JobContext<Record<string, never>>;
    const held = await acquireLease(deps.redis, 'ticks:compact:lease', 10_000);
    expect(await ticksCompactJob.process(ctx)).toEqual({ ran: false });
    await held.release();
    // Every final day of both datasets is compacted already (the tests above): nothing left to do.
    expect(await ticksCompactJob.process(ctx)).toEqual({ ran: true, days: [] });
  });
});
