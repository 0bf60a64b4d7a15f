/**
 * Venue alpha's order-book observations (schemas/clickhouse/029_alpha_book_quotes.sql), written by the book
 * sync (ingest/venues/alpha/book/) and read by the current-price function (analytics/shared/current-price.ts). Prices and
 * sizes are the upstream decimals as numbers; levels best first. Checked against `DESCRIBE TABLE` by
 * test/table-descriptions.test.ts.
 */
import { c, defineTable } from '../../core/clickhouse/table.ts';

export const ALPHA_BOOK_QUOTES = defineTable('alpha_book_quotes', {
  token_id: c.hex(),
  observed_at: c.time,
  condition_id: c.hex(),
  book_time: c.time,
  hash: c.text,
  best_bid: c.nullableF64,
  best_ask: c.nullableF64,
  mid: c.nullableF64,
  bid_prices: c.f64Array,
  bid_sizes: c.f64Array,
  ask_prices: c.f64Array,
  ask_sizes: c.f64Array,
  /** The payload's tick size ('0.01'; '' for rows observed before migration 044). */
  tick_size: c.text,
});

/** The book tables, by name. */
export const ALPHA_BOOK_TABLES = { alpha_book_quotes: ALPHA_BOOK_QUOTES } as const;
