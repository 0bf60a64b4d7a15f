/**
 * The per-market book reads of a venue whose upstream serves one book per call (gamma, delta): the open
 * markets in batches of `BOOKS_PER_BATCH` (each batch recorded before the next is read), `CONCURRENCY`
 * calls at a time within a batch.
 */
import type { ReadCounts } from '../rest/records.ts';
import type { BookSnapshot } from './store.ts';
import type { BookBatch, OrderbookContext } from './stream.ts';

export const BOOKS_PER_BATCH = 100;
export const CONCURRENCY = 4;

/** Reads each market's book with `read` (null: no book), yielding the books batch by batch. */
export async function* bookBatches<M>(
  markets: readonly M[],
  ctx: OrderbookContext,
  read: (market: M) => Promise<ReadCounts & { snapshot: BookSnapshot | null }>,
): AsyncIterable<BookBatch> {
  ctx.summary.markets = markets.length;
  for (let i = 0; i < markets.length; i += BOOKS_PER_BATCH) {
    const batch = markets.slice(i, i + BOOKS_PER_BATCH);
    const books: BookSnapshot[] = [];
    for (let j = 0; j < batch.length; j += CONCURRENCY) {
      const got = await Promise.all(batch.slice(j, j + CONCURRENCY).map(read));
      for (const r of got) {
        ctx.account(r);
        if (r.snapshot) books.push(r.snapshot);
      }
    }
    ctx.summary.read += books.length;
    yield { books };
    ctx.step('books');
  }
}
