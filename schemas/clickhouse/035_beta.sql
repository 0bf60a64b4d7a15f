-- Venue beta (schemas/upstream/beta-api.yaml, "Kalshi"), from its REST ingestor (ingest/venues/beta/): one
-- row per upstream market, event or series, the newest observation winning (ReplacingMergeTree by
-- observed_at; read with FINAL), and one row per trade. `content_hash` is a SHA-256 of the row's content
-- without observed_at: a poll writes a record only when its hash differs from the stored one.
--
-- `beta_markets`: every market, keyed by its ticker. The columns up to `tags` are common to every venue's
-- markets table (docs/venues.md); the others are named as the fields of GET /v2/beta/markets they serve.
-- Prices are 0-1 (the upstream's `*_dollars` strings); `volume` and `open_interest` are contracts (the
-- upstream's fixed-point `volume_fp`, `open_interest_fp`, fractional when trading is); `dollar_volume` and
-- `dollar_open_interest` are contracts x `notional_value_dollars`, floored to whole dollars. `status` is
-- open (initialized or active upstream), closed, or resolved (determined or finalized). `last_price` and
-- `prices` are NULL while the market has no trade. `category` is its event's category, `tags` its series'
-- tags; `group_label` is `yes_subtitle` when the event is mutually exclusive with more than one market.
CREATE TABLE IF NOT EXISTS beta_markets (
  ticker String,
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
  yes_subtitle String,
  no_subtitle String,
  result Nullable(String),
  open_time Nullable(DateTime64(3, 'UTC')),
  close_time Nullable(DateTime64(3, 'UTC')),
  expected_expiration_time Nullable(DateTime64(3, 'UTC')),
  settlement_time Nullable(DateTime64(3, 'UTC')),
  determination_time Nullable(DateTime64(3, 'UTC')),
  can_close_early Bool,
  strike_type Nullable(String),
  custom_strike Nullable(String),
  last_price Nullable(Float64),
  yes_bid Nullable(Float64),
  yes_ask Nullable(Float64),
  no_bid Nullable(Float64),
  no_ask Nullable(Float64),
  volume Float64,
  open_interest Float64,
  dollar_volume Float64,
  dollar_open_interest Float64,
  series_ticker String,
  event_subtitle String,
  updated_time Nullable(DateTime64(3, 'UTC')),
  content_hash String,
  observed_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(observed_at)
ORDER BY ticker
-- Small granules: a list page reads the wide columns of its rows only (lazy materialization), a
-- granule per row (docs/api.md "Venue markets").
SETTINGS index_granularity = 256;

-- `beta_events`: the events (one question, one or more markets), keyed by event_ticker. `market_tickers`
-- are the tickers of its stored markets (sorted); `status` is open while any of them is open, resolved when
-- all are, else closed; `volume` is their contracts traded, `dollar_volume` their whole dollars.
CREATE TABLE IF NOT EXISTS beta_events (
  event_ticker String,
  series_ticker String,
  title String,
  words Array(String),
  subtitle String,
  category String,
  mutually_exclusive Bool,
  collateral_return_type LowCardinality(String),
  strike_date Nullable(DateTime64(3, 'UTC')),
  status LowCardinality(String),
  market_tickers Array(String),
  volume Float64,
  dollar_volume Float64,
  content_hash String,
  observed_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(observed_at)
ORDER BY event_ticker;

-- `beta_series`: the series (templates of recurring events), keyed by ticker; `volume` is the contracts
-- traded over all its markets as served (`include_volume`).
CREATE TABLE IF NOT EXISTS beta_series (
  ticker String,
  title String,
  words Array(String),
  frequency LowCardinality(String),
  category String,
  tags Array(String),
  settlement_sources Array(String),
  contract_url String,
  contract_terms_url String,
  fee_type LowCardinality(String),
  fee_multiplier Float64,
  volume Float64,
  content_hash String,
  observed_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(observed_at)
ORDER BY ticker;

-- `beta_trades`: one row per trade (`count` in contracts, fractional when `count_fp` is; prices 0-1 of
-- each side; `taker_side` yes|no). The ingestor inserts only trade ids not yet stored, so the table holds
-- each trade once even before merges.
CREATE TABLE IF NOT EXISTS beta_trades (
  trade_id String,
  ticker String,
  count Float64,
  yes_price Float64,
  no_price Float64,
  taker_side LowCardinality(String),
  created_time DateTime64(3, 'UTC'),
  observed_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(observed_at)
ORDER BY (ticker, created_time, trade_id);
