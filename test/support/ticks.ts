/**
 * Tick dataset fixtures: a seeded sequence of known books per ticker turned into the feed's rows
 * (beta_book_ticks: a snapshot, then signed deltas, now and then a resync re-snapshot), the truth book at
 * any time, and the rows of a Parquet part read back through ClickHouse (a temporary table filled by an
 * INSERT … FORMAT Parquet of the file's bytes: the same on chDB and a server).
 */
import fs from 'node:fs';
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { TickDataset } from '../../schemas/ticks.ts';

/** A book: `side|price` → size (contracts, 2 decimals as text). */
export type Book = Map<string, string>;

export interface TickRow {
  ticker: string;
  ts: number;
  sid: number;
  seq: number;
  side: 'yes' | 'no';
  price: string;
  delta: string;
  is_snapshot: boolean;
  resync: boolean;
}

/** A decimal's canonical text: no trailing zeros, no trailing point ('0.4500' → '0.45', '3.00' → '3'). */
export function dec(v: string | number): string {
  const s = String(v);
  if (!s.includes('.')) return s === '-0' ? '0' : s;
  const t = s.replace(/0+$/, '').replace(/\.$/, '');
  return t === '-0' ? '0' : t;
}

/** Cents of a decimal text, exactly (2 decimals at most). */
const cents = (v: string) => Math.round(Number(v) * 100);
const fromCents = (n: number) => dec((n / 100).toFixed(2));

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Prices of the fixtures: whole cents and sub-cent levels, 4 decimals at most. */
const PRICES = [
  '0.01',
  '0.0125',
  '0.1',
  '0.25',
  '0.3',
  '0.45',
  '0.4525',
  '0.5',
  '0.55',
  '0.7',
  '0.9',
  '0.99',
];

export interface TickHistory {
  rows: TickRow[];
  /** Per ticker: the book after each message, by message time. */
  books: Map<string, { ts: number; book: Book }[]>;
}

/**
 * `messages` feed messages per ticker between `from` and `to` (Unix ms): a snapshot first, then deltas of
 * one level each, a resync re-snapshot (new sid, seq 1) every so often.
 */
export function tickHistory(o: {
  tickers: readonly string[];
  from: number;
  to: number;
  messages: number;
  seed: number;
}): TickHistory {
  const rand = rng(o.seed);
  const rows: TickRow[] = [];
  const books = new Map<string, { ts: number; book: Book }[]>();
  for (const [i, ticker] of o.tickers.entries()) {
    const book: Book = new Map();
    for (const p of PRICES)
      if (rand() < 0.4)
        book.set(`${rand() < 0.5 ? 'yes' : 'no'}|${p}`, fromCents(1 + Math.floor(rand() * 50000)));
    const times = Array.from(
      { length: o.messages },
      () => o.from + Math.floor(rand() * (o.to - o.from)),
    ).sort((a, b) => a - b);
    let sid = 10 + i * 100;
    let seq = 0;
    const history: { ts: number; book: Book }[] = [];
    const snapshot = (ts: number, resync: boolean) => {
      seq++;
      for (const [k, size] of [...book.entries()].sort()) {
        const [side, price] = k.split('|') as ['yes' | 'no', string];
        rows.push({ ticker, ts, sid, seq, side, price, delta: size, is_snapshot: true, resync });
      }
    };
    for (const [m, ts] of times.entries()) {
      if (m === 0) snapshot(ts, false);
      else if (rand() < 0.03) {
        // A resync: a new subscription's snapshot of the book as it is now, maybe changed meanwhile.
        sid++;
        seq = 0;
        const k = `${rand() < 0.5 ? 'yes' : 'no'}|${PRICES[Math.floor(rand() * PRICES.length)]}`;
        if (rand() < 0.5) book.delete(k);
        else book.set(k, fromCents(1 + Math.floor(rand() * 50000)));
        snapshot(ts, true);
      } else {
        const side = rand() < 0.5 ? 'yes' : 'no';
        const price = PRICES[Math.floor(rand() * PRICES.length)]!;
        const k = `${side}|${price}`;
        const old = cents(book.get(k) ?? '0');
        const next = rand() < 0.25 ? 0 : 1 + Math.floor(rand() * 50000);
        if (next === old) continue;
        if (next === 0) book.delete(k);
        else book.set(k, fromCents(next));
        seq++;
        rows.push({
          ticker,
          ts,
          sid,
          seq,
          side,
          price,
          delta: fromCents(next - old),
          is_snapshot: false,
          resync: false,
        });
      }
      history.push({ ts, book: new Map(book) });
    }
    books.set(ticker, history);
  }
  return { rows, books };
}

