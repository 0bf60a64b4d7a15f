/**
 * The one writer of `orderbook_snapshots` (docs/orderbooks.md), shared by every venue's book poll and by
 * beta's feed (its rebuilt books, source `ws`):
 * - a snapshot is the market's YES book: bids best first (price descending), asks best first (ascending),
 *   prices in dollars 0..1 and sizes as exact decimal strings (`decimal`, core/decimal.ts, normalizes them);
 * - a book equal to the market's last recorded one of the same source (same levels and midpoints: same
 *   `hash`) is skipped unless ORDERBOOK_KEEPALIVE_S passed since that one was recorded, so an idle market
 *   costs one row per keep-alive;
 * - `sequence` is the Unix ms of the recording (`observedAt`): it increases per market and source, and
 *   orders snapshots of one `ts` (a payload time that did not move);
 * - what a run wrote bumps `books:<venue>` (core/data-version.ts), after the insert.
 * The last recorded hashes are read from the table itself (the keep-alive window only, through the
 * `observed_at` skip index), so any process may write the next run: a rerun after a crash records what
 * the crashed run did not, and nothing twice.
 */
import { createHash } from 'node:crypto';
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { RowOf } from '../../core/clickhouse/table.ts';
import type { DataVersions } from '../../core/data-version.ts';
import { decimal } from '../../core/decimal.ts';
import { countRowsWritten } from '../../core/ops/ingest-counts.ts';
import { type BookSource, ORDERBOOK_SNAPSHOTS } from '../../schemas/tables/orderbooks.ts';
import { chTime } from '../rest/store.ts';

/** One price level: exact decimal strings (dollars 0..1; contracts or shares). */
export interface BookLevel {
  price: string;
  size: string;
}

/** One market's YES book as observed. */
export interface BookSnapshot {
  /** The venue's market key: beta ticker, gamma slug, delta and epsilon market id (as text). */
  market: string;
  /** The YES token ('' where the venue has none). */
  token_id: string;
  /** The book's own time (Unix ms): the payload's, else the answer's `Date`. */
  ts: number;
  /** Best first: bids descending. */
  bids: readonly BookLevel[];
  /** Best first: asks ascending. */
  asks: readonly BookLevel[];
  midpoint?: string | null;
  adjusted_midpoint?: string | null;
}

export interface RecordSnapshotsOptions {
  venue: string;
  source: BookSource;
  /** When the snapshots were recorded (Unix ms): their `observed_at` and `sequence`. */
  observedAt: number;
  /** ORDERBOOK_KEEPALIVE_S in ms. */
  keepaliveMs: number;
  /** Bumped (`books:<venue>`) when a row was written. */
  versions?: DataVersions | null;
  /** The statements' label prefix (default `<venue>.orderbooks`). */
  label?: string;
}

export interface RecordSnapshotsResult {
  written: number;
  /** Books equal to the market's last one within the keep-alive: not written. */
  unchanged: number;
}

export type OrderbookSnapshotRow = RowOf<typeof ORDERBOOK_SNAPSHOTS>;

/** The levels' identity: the first 8 bytes of the SHA-256 of the canonical book, as a decimal UInt64. */
export function bookHash(s: Pick<BookSnapshot, 'bids' | 'asks' | 'midpoint' | 'adjusted_midpoint'>): string {
  const flat = (levels: readonly BookLevel[]) => levels.map((l) => `${l.price}:${l.size}`).join(',');
  const text = `${flat(s.bids)}|${flat(s.asks)}|${s.midpoint ?? ''}|${s.adjusted_midpoint ?? ''}`;
  return BigInt(`0x${createHash('sha256').update(text).digest('hex').slice(0, 16)}`).toString();
}

/** The row of a snapshot: decimals canonical, levels as given (best first). */
export function snapshotRow(
  s: BookSnapshot,
  o: Pick<RecordSnapshotsOptions, 'venue' | 'source' | 'observedAt'>,
): OrderbookSnapshotRow {
  const bids = s.bids.map((l) => ({ price: decimal(l.price), size: decimal(l.size) }));
  const asks = s.asks.map((l) => ({ price: decimal(l.price), size: decimal(l.size) }));
  const midpoint = s.midpoint == null ? null : decimal(s.midpoint);
  const adjusted = s.adjusted_midpoint == null ? null : decimal(s.adjusted_midpoint);
  return {
    venue: o.venue,
    market: s.market,
    token_id: s.token_id,
    ts: s.ts,
    sequence: o.observedAt,
    source: o.source,
    observed_at: o.observedAt,
    bid_prices: bids.map((l) => l.price),
    bid_sizes: bids.map((l) => l.size),
    ask_prices: asks.map((l) => l.price),
    ask_sizes: asks.map((l) => l.size),
    hash: bookHash({ bids, asks, midpoint, adjusted_midpoint: adjusted }),
    midpoint,
    adjusted_midpoint: adjusted,
  };
}

/** Markets per read of the last hashes. */
const MARKETS_PER_READ = 2_000;

/**
 * Records `snapshots` (at most one per market: the last one counts) of one venue and source: each book
 * that differs from the market's last recorded one, or whose last one is older than the keep-alive.
 */
export async function recordSnapshots(
  ch: ClickHouse,
  snapshots: readonly BookSnapshot[],
  o: RecordSnapshotsOptions,
): Promise<RecordSnapshotsResult> {
  const byMarket = new Map<string, OrderbookSnapshotRow>();
  for (const s of snapshots) byMarket.set(s.market, snapshotRow(s, o));
  const label = o.label ?? `${o.venue}.orderbooks`;
  const last = new Map<string, string>();
  const markets = [...byMarket.keys()];
  for (let i = 0; i < markets.length; i += MARKETS_PER_READ) {
    const rows = await ch.query<{ market: string; hash: string }>(
      `${label}.last`,
      `SELECT market, toString(argMax(hash, observed_at)) AS hash
       FROM orderbook_snapshots
       WHERE venue = {venue:String} AND source = {source:String}
         AND market IN {markets:Array(String)}
         AND observed_at > fromUnixTimestamp64Milli({since:Int64}, 'UTC')
       GROUP BY market`,
      {
        venue: o.venue,
        source: o.source,
        markets: markets.slice(i, i + MARKETS_PER_READ),
        since: o.observedAt - o.keepaliveMs,
      },
    );
    for (const r of rows) last.set(r.market, r.hash);
  }
  const rows: OrderbookSnapshotRow[] = [];
  for (const [market, row] of byMarket) if (last.get(market) !== row.hash) rows.push(row);
  if (rows.length > 0) {
    await ch.insert(
      `${label}.insert`,
      ORDERBOOK_SNAPSHOTS.name,
      rows.map((r) => ({ ...r, ts: chTime(r.ts), observed_at: chTime(r.observed_at) })),
    );
    countRowsWritten(ORDERBOOK_SNAPSHOTS.name, rows.length);
    await o.versions?.bump(`books:${o.venue}`);
  }
  return { written: rows.length, unchanged: byMarket.size - rows.length };
}
