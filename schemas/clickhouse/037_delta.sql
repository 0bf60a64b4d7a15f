-- Venue delta (schemas/upstream/delta-api.yaml, "Opinion"), from its REST ingestor (ingest/venues/delta/):
-- one row per upstream market, the newest observation winning (ReplacingMergeTree by observed_at; read
-- with FINAL). `content_hash` is a SHA-256 of the row's content without observed_at: a poll writes a
-- record only when its hash differs from the stored one.
--
-- `delta_markets`: every binary market, a categorical market's `childMarkets` included (those are the
-- markets; the categorical parent is their event, `delta_events`), keyed by the upstream's `marketId`.
-- The columns up to `tags` are common to every venue's markets table (docs/venues.md); the others are
-- named as the fields of GET /v2/delta/markets they serve. Prices are 0-1 (the YES token's latest trade
-- price from /token/latest-price, NO = 1 - YES; 1/0 by `resultTokenId` once resolved); amounts are the
-- upstream's decimal USD strings as numbers. `status` is open (Activated), closed (Created, Resolving,
-- Failed, Deleted) or resolved (Resolved). `market_type` is binary (a market of its own) or categorical
-- (an alternative of a categorical parent: `event_id`/`event_key` = the parent's marketId, `event_title`
-- its title, `group_label` the child's `marketTitle`). Fields the upstream does not serve hold their
-- documented defaults: `slug`, `event_slug`, `thumbnail_url` '' and `labels` [].
CREATE TABLE IF NOT EXISTS delta_markets (
  market_id UInt64,
  title String,
  words Array(String),
  status LowCardinality(String),
  outcomes Array(String),
  token_ids Array(String),
  prices Array(Nullable(Float64)),
  volume_usd Float64,
  end_time Nullable(DateTime64(3, 'UTC')),
  created_time Nullable(DateTime64(3, 'UTC')),
  event_key String,
  event_title String,
  group_label Nullable(String),
  category String,
  tags Array(String),
  slug String,
  description String,
  market_type LowCardinality(String),
  volume_24h_usd Float64,
  volume_7d_usd Float64,
  condition_id String,
  question_id String,
  result_token_id Nullable(String),
  event_id Nullable(UInt64),
  event_slug Nullable(String),
  labels Array(String),
  thumbnail_url String,
  chain_id String,
  quote_token String,
  collection_title String,
  collection_symbol String,
  collection_frequency String,
  cutoff_time Nullable(DateTime64(3, 'UTC')),
  resolved_time Nullable(DateTime64(3, 'UTC')),
  content_hash String,
  observed_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(observed_at)
ORDER BY market_id
-- Small granules: a list page reads the wide columns of its rows only (lazy materialization), a
-- granule per row (docs/api.md "Venue markets").
SETTINGS index_granularity = 256;

-- `delta_events`: the categorical markets (upstream `marketType: 1`), keyed by their `marketId`;
-- `market_ids` are the child markets' ids in the upstream's order. Amounts are the parent's totals as
-- served, in USD; `status` from the parent's upstream status like a market's.
CREATE TABLE IF NOT EXISTS delta_events (
  event_id UInt64,
  title String,
  words Array(String),
  description String,
  status LowCardinality(String),
  market_ids Array(String),
  volume_usd Float64,
  volume_24h_usd Float64,
  volume_7d_usd Float64,
  chain_id String,
  quote_token String,
  created_time Nullable(DateTime64(3, 'UTC')),
  cutoff_time Nullable(DateTime64(3, 'UTC')),
  resolved_time Nullable(DateTime64(3, 'UTC')),
  content_hash String,
  observed_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(observed_at)
ORDER BY event_id;
