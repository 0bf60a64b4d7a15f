/**
 * beta's books as its feed carries them (docs/orderbooks.md "beta's book feed"): the yes and no bids of a
 * market, exact (prices in ten-thousandths of a dollar, sizes in hundredths of a contract, as integers),
 * changed by `beta_book_ticks` rows: a snapshot message's rows replace the book (the first row of a
 * message resets it; an empty book's snapshot is one row at price 0, size 0), a delta row adds its signed
 * change to its level (a level at 0 or below is gone). `rebuildBooks` applies stored rows in
 * (ts, sid, seq) order; the feed keeps its books the same way, and `yesBook` gives the YES book it stores
 * as a `ws` snapshot (bids = yes bids descending, asks = 1 − no bids ascending).
 */
import type { BookLevel } from '../../orderbooks/store.ts';

export type TickSide = 'yes' | 'no';

/** One market's bids: price (1/10,000 dollar) → size (1/100 contract). */
export interface TickBook {
  yes: Map<number, number>;
  no: Map<number, number>;
}

export const PRICE_SCALE = 4;
export const SIZE_SCALE = 2;

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/** A decimal's integer units at `scale` decimals, exact; null when not a decimal or finer than `scale`. */
export function toUnits(text: string, scale: number): number | null {
  const m = DECIMAL.exec(text);
  if (!m) return null;
  const frac = (m[3] ?? '').replace(/0+$/, '');
  if (frac.length > scale) return null;
  const n = Number(m[2]) * 10 ** scale + (frac === '' ? 0 : Number(frac.padEnd(scale, '0')));
  if (!Number.isSafeInteger(n)) return null;
  return m[1] === '-' ? -n : n;
}

/** Integer units at `scale` as the decimal text (`5600, 4` → '0.5600'). */
export function fromUnits(units: number, scale: number): string {
  const abs = String(Math.abs(units)).padStart(scale + 1, '0');
  const text = `${abs.slice(0, abs.length - scale)}.${abs.slice(abs.length - scale)}`;
  return units < 0 ? `-${text}` : text;
}

export const emptyBook = (): TickBook => ({ yes: new Map(), no: new Map() });

/** Adds `delta` to a level (a level at 0 or below is removed). */
export function applyDelta(book: TickBook, side: TickSide, price: number, delta: number): void {
  const levels = book[side];
  const size = (levels.get(price) ?? 0) + delta;
  if (size > 0) levels.set(price, size);
  else levels.delete(price);
}

/** The YES book: bids = yes bids descending, asks = 1 − no bids ascending (exact decimals). */
export function yesBook(book: TickBook): { bids: BookLevel[]; asks: BookLevel[] } {
  const one = 10 ** PRICE_SCALE;
  const bids = [...book.yes]
    .sort((a, b) => b[0] - a[0])
    .map(([p, s]) => ({ price: fromUnits(p, PRICE_SCALE), size: fromUnits(s, SIZE_SCALE) }));
  const asks = [...book.no]
    .sort((a, b) => b[0] - a[0])
    .map(([p, s]) => ({ price: fromUnits(one - p, PRICE_SCALE), size: fromUnits(s, SIZE_SCALE) }));
  return { bids, asks };
}

/** A stored row as read back (`toString` of the decimals). */
export interface TickRow {
  ticker: string;
  ts: number;
  sid: number;
  seq: number;
  side: TickSide;
  price: string;
  delta: string;
  is_snapshot: boolean;
}

/**
 * The books the rows give: rows applied in (ts, sid, seq) order per ticker, each snapshot message (its
 * rows share ts, sid and seq) replacing the ticker's book.
 */
export function rebuildBooks(rows: readonly TickRow[]): Map<string, TickBook> {
  const sorted = [...rows].sort(
    (a, b) =>
      (a.ticker < b.ticker ? -1 : a.ticker > b.ticker ? 1 : 0) ||
      a.ts - b.ts ||
      a.sid - b.sid ||
      a.seq - b.seq,
  );
  const books = new Map<string, TickBook>();
  let snapshotOf = '';
  for (const r of sorted) {
    const price = toUnits(r.price, PRICE_SCALE);
    const delta = toUnits(r.delta, SIZE_SCALE);
    if (price === null || delta === null) throw new RangeError(`bad tick row ${JSON.stringify(r)}`);
    let book = books.get(r.ticker);
    if (r.is_snapshot) {
      const message = `${r.ticker}|${r.ts}|${r.sid}|${r.seq}`;
      if (message !== snapshotOf || !book) {
        book = emptyBook();
        books.set(r.ticker, book);
        snapshotOf = message;
      }
    } else if (!book) {
      // Deltas before the ticker's first snapshot describe an unknown book.
      continue;
    }
    applyDelta(book, r.side, price, delta);
  }
  return books;
}
