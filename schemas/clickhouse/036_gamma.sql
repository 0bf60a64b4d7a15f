-- Venue gamma (schemas/upstream/gamma-api.yaml, "Limitless"), from its REST ingestor (ingest/venues/gamma/):
-- one row per upstream market or group, the newest observation winning (ReplacingMergeTree by
-- observed_at; read with FINAL). `content_hash` is a SHA-256 of the row's content without observed_at:
-- a poll writes a record only when its hash differs from the stored one.
--
-- `gamma_markets`: every binary market, single ones and each market of a group, keyed by its slug. The
-- columns up to `tags` are common to every venue's markets table (docs/venues.md); the others are named as
-- the fields of GET /v2/gamma/markets they serve. Prices are 0-1 (the upstream's percents / 100); amounts
-- are USD (the upstream's collateral base units / 10^decimals). `open_interest_usd` is NULL for order-book
-- (`clob`) markets and a number for pool (`amm`) markets. `status` is open (trading), closed (expired, not
-- settled) or resolved. `event_key`/`event_title` name the group a market belongs to ('' for a single
-- market), and `group_label` is its title inside the group (NULL for a single market). Times the upstream
-- does not give are NULL; fields it does not give hold their documented defaults ('', [], NULL).
CREATE TABLE IF NOT EXISTS gamma_markets (
  slug String,
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
  condition_id String,
  market_id Nullable(UInt64),
  description String,
  trade_type LowCardinality(String),
  open_interest_usd Nullable(Float64),
  liquidity_usd Float64,
  image_url String,
  categories Array(String),
  collateral_address String,
  collateral_symbol String,
  collateral_decimals UInt8,
  market_address Nullable(String),
  exchange_address Nullable(String),
  expired Bool,
  winning_outcome Nullable(UInt8),
  payout_numerators Array(UInt32),
  resolution_block Nullable(UInt64),
  resolution_tx Nullable(String),
  expiration_time Nullable(DateTime64(3, 'UTC')),
  updated_time Nullable(DateTime64(3, 'UTC')),
  content_hash String,
  observed_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(observed_at)
ORDER BY slug
-- Small granules: a list page reads the wide columns of its rows only (lazy materialization), a
-- granule per row (docs/api.md "Venue markets").
SETTINGS index_granularity = 256;

-- `gamma_events`: the groups (an upstream `marketType: group` entry: one multi-outcome question as
-- binary order-book markets), keyed by the group's slug; `market_slugs` in the upstream's order. A single
-- market has no event. Amounts are the group's totals as served, in USD; `status` as for markets: open
-- while any market trades, resolved when all are, else closed.
CREATE TABLE IF NOT EXISTS gamma_events (
  slug String,
  id Nullable(UInt64),
  title String,
  words Array(String),
  description String,
  status LowCardinality(String),
  trade_type LowCardinality(String),
  market_slugs Array(String),
  volume_usd Float64,
  liquidity_usd Float64,
  category String,
  categories Array(String),
  tags Array(String),
  expired Bool,
  expiration_time Nullable(DateTime64(3, 'UTC')),
  created_time Nullable(DateTime64(3, 'UTC')),
  content_hash String,
  observed_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(observed_at)
ORDER BY slug;
