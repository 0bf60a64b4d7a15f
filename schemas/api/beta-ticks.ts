/**
 * Venue beta's tick datasets (docs/ticks.md; the generic contract is schemas/ticks.ts), listed in its
 * contract (schemas/venues/beta.ts `ticks`):
 * - `beta`: its book feed (beta_book_ticks) as signed size deltas, each day opening with every ticker's
 *   book as of the day's start (is_snapshot rows at sequence 0, rebuilt from the ticks before the day);
 * - `beta_snapshots`: every level of its recorded snapshots (orderbook_snapshots), one row per level.
 *
 * `sequence` of `beta` is the message's number within its ticker's day: 0 for the opening book, then 1, 2,
 * … for each feed message of the day in feed order (ts, then the upstream's subscription and seq); the
 * rows of one snapshot message (its levels) share it. A reader applies the rows of a ticker in order: an
 * is_snapshot message replaces the ticker's book (the opening one, or a re-snapshot after a gap:
 * `resync`), any other row adds `delta` to the level (side, price); a level at 0 is gone.
 */
import { type TickDataset, tickColumns } from '../ticks.ts';

/** The day's bounds as DateTime64 (the statements' `{start:Int64}` and `{end:Int64}`, Unix ms). */
const DAY = `fromUnixTimestamp64Milli({start:Int64}, 'UTC') AS day_start,
  fromUnixTimestamp64Milli({end:Int64}, 'UTC') AS day_end`;

/**
 * Each ticker's book at the day's start (`ticker, side, price, size`): the previous day's closing book when
 * it was carried (`tick_books`, its newest set), else rebuilt from the history: the levels of the ticker's
 * last snapshot before the day plus every delta after it (a ticker never snapshotted: every delta), the
 * levels left above 0.
 */
function openingBook(ids: (column: string) => string, carried: boolean): string {
  if (carried) {
    return `SELECT ticker, toString(side) AS side, price, size FROM tick_books
    WHERE dataset = 'beta' AND date = toDate({prev:String}) AND ${ids('ticker')}
      AND compacted_at = (SELECT max(compacted_at) FROM tick_books WHERE dataset = 'beta' AND date = toDate({prev:String}))`;
  }
  return `SELECT t.ticker AS ticker, toString(t.side) AS side, t.price AS price, sum(t.delta) AS size
    FROM (SELECT ticker, ts, sid, seq, side, price, delta FROM beta_book_ticks FINAL
          WHERE ts < day_start AND ${ids('ticker')}) AS t
    LEFT JOIN (
      SELECT ticker, max((ts, sid, seq)) AS last_snapshot FROM beta_book_ticks FINAL
      WHERE is_snapshot AND ts < day_start AND ${ids('ticker')}
      GROUP BY ticker
    ) AS s ON s.ticker = t.ticker
    WHERE (t.ts, t.sid, t.seq) >= s.last_snapshot
    GROUP BY t.ticker, t.side, t.price
    HAVING size > 0`;
}

