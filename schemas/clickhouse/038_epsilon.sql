-- Venue epsilon (schemas/upstream/epsilon-api.yaml, "Probable"), from its REST ingestor
-- (ingest/venues/epsilon/): one row per upstream market, event and tag, the newest observation winning
-- (ReplacingMergeTree by observed_at; read with FINAL). `content_hash` is a SHA-256 of the row's content
-- without observed_at: a poll writes a record only when its hash differs from the stored one.
--
-- `epsilon_markets`: every market of /public/api/v1/markets/, keyed by its numeric `id`. The columns up
-- to `tags` are common to every venue's markets table (docs/venues.md); the others are named as the
-- fields of GET /v2/epsilon/markets they serve. `prices` are the served `outcomePrices` (0-1);
-- `best_bid`/`best_ask` the listing's (the YES token's); `outcome_best_bids`/`outcome_best_asks` and
-- `bid_depth`/`ask_depth` (total contracts on each side of the YES token's book) come from /book, read for
-- open markets only (a market not trading has an empty book: nulls and 0). `status` is open (active),
-- closed (closed, no winner yet) or resolved (closed with a `winningOutcome`). `event_key` is the event's
-- id, `event_slug`/`event_title`/`is_neg_risk`/`tags` come from that event, `group_label` is the market's
-- `groupItemTitle` in an event of several markets. `created_time` is the market's `startDate`. Fields
-- the upstream does not serve hold their documented defaults: `market_variant` '', `image_url` '',
-- `is_yield_bearing` false, `resolution_block`/`resolution_tx`/`updated_time` NULL.
CREATE TABLE IF NOT EXISTS epsilon_markets (
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
  market_slug String,
  condition_id String,
  question_id String,
  description String,
  market_variant LowCardinality(String),
  best_bid Nullable(Float64),
  best_ask Nullable(Float64),
  outcome_best_bids Array(Nullable(Float64)),
  outcome_best_asks Array(Nullable(Float64)),
  bid_depth Float64,
  ask_depth Float64,
  last_trade_price Nullable(Float64),
  is_yield_bearing Bool,
  is_neg_risk Bool,
  event_slug String,
  image_url String,
  winning_outcome Nullable(UInt8),
  payout_numerators Array(UInt32),
  resolution_block Nullable(UInt64),
  resolution_tx Nullable(String),
  resolved_time Nullable(DateTime64(3, 'UTC')),
  updated_time Nullable(DateTime64(3, 'UTC')),
  content_hash String,
  observed_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(observed_at)
ORDER BY market_id
-- Small granules: a list page reads the wide columns of its rows only (lazy materialization), a
-- granule per row (docs/api.md "Venue markets").
SETTINGS index_granularity = 256;

-- `epsilon_events`: the events of /public/api/v1/events/, keyed by their numeric `id`; `market_ids` in the
-- upstream's order, `tags` the tag labels. `status` open while a market trades, resolved when every
-- market is, else closed (from the markets as served).
CREATE TABLE IF NOT EXISTS epsilon_events (
  event_id UInt64,
  slug String,
  title String,
  words Array(String),
  description String,
  status LowCardinality(String),
  market_ids Array(String),
  volume_usd Float64,
  neg_risk Bool,
  tags Array(String),
  start_time Nullable(DateTime64(3, 'UTC')),
  end_time Nullable(DateTime64(3, 'UTC')),
  created_time Nullable(DateTime64(3, 'UTC')),
  content_hash String,
  observed_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(observed_at)
ORDER BY event_id;

-- `epsilon_tags`: /public/api/v1/tags/, keyed by the tag's numeric `id`.
CREATE TABLE IF NOT EXISTS epsilon_tags (
  tag_id UInt64,
  label String,
  slug String,
  content_hash String,
  observed_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(observed_at)
ORDER BY tag_id;
