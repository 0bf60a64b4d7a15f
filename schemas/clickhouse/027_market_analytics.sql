-- Venue alpha's market analytics (docs/analytics.md), derived from the chain tables by the jobs of
-- analytics/: candles per token and per condition (1 minute, with 1-hour and 1-day rollups), open
-- interest changes per condition and hour, all-time totals and rolling windows per token and condition.
-- Maker fills only (each trade once), pending rows included.
--
-- Every derived row carries the `version` of the run that computed it and a `deleted` flag: a run
-- recomputes whole buckets of the keys it touches and replaces them (the newest version wins; a bucket
-- that no longer has any trade gets a deleted row), so readers use FINAL and a rerun changes nothing.
-- Small granules (1,024 rows; 256 for the hourly, daily, open-interest and totals tables, a few rows per
-- key): runs and the API read a few keys' rows at a time, and a granule is the least the engine reads.

CREATE TABLE IF NOT EXISTS alpha_token_candles_1m (
  token_id String,
  bucket DateTime('UTC'),
  open Float64,
  high Float64,
  low Float64,
  close Float64,
  first_time DateTime64(3, 'UTC'),
  last_time DateTime64(3, 'UTC'),
  usd UInt64,
  shares UInt64,
  trades UInt32,
  buys UInt32,
  sells UInt32,
  buy_usd UInt64,
  sell_usd UInt64,
  version UInt64,
  deleted UInt8
) ENGINE = ReplacingMergeTree(version, deleted)
PARTITION BY toYYYYMM(bucket)
ORDER BY (token_id, bucket)
SETTINGS index_granularity = 1024;

CREATE TABLE IF NOT EXISTS alpha_token_candles_1h (
  token_id String,
  bucket DateTime('UTC'),
  open Float64,
  high Float64,
  low Float64,
  close Float64,
  first_time DateTime64(3, 'UTC'),
  last_time DateTime64(3, 'UTC'),
  usd UInt64,
  shares UInt64,
  trades UInt32,
  buys UInt32,
  sells UInt32,
  buy_usd UInt64,
  sell_usd UInt64,
  version UInt64,
  deleted UInt8
) ENGINE = ReplacingMergeTree(version, deleted)
PARTITION BY toYear(bucket)
ORDER BY (token_id, bucket)
SETTINGS index_granularity = 256;

CREATE TABLE IF NOT EXISTS alpha_token_candles_1d (
  token_id String,
  bucket DateTime('UTC'),
  open Float64,
  high Float64,
  low Float64,
  close Float64,
  first_time DateTime64(3, 'UTC'),
  last_time DateTime64(3, 'UTC'),
  usd UInt64,
  shares UInt64,
  trades UInt32,
  buys UInt32,
  sells UInt32,
  buy_usd UInt64,
  sell_usd UInt64,
  version UInt64,
  deleted UInt8
) ENGINE = ReplacingMergeTree(version, deleted)
ORDER BY (token_id, bucket)
SETTINGS index_granularity = 256;

CREATE TABLE IF NOT EXISTS alpha_condition_candles_1m (
  condition_id String,
  bucket DateTime('UTC'),
  open Float64,
  high Float64,
  low Float64,
  close Float64,
  first_time DateTime64(3, 'UTC'),
  last_time DateTime64(3, 'UTC'),
  usd UInt64,
  shares UInt64,
  -- Σ shares × the fill's price in YES terms (a NO fill at p counts 1 − p: shares − usd), base units.
  yes_value Int64,
  yes_usd UInt64,
  no_usd UInt64,
  trades UInt32,
  buys UInt32,
  sells UInt32,
  buy_usd UInt64,
  sell_usd UInt64,
  version UInt64,
  deleted UInt8
) ENGINE = ReplacingMergeTree(version, deleted)
PARTITION BY toYYYYMM(bucket)
ORDER BY (condition_id, bucket)
SETTINGS index_granularity = 1024;

