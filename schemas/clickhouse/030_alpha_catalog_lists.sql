-- Venue alpha's catalog as the API serves it (analytics/catalog/, job analytics.alpha-catalog-rollups): one
-- denormalized row per event, market, series, tag and category, rebuilt whole from the catalog tables
-- (028), the book quotes (029), the chain's resolutions and the market analytics (027). A build fills
-- the `*_next` twin of each table and swaps them with EXCHANGE TABLES, so a reader sees one complete build
-- or the one before, never a mix. `doc` is the resource as the API returns it (JSON of SPEC's Market, or
-- Event without `markets`); the other columns are what the list endpoints filter and sort on. `words`
-- are the title's (label's) lowercase words (core/search-words.ts), the `search` parameters' haystack.
-- Money is USD (Float64), counts are integers.
-- The event and market lists are in granules of 64 rows, not 8,192: a page sorts on the narrow filter
-- and sort columns and reads the `doc` (1–3 KB of JSON) of its rows only, and those rows lie all over the
-- table; each costs the decompression of its granule. The market list is ordered by event, so an events
-- page's nested markets are read by key (docs/decisions.md). An event row also carries the docs of its
-- first 50 markets by volume (descending, ties by market id; `markets`): the events page with nested
-- markets reads them with the page, in one statement.

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
ORDER BY (event_id, market_id)
SETTINGS index_granularity = 64;

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
  doc String,
  markets Array(String)
) ENGINE = MergeTree
ORDER BY event_id
SETTINGS index_granularity = 64;

CREATE TABLE IF NOT EXISTS alpha_series_list (
  series_id String,
  slug String,
  recurrence String,
  active Bool,
  event_count UInt32,
  open_event_count UInt32,
  volume Float64,
  liquidity Float64,
  trades_all_time UInt64,
  doc String
) ENGINE = MergeTree
ORDER BY series_id;

-- `parent_slug`, `children` and `subtag_count` come from the tag relations (docs/catalog.md "Tag hierarchy").
CREATE TABLE IF NOT EXISTS alpha_tag_list (
  tag_id String,
  slug String,
  label String,
  words Array(String),
  is_category Bool,
  parent_slug Nullable(String),
  children Array(String),
  subtag_count UInt32,
  event_count UInt32,
  open_event_count UInt32,
  market_count UInt32,
  volume Float64,
  liquidity Float64,
  trades_all_time UInt64
) ENGINE = MergeTree
ORDER BY tag_id;

CREATE TABLE IF NOT EXISTS alpha_category_list (
  category String,
  slug String,
  event_count UInt32,
  open_event_count UInt32,
  market_count UInt32,
  volume Float64,
  liquidity Float64,
  trades_all_time UInt64
) ENGINE = MergeTree
ORDER BY slug;