export const BETA_TICKS: TickDataset = {
  name: 'beta',
  about:
    "beta's order book feed: signed size deltas of the YES and NO bids, each day opening with every ticker's book",
  // Keyed by name: the column `delta` is a word here, not the venue of that code.
  columns: tickColumns({
    ticker: ['string', 'The market ticker'],
    timestamp: ['int64', 'Unix ms, UTC: the message time (the day start for the opening book)'],
    sequence: [
      'uint32',
      "The message's number within the ticker's day: 0 the opening book, then 1, 2, … in feed order; the levels of one snapshot share it",
    ],
    side: ['string', 'yes | no: bids of that side (a YES ask is 1 − a NO bid)'],
    price: ['decimal(9,4)', 'Dollars, 0–1'],
    delta: [
      'decimal(18,2)',
      "Contracts: the signed change of the level's size; a snapshot row: the level's size",
    ],
    is_snapshot: ['bool', "A row of a book snapshot: the message's rows replace the ticker's book"],
    resync: ['bool', 'A re-snapshot after a sequence gap or a reconnect'],
  }),
  sortOrder: ['ticker', 'timestamp', 'sequence', 'side', 'price'],
  bounds: `SELECT toInt64(toUnixTimestamp64Milli(min(ts))) AS first_ms,
  toInt64(toUnixTimestamp64Milli(max(ts))) AS last_ms, count() AS n
FROM beta_book_ticks`,
  rows: (ids, carried) => `WITH ${DAY}
SELECT ticker, timestamp, sequence, side, price, delta, is_snapshot, resync FROM (
  SELECT ticker, {start:Int64} AS timestamp, toUInt32(0) AS sequence, side,
         CAST(price AS Decimal(9, 4)) AS price, CAST(size AS Decimal(18, 2)) AS delta,
         true AS is_snapshot, false AS resync
  FROM (${openingBook(ids, carried)})
  UNION ALL
  SELECT ticker, toInt64(toUnixTimestamp64Milli(ts)) AS timestamp,
         toUInt32(dense_rank() OVER (PARTITION BY ticker ORDER BY ts, sid, seq)) AS sequence,
         toString(side) AS side, price, delta, is_snapshot, resync
  FROM beta_book_ticks FINAL
  WHERE ts >= day_start AND ts < day_end AND ${ids('ticker')}
)`,
  // The books at the day's end: per ticker, its last snapshot message of the day and every delta after
  // it, or without one the opening book and every delta of the day; the levels left above 0.
  closing: (ids, carried) => `WITH ${DAY}
SELECT r.ticker AS ticker, r.side AS side, r.price AS price, sum(r.size) AS size
FROM (
  SELECT ticker, side, CAST(price AS Decimal(9, 4)) AS price, CAST(size AS Decimal(18, 2)) AS size,
         toDateTime64(0, 3, 'UTC') AS ts, toUInt32(0) AS sid, toUInt64(0) AS seq
  FROM (${openingBook(ids, carried)})
  UNION ALL
  SELECT ticker, toString(side) AS side, price, delta AS size, ts, sid, seq
  FROM beta_book_ticks FINAL
  WHERE ts >= day_start AND ts < day_end AND ${ids('ticker')}
) AS r
LEFT JOIN (
  SELECT ticker, max((ts, sid, seq)) AS last_snapshot FROM beta_book_ticks FINAL
  WHERE is_snapshot AND ts >= day_start AND ts < day_end AND ${ids('ticker')}
  GROUP BY ticker
) AS l ON l.ticker = r.ticker
WHERE (r.ts, r.sid, r.seq) >= l.last_snapshot
GROUP BY r.ticker, r.side, r.price
HAVING size > 0`,
};

export const BETA_SNAPSHOT_TICKS: TickDataset = {
  name: 'beta_snapshots',
  about: "beta's recorded order book snapshots: one row per resting level of the YES book",
  columns: [
    { name: 'ticker', type: 'string', description: 'The market ticker' },
    { name: 'timestamp', type: 'int64', description: "Unix ms, UTC: the book's time" },
    {
      name: 'sequence',
      type: 'uint64',
      description: "The snapshot's sequence (increasing per ticker and source: the Unix ms it was recorded)",
    },
    { name: 'source', type: 'string', description: 'rest (a poll) | ws (a book rebuilt from the feed)' },
    { name: 'side', type: 'string', description: 'bid | ask of the YES book (a YES ask is 1 − a NO bid)' },
    { name: 'level', type: 'uint16', description: '1 = the best level of its side, then 2, 3, …' },
    { name: 'price', type: 'decimal(18,6)', description: 'Dollars, 0–1' },
    { name: 'size', type: 'decimal(18,6)', description: 'Contracts resting at the level' },
  ],
  sortOrder: ['ticker', 'timestamp', 'sequence', 'source', 'side', 'level'],
  bounds: `SELECT toInt64(toUnixTimestamp64Milli(min(ts))) AS first_ms,
  toInt64(toUnixTimestamp64Milli(max(ts))) AS last_ms, count() AS n
FROM orderbook_snapshots WHERE venue = 'beta'`,
  rows: (ids) => `WITH ${DAY}
SELECT ticker, timestamp, sequence, source, l.1 AS side, l.2 AS level, l.3 AS price, l.4 AS size FROM (
  SELECT market AS ticker, toInt64(toUnixTimestamp64Milli(ts)) AS timestamp, sequence,
         toString(source) AS source,
         arrayJoin(arrayConcat(
           arrayMap((p, s, i) -> ('bid', toUInt16(i), p, s), bid_prices, bid_sizes, arrayEnumerate(bid_prices)),
           arrayMap((p, s, i) -> ('ask', toUInt16(i), p, s), ask_prices, ask_sizes, arrayEnumerate(ask_prices))
         )) AS l
  FROM orderbook_snapshots
  WHERE venue = 'beta' AND ts >= day_start AND ts < day_end AND ${ids('market')}
)`,
};

export const BETA_TICK_DATASETS = [BETA_TICKS, BETA_SNAPSHOT_TICKS] as const;
