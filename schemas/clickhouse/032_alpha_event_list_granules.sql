-- The event list again, in granules of 64 rows instead of 8,192 (as 031 does for the market list): the
-- events endpoints choose a page's ids from the narrow filter and sort columns, then read the `doc` (1–2
-- KB of JSON) of those ids by the primary key, and a read by key decompresses every granule holding one
-- of them. A page's ids are spread over the whole table: at 20,000 events (3 granules of 8,192) the page
-- read took 17–30 ms against 10–11 ms in granules of 64 (docs/decisions.md). index_granularity cannot be
-- altered, and the list is derived (rebuilt whole by the catalog build), so the table is dropped and
-- created again, empty until the next build; its `_next` twin goes too, since the build creates it `AS`
-- the table.

DROP TABLE IF EXISTS alpha_event_list_next SYNC;

DROP TABLE IF EXISTS alpha_event_list SYNC;

CREATE TABLE IF NOT EXISTS alpha_event_list (
  event_id String,
  slug String,
  title String,
  words Array(String),
  category String,
  category_slug String,
  status LowCardinality(String),
  tags Array(String),
  series_slugs Array(String),
  created_at Nullable(DateTime64(3, 'UTC')),
  start_date Nullable(DateTime64(3, 'UTC')),
  end_date Nullable(DateTime64(3, 'UTC')),
  market_count UInt32,
  volume Float64,
  liquidity Float64,
  open_interest Float64,
  volume_1d Float64,
  volume_7d Float64,
  volume_30d Float64,
  trades_1d UInt64,
  trades_7d UInt64,
  trades_30d UInt64,
  trades_all_time UInt64,
  doc String
) ENGINE = MergeTree
ORDER BY event_id
SETTINGS index_granularity = 64;
