/**
 * One book sync of venue alpha: the books of the given tokens through `POST /books` (≤ 100 tokens a call,
 * a few calls at a time), one `alpha_book_quotes` row per token per sync, stamped with when the answer
 * arrived. A record that fails its schema goes to `quarantine` (source `alpha-book`, its token id) and the
 * batch goes on; a token the answer leaves out (no book: closed, unknown) gets no row. Rows are inserted
 * every ROWS_PER_INSERT and at the end; a call that still fails after its retries fails the sync: rows
 * of calls that had ended may have been written (each is a complete observation of its token, and the
 * table keeps no progress), the rest are not.
 */
import type { ClickHouse } from '../../../../core/clickhouse/index.ts';
import type { RowOf } from '../../../../core/clickhouse/table.ts';
import type { Logger } from '../../../../core/logger.ts';
import { countRowsWritten } from '../../../../core/ops/ingest-counts.ts';
import { ALPHA_BOOK_QUOTES } from '../../../../schemas/tables/alpha-book.ts';
import { QUARANTINE } from '../../../../schemas/tables/alpha-chain.ts';
import { type AlphaBookHttpOptions, createAlphaBookClient, MAX_BOOKS_PER_CALL } from './client.ts';
import { checkBook, type OrderBookSummary, recordTokenId } from './payloads.ts';

/** Rows buffered before an insert. */
const ROWS_PER_INSERT = 2_000;

export const QUARANTINE_SOURCE = 'alpha-book';

export type BookQuoteRow = RowOf<typeof ALPHA_BOOK_QUOTES>;
type QuarantineRow = RowOf<typeof QUARANTINE>;

export interface AlphaBookSyncDeps {
  clickhouse: ClickHouse;
  log: Logger;
}

export interface AlphaBookSyncOptions extends AlphaBookHttpOptions {
  /** The book API's base URL (ALPHA_BOOK_URL). */
  url: string;
  /** Tokens per call, 1–100 (default 100). */
  batchSize?: number;
  /** Calls under way at once (default 4). */
  concurrency?: number;
  /** The clock stamping observations, Unix ms (default: the book API's clock, HttpClient.clock). */
  clock?: () => number;
}

export interface AlphaBookSyncResult {
  /** Distinct tokens asked for. */
  tokens: number;
  calls: number;
  /** Rows written to alpha_book_quotes. */
  written: number;
  quarantined: number;
  /** Tokens the answers left out (no book). */
  missing: number;
}

/**
 * The mean of two book prices, rounded to 10 decimals: the prices are decimals of a few places, so this
 * is their exact midpoint (0.85, not the 0.8500000000000001 that (0.8 + 0.9) / 2 gives in floats).
 */
export const midpoint = (bid: number, ask: number): number => Number(((bid + ask) / 2).toFixed(10));

/** The row of a checked book observed at `observedAt`: levels best first, mid only with both sides. */
export function bookQuoteRow(book: OrderBookSummary, observedAt: number): BookQuoteRow {
  const levels = (side: OrderBookSummary['bids'], descending: boolean) =>
    side
      .map((l) => ({ price: Number(l.price), size: Number(l.size) }))
      .sort((a, b) => (descending ? b.price - a.price : a.price - b.price));
  const bids = levels(book.bids, true);
  const asks = levels(book.asks, false);
  const bestBid = bids[0]?.price ?? null;
  const bestAsk = asks[0]?.price ?? null;
  return {
    token_id: book.asset_id,
    observed_at: observedAt,
    condition_id: book.market,
    book_time: Number(book.timestamp),
    hash: book.hash,
    best_bid: bestBid,
    best_ask: bestAsk,
    mid: bestBid !== null && bestAsk !== null ? midpoint(bestBid, bestAsk) : null,
    bid_prices: bids.map((l) => l.price),
    bid_sizes: bids.map((l) => l.size),
    ask_prices: asks.map((l) => l.price),
    ask_sizes: asks.map((l) => l.size),
    tick_size: book.tick_size ?? '',
  };
}

/** Unix ms as the text a DateTime64(3) column parses from JSON. */
const timeText = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

export async function syncAlphaBooks(
  deps: AlphaBookSyncDeps,
  tokenIds: readonly string[],
  options: AlphaBookSyncOptions,
): Promise<AlphaBookSyncResult> {
  const { clickhouse: ch, log } = deps;
  const batchSize = options.batchSize ?? MAX_BOOKS_PER_CALL;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BOOKS_PER_CALL) {
    throw new RangeError(`batchSize must be an integer in 1..${MAX_BOOKS_PER_CALL}, got ${batchSize}`);
  }
  const concurrency = options.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  }
  const { url, batchSize: _b, concurrency: _c, clock: _k, ...http } = options;
  const client = createAlphaBookClient({ ...http, url, log });
  const clock = options.clock ?? client.clock;
  const tokens = [...new Set(tokenIds)];
  const result: AlphaBookSyncResult = {
    tokens: tokens.length,
    calls: 0,
    written: 0,
    quarantined: 0,
    missing: 0,
  };
  let quotes: BookQuoteRow[] = [];
  let rejects: QuarantineRow[] = [];

  // Takes the buffers before awaiting, so that calls still running fill new ones meanwhile.
  const flush = async () => {
    const [q, r] = [quotes, rejects];
    quotes = [];
    rejects = [];
    if (r.length > 0) {
      await ch.insert('alpha.book.quarantine', QUARANTINE.name, r);
      countRowsWritten(QUARANTINE.name, r.length);
      result.quarantined += r.length;
    }
    if (q.length > 0) {
      const rows = q.map((x) => ({
        ...x,
        observed_at: timeText(x.observed_at),
        book_time: timeText(x.book_time),
      }));
      await ch.insert('alpha.book.quotes', ALPHA_BOOK_QUOTES.name, rows);
      countRowsWritten(ALPHA_BOOK_QUOTES.name, rows.length);
      result.written += q.length;
    }
  };

  const syncBatch = async (callIndex: number, batch: string[]) => {
    const asked = new Set(batch);
    const records = await client.books(batch);
    const observedAt = clock();
    result.calls++;
    const seen = new Set<string>();
    records.forEach((record, index) => {
      const checked = checkBook(record);
      const token = recordTokenId(record);
      if (!checked.ok) {
        if (token !== null) seen.add(token);
        rejects.push({
          source: QUARANTINE_SOURCE,
          kind: 'book',
          record_id: token ?? `call ${callIndex} record ${index}`,
          reason: checked.reason,
          payload: JSON.stringify(record),
        });
        log.warn({ token_id: token, reason: checked.reason }, 'Quarantined malformed book');
        return;
      }
      // A token asked once is written once; a book of a token not asked for is not this sync's.
      if (!asked.has(checked.book.asset_id) || seen.has(checked.book.asset_id)) return;
      seen.add(checked.book.asset_id);
      quotes.push(bookQuoteRow(checked.book, observedAt));
    });
    result.missing += batch.filter((t) => !seen.has(t)).length;
    if (quotes.length + rejects.length >= ROWS_PER_INSERT) await flush();
  };

  // `concurrency` workers take the batches in order; after a failure no worker starts another call, and
  // the sync fails once the calls under way have ended.
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async () => {
    while (failure === null && next * batchSize < tokens.length) {
      const callIndex = next++;
      const batch = tokens.slice(callIndex * batchSize, (callIndex + 1) * batchSize);
      try {
        await syncBatch(callIndex, batch);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  if (failure !== null) throw (failure as { error: unknown }).error;
  await flush();
  log.info({ ...result }, 'Synced alpha books');
  return result;
}
