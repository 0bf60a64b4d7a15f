-- The tick datasets' manifest (docs/ticks.md): the Parquet parts `ticks.compact` wrote for each final day
-- of each dataset (analytics/ticks/), read by `GET /v2/data/ticks`.
--
-- tick_parts: one row per part file of a day: `path` relative to TICKS_DIR, its rows and bytes, the range
-- of its tickers (id_min, id_max: the parts of a day are cut at ticker boundaries where they can be) and
-- of its timestamps, and the SHA-256 of the file. A recompaction rewrites the rows of its day (the newest
-- `compacted_at` wins, read with FINAL); parts numbered at or above its day's `parts` are left over from
-- an earlier compaction and are not served.
CREATE TABLE IF NOT EXISTS tick_parts (
  dataset LowCardinality(String),
  date Date,
  part UInt32,
  path String,
  rows UInt64,
  bytes UInt64,
  id_min String,
  id_max String,
  ts_min DateTime64(3, 'UTC'),
  ts_max DateTime64(3, 'UTC'),
  sha256 String,
  compacted_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(compacted_at)
ORDER BY (dataset, date, part);

-- tick_days: one row per compacted day of a dataset, written after its parts (a day without this row was
-- not compacted, whatever tick_parts holds): how many parts it has (0 for a final day without rows), its
-- rows and bytes. The first and last days of a dataset here are what the API calls its first day and its
-- latest final day.
CREATE TABLE IF NOT EXISTS tick_days (
  dataset LowCardinality(String),
  date Date,
  parts UInt32,
  rows UInt64,
  bytes UInt64,
  compacted_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(compacted_at)
ORDER BY (dataset, date);

-- tick_books: the book of each ticker at the END of a compacted day (a dataset with books: `beta`), one
-- row per level, so that the next day opens on it instead of reading the whole history before it. Written
-- by the compaction of `date` after its parts; a recompaction writes a new set (its `compacted_at`): the
-- set read is the newest one of the day (levels of an older set are not in it).
CREATE TABLE IF NOT EXISTS tick_books (
  dataset LowCardinality(String),
  date Date,
  ticker String,
  side LowCardinality(String),
  price Decimal(18, 6),
  size Decimal(18, 6),
  compacted_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(compacted_at)
ORDER BY (dataset, date, ticker, side, price);