/** The truth book of `ticker` at `at` (the book after its last message at or before `at`). */
export function truthAt(h: TickHistory, ticker: string, at: number): Book {
  let book: Book = new Map();
  for (const e of h.books.get(ticker) ?? []) {
    if (e.ts > at) break;
    book = e.book;
  }
  return book;
}

const chTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

export async function insertTicks(ch: ClickHouse, rows: readonly TickRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 50_000) {
    await ch.insert(
      'test.ticks',
      'beta_book_ticks',
      rows.slice(i, i + 50_000).map((r) => ({ ...r, ts: chTime(r.ts), received_at: chTime(r.ts) })),
    );
  }
}

/** Types of a dataset's columns in a ClickHouse table, from the types the schema names. */
const CH_TYPES: Record<string, string> = {
  string: 'String',
  int64: 'Int64',
  uint16: 'UInt16',
  uint32: 'UInt32',
  uint64: 'UInt64',
  bool: 'Bool',
  'decimal(9,4)': 'Decimal(9, 4)',
  'decimal(18,2)': 'Decimal(18, 2)',
  'decimal(18,6)': 'Decimal(18, 6)',
};

let readbacks = 0;

/**
 * The rows of a Parquet file as ClickHouse reads them, in file order, decimals as canonical text and
 * 64-bit integers as numbers.
 */
export async function readParquet(
  ch: ClickHouse,
  dataset: TickDataset,
  file: string,
): Promise<Record<string, string | number | boolean>[]> {
  const table = `ticks_readback_${process.pid}_${readbacks++}`;
  const cols = dataset.columns.map((c) => `${c.name} ${CH_TYPES[c.type]}`);
  await ch.command('test.readback', `CREATE TABLE ${table} (${cols.join(', ')}) ENGINE = Memory`);
  try {
    // Memory keeps the insert's order, read by one thread.
    await ch.insertRaw(
      'test.readback',
      table,
      'Parquet',
      dataset.columns.map((c) => c.name),
      fs.readFileSync(file),
    );
    const select = dataset.columns.map((c) =>
      c.type.startsWith('decimal') ? `toString(${c.name}) AS ${c.name}` : c.name,
    );
    const rows = await ch.query<Record<string, string | number | boolean>>(
      'test.readback',
      `SELECT ${select.join(', ')} FROM ${table} SETTINGS max_threads = 1`,
    );
    return rows.map((r) => {
      const out: Record<string, string | number | boolean> = {};
      for (const c of dataset.columns) {
        const v = r[c.name]!;
        out[c.name] = c.type.startsWith('decimal')
          ? dec(String(v))
          : c.type.startsWith('int') || c.type.startsWith('uint')
            ? Number(v)
            : v;
      }
      return out;
    });
  } finally {
    await ch.command('test.readback', `DROP TABLE IF EXISTS ${table}`);
  }
}

/**
 * Books rebuilt from a `beta` day's rows up to `at`: per ticker, an is_snapshot message replaces its book,
 * any other row adds its delta to the level.
 */
export function rebuildBooks(
  rows: readonly Record<string, string | number | boolean>[],
  at: number,
): Map<string, Book> {
  const books = new Map<string, Book>();
  let last = '';
  for (const r of rows) {
    if ((r.timestamp as number) > at) continue;
    const ticker = r.ticker as string;
    const message = `${ticker}|${r.sequence}`;
    const book = books.get(ticker) ?? new Map<string, string>();
    books.set(ticker, book);
    if (r.is_snapshot && message !== last) book.clear();
    last = message;
    const k = `${r.side}|${r.price}`;
    const size = cents(book.get(k) ?? '0') + cents(String(r.delta));
    if (size === 0) book.delete(k);
    else book.set(k, fromCents(size));
  }
  return books;
}
