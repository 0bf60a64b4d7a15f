/**
 * Order book history (schemas/clickhouse/044_orderbooks.sql, docs/orderbooks.md): `orderbook_snapshots`,
 * the recorded YES books of the REST venues (written by ingest/orderbooks/store.ts; beta's feed table is
 * in schemas/tables/beta.ts). Decimal columns
 * are written and read as exact decimal strings (JSONEachRow; read them with `toString`). Checked against
 * `DESCRIBE TABLE` by test/table-descriptions.test.ts.
 */
import { type Column, c, defineTable } from '../../core/clickhouse/table.ts';

/** A column kind written as JSON only (no RowBinary writer of its own). */
const jsonOnly = <Ts, Rd = Ts>(ch: string, write: string) =>
  ({ ch, write, written: true }) as Column & { readonly ts?: Ts; readonly rd?: Rd };

/** Exact decimals as strings ('0.0125'): Array(Decimal(18, 6)). */
const decimals = jsonOnly<string[]>('Array(Decimal(18, 6))', 'decimalArray');
const nullableDecimal = jsonOnly<string | null>('Nullable(Decimal(18, 6))', 'nullableDecimal');

export type BookSource = 'rest' | 'ws';

export const ORDERBOOK_SNAPSHOTS = defineTable('orderbook_snapshots', {
  venue: c.lowText(),
  /** The venue's market key: beta ticker, gamma slug, delta and epsilon market id (as text). */
  market: c.text,
  /** The YES token ('' where the venue has none: beta). */
  token_id: c.text,
  /** The book's own time (Unix ms): the payload's, else the answer's `Date`. */
  ts: c.time,
  /** Increases per market and source: the Unix ms the snapshot was recorded. */
  sequence: c.u64n,
  source: c.lowText<BookSource>(),
  observed_at: c.time,
  /** Bids best first (descending), dollars 0..1. */
  bid_prices: decimals,
  bid_sizes: decimals,
  /** Asks best first (ascending), dollars 0..1. */
  ask_prices: decimals,
  ask_sizes: decimals,
  /** The levels' identity (the first 8 bytes of their SHA-256, as a decimal UInt64). */
  hash: c.u64,
  /** gamma's midpoint and adjusted midpoint; null elsewhere. */
  midpoint: nullableDecimal,
  adjusted_midpoint: nullableDecimal,
});

export const ORDERBOOK_TABLES = { ORDERBOOK_SNAPSHOTS } as const;
