-- The market list again, in granules of 64 rows instead of 8,192: the markets endpoints choose a page's
-- ids from the narrow filter and sort columns, then read the `doc` (1–3 KB of JSON) of those ids by the
-- primary key, and a read by key decompresses every granule holding one of them. A page's ids are spread
-- over the whole table, so with 8,192-row granules a page of 20 read ~20 granules × 8,192 docs (most of
-- the column); with 64 it reads ~20 × 64 (docs/decisions.md). index_granularity cannot be altered, and
-- the list is derived (rebuilt whole by the catalog build), so the table is dropped and created again,
-- empty until the next build; its `_next` twin goes too, since the build creates it `AS` the table.

DROP TABLE IF EXISTS alpha_market_list_next SYNC;

DROP TABLE IF EXISTS alpha_market_list SYNC;

CREATE TABLE IF NOT EXISTS alpha_market_list (
  market_id String,
  condition_id String,
  question_id String,
  slug String,
  event_id String,
  event_slug String,
  title String,
  words Array(String),
  status LowCardinality(String),
  token_ids Array(String),
  canonical_ids Array(String),
  tags Array(String),
  price Nullable(Float64),
  volume Float64,
  liquidity Float64,
  open_interest Float64,
  volume_1d Float64,
  volume_7d Float64,
  volume_30d Float64,
  trades_1d UInt64,
  trades_7d UInt64,
  trades_30d UInt64,
  oi_change_1d Float64,
  oi_change_7d Float64,
  oi_change_30d Float64,
  created_at Nullable(DateTime64(3, 'UTC')),
  end_date Nullable(DateTime64(3, 'UTC')),
  doc String
) ENGINE = MergeTree
ORDER BY market_id
SETTINGS index_granularity = 64;