CREATE TABLE IF NOT EXISTS alpha_condition_candles_1h (
  condition_id String,
  bucket DateTime('UTC'),
  open Float64,
  high Float64,
  low Float64,
  close Float64,
  first_time DateTime64(3, 'UTC'),
  last_time DateTime64(3, 'UTC'),
  usd UInt64,
  shares UInt64,
  -- Σ shares × the fill's price in YES terms (a NO fill at p counts 1 − p: shares − usd), base units.
  yes_value Int64,
  yes_usd UInt64,
  no_usd UInt64,
  trades UInt32,
  buys UInt32,
  sells UInt32,
  buy_usd UInt64,
  sell_usd UInt64,
  version UInt64,
  deleted UInt8
) ENGINE = ReplacingMergeTree(version, deleted)
PARTITION BY toYear(bucket)
ORDER BY (condition_id, bucket)
SETTINGS index_granularity = 256;

CREATE TABLE IF NOT EXISTS alpha_condition_candles_1d (
  condition_id String,
  bucket DateTime('UTC'),
  open Float64,
  high Float64,
  low Float64,
  close Float64,
  first_time DateTime64(3, 'UTC'),
  last_time DateTime64(3, 'UTC'),
  usd UInt64,
  shares UInt64,
  -- Σ shares × the fill's price in YES terms (a NO fill at p counts 1 − p: shares − usd), base units.
  yes_value Int64,
  yes_usd UInt64,
  no_usd UInt64,
  trades UInt32,
  buys UInt32,
  sells UInt32,
  buy_usd UInt64,
  sell_usd UInt64,
  version UInt64,
  deleted UInt8
) ENGINE = ReplacingMergeTree(version, deleted)
ORDER BY (condition_id, bucket)
SETTINGS index_granularity = 256;

-- Open interest changes per condition and hour by the oi-subgraph's rules (reference alpha-chain §7.2),
-- in base units: Σ over the hour of every counted split, merge, redemption and conversion.
CREATE TABLE IF NOT EXISTS alpha_oi_deltas_1h (
  condition_id String,
  bucket DateTime('UTC'),
  delta Int64,
  events UInt32,
  version UInt64,
  deleted UInt8
) ENGINE = ReplacingMergeTree(version, deleted)
ORDER BY (condition_id, bucket)
SETTINGS index_granularity = 256;

-- All-time figures per token and per condition; a token row carries its condition's open interest.
CREATE TABLE IF NOT EXISTS alpha_market_totals (
  level Enum8('token' = 1, 'condition' = 2),
  id String,
  volume UInt64,
  buy_volume UInt64,
  sell_volume UInt64,
  trades UInt64,
  buys UInt64,
  sells UInt64,
  first_trade_time Nullable(DateTime64(3, 'UTC')),
  last_trade_time Nullable(DateTime64(3, 'UTC')),
  open_interest Int64,
  version UInt64,
  deleted UInt8
) ENGINE = ReplacingMergeTree(version, deleted)
ORDER BY (level, id)
SETTINGS index_granularity = 256;

-- SPEC's MarketRollingMetrics per token and per condition over (now − W, now] at 1-minute resolution,
-- now = computed_at = the newest ingested block's time; volumes in base units.
CREATE TABLE IF NOT EXISTS alpha_market_rolling (
  level Enum8('token' = 1, 'condition' = 2),
  id String,
  volume_1d UInt64,
  volume_7d UInt64,
  volume_30d UInt64,
  buy_volume_1d UInt64,
  buy_volume_7d UInt64,
  buy_volume_30d UInt64,
  sell_volume_1d UInt64,
  sell_volume_7d UInt64,
  sell_volume_30d UInt64,
  trades_1d UInt64,
  trades_7d UInt64,
  trades_30d UInt64,
  buys_1d UInt64,
  buys_7d UInt64,
  buys_30d UInt64,
  sells_1d UInt64,
  sells_7d UInt64,
  sells_30d UInt64,
  oi_change_1d Int64,
  oi_change_7d Int64,
  oi_change_30d Int64,
  computed_at DateTime64(3, 'UTC'),
  version UInt64,
  deleted UInt8
) ENGINE = ReplacingMergeTree(version, deleted)
ORDER BY (level, id)
SETTINGS index_granularity = 1024;
