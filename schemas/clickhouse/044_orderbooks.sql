-- Order book history of every venue (docs/orderbooks.md).
--
-- orderbook_snapshots: one row per recorded book of beta, gamma, delta and epsilon (alpha's history is
-- alpha_book_quotes). Each row is the YES book: bids best first (price descending), asks best first
-- (ascending), prices in dollars 0..1 and sizes as exact decimals (beta's YES asks are 1 − its NO bids).
-- `ts` is the book's own time (the payload's), else the answer's `Date`; `sequence` increases per market
-- and source (the Unix ms the snapshot was recorded); `source` is `rest` (a poll) or `ws` (a book rebuilt
-- from beta's feed); `hash` identifies the levels (an unchanged book is recorded once per keep-alive);
-- gamma's midpoints, null elsewhere. The TTL (ORDERBOOK_TTL_DAYS) is applied from configuration, not here.
CREATE TABLE IF NOT EXISTS orderbook_snapshots (
  venue LowCardinality(String),
  market String,
  token_id String,
  ts DateTime64(3, 'UTC') CODEC(Delta, ZSTD(3)),
  sequence UInt64 CODEC(Delta, ZSTD(3)),
  source LowCardinality(String),
  observed_at DateTime64(3, 'UTC') CODEC(Delta, ZSTD(3)),
  bid_prices Array(Decimal(18, 6)) CODEC(ZSTD(3)),
  bid_sizes Array(Decimal(18, 6)) CODEC(ZSTD(3)),
  ask_prices Array(Decimal(18, 6)) CODEC(ZSTD(3)),
  ask_sizes Array(Decimal(18, 6)) CODEC(ZSTD(3)),
  hash UInt64,
  midpoint Nullable(Decimal(18, 6)),
  adjusted_midpoint Nullable(Decimal(18, 6)),
  INDEX observed observed_at TYPE minmax GRANULARITY 1
) ENGINE = MergeTree
PARTITION BY (venue, toYYYYMM(ts))
ORDER BY (venue, market, ts, sequence);

-- The payload's tick size of alpha's books ('' for rows observed before this column).
ALTER TABLE alpha_book_quotes ADD COLUMN IF NOT EXISTS tick_size String DEFAULT '';

-- beta's book feed tick by tick (ingest/venues/beta/feed.ts): one row per level of an
-- `orderbook_snapshot` message (is_snapshot, delta = the level's size; resync when it re-snapshots after a
-- gap or reconnect) and one per `orderbook_delta` (delta = the signed change of the level's size).
-- side yes|no are bids of that side (a YES ask is 1 − a NO bid); price in dollars, delta in contracts.
-- ts is the message's time (the upstream's `ts`, else when it arrived); (sid, seq) the upstream's
-- subscription and sequence; received_at when the feed read it.
CREATE TABLE IF NOT EXISTS beta_book_ticks (
  ticker String,
  ts DateTime64(3, 'UTC') CODEC(Delta, ZSTD(3)),
  sid UInt32,
  seq UInt64 CODEC(Delta, ZSTD(3)),
  side Enum8('yes' = 1, 'no' = 2),
  price Decimal(9, 4),
  delta Decimal(18, 2),
  is_snapshot Bool,
  resync Bool,
  received_at DateTime64(3, 'UTC') CODEC(Delta, ZSTD(3))
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMMDD(ts)
ORDER BY (ticker, ts, sid, seq, side, price);
