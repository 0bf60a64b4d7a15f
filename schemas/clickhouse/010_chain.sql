-- Venue alpha on chain (issue 4). Column meanings and access paths: docs/chain-ingestion.md.
-- Conventions: addresses, hashes and bytes32 values are lowercase 0x-hex strings; token ids and other
-- uint256 ids are decimal strings; amounts are integers in 6-decimal base units; block_time is UTC.
-- Natural key of every event row: (chain_id, tx_hash, log_index) (+ batch_index for ERC-1155 batches).
-- Rows are written by block range with delete-then-insert, so re-ingesting a range changes nothing;
-- the Replacing engines are a second guard against a duplicate insert (reads may add FINAL).

-- One row per OrderFilled (V1 and V2 exchanges, standard and neg-risk).
CREATE TABLE IF NOT EXISTS alpha_fills (
  chain_id UInt32,
  block_number UInt64,
  block_hash String,
  block_time DateTime64(3, 'UTC'),
  tx_hash String,
  log_index UInt32,
  exchange String,
  exchange_version UInt8,
  neg_risk Bool,
  order_hash String,
  maker String,
  taker String,
  role Enum8('maker' = 1, 'taker' = 2),
  side Enum8('BUY' = 1, 'SELL' = 2),
  token_id String,
  condition_id String,
  outcome_index Int8,
  maker_amount UInt64,
  taker_amount UInt64,
  shares UInt64,
  usd UInt64,
  price Float64,
  fee UInt64,
  fee_asset Enum8('shares' = 1, 'collateral' = 2),
  builder String,
  metadata String,
  status Enum8('pending' = 0, 'confirmed' = 1),
  INDEX idx_tx_hash tx_hash TYPE bloom_filter(0.001) GRANULARITY 1,
  INDEX idx_order_hash order_hash TYPE bloom_filter(0.001) GRANULARITY 1,
  INDEX idx_condition_id condition_id TYPE bloom_filter(0.01) GRANULARITY 1,
  INDEX idx_builder builder TYPE bloom_filter(0.01) GRANULARITY 1,
  INDEX idx_block_time block_time TYPE minmax GRANULARITY 1,
  PROJECTION by_token (SELECT * ORDER BY token_id, block_number, log_index)
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(block_time)
ORDER BY (maker, block_number, chain_id, tx_hash, log_index)
SETTINGS index_granularity = 1024, deduplicate_merge_projection_mode = 'rebuild',
  lightweight_mutation_projection_mode = 'rebuild';

-- SPLIT, MERGE, REDEEM, CONVERT by the real user (adapter-mediated actions attributed to the user).
CREATE TABLE IF NOT EXISTS alpha_activity (
  chain_id UInt32,
  block_number UInt64,
  block_hash String,
  block_time DateTime64(3, 'UTC'),
  tx_hash String,
  log_index UInt32,
  type Enum8('SPLIT' = 1, 'MERGE' = 2, 'REDEEM' = 3, 'CONVERT' = 4),
  version UInt8,
  neg_risk Bool,
  wallet String,
  stakeholder String,
  contract String,
  condition_id Nullable(String),
  market_id Nullable(String),
  neg_risk_market_id Nullable(String),
  index_set Nullable(String),
  collateral_token String,
  partition Array(String),
  amounts Array(UInt64),
  amount UInt64,
  payout UInt64,
  status Enum8('pending' = 0, 'confirmed' = 1),
  INDEX idx_tx_hash tx_hash TYPE bloom_filter(0.001) GRANULARITY 1,
  INDEX idx_condition_id condition_id TYPE bloom_filter(0.01) GRANULARITY 1,
  INDEX idx_nr_market neg_risk_market_id TYPE bloom_filter(0.01) GRANULARITY 1
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(block_time)
ORDER BY (wallet, block_number, chain_id, tx_hash, log_index)
SETTINGS index_granularity = 1024;

-- Market lifecycle: conditions prepared/resolved, token registrations, neg-risk markets/questions.
CREATE TABLE IF NOT EXISTS alpha_lifecycle (
  chain_id UInt32,
  block_number UInt64,
  block_hash String,
  block_time DateTime64(3, 'UTC'),
  tx_hash String,
  log_index UInt32,
  kind LowCardinality(String),
  version UInt8,
  neg_risk Bool,
  contract String,
  condition_id String,
  question_id String,
  market_id String,
  oracle String,
  outcome_slot_count UInt32,
  tokens Nullable(String),
  payout_numerators Array(String),
  args String,
  status Enum8('pending' = 0, 'confirmed' = 1),
  INDEX idx_condition_id condition_id TYPE bloom_filter(0.01) GRANULARITY 1,
  INDEX idx_question_id question_id TYPE bloom_filter(0.01) GRANULARITY 1,
  INDEX idx_market_id market_id TYPE bloom_filter(0.01) GRANULARITY 1
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(block_time)
ORDER BY (chain_id, block_number, tx_hash, log_index);

-- UMA CTF adapter and Optimistic Oracle V2 events.
CREATE TABLE IF NOT EXISTS alpha_oracle (
  chain_id UInt32,
  block_number UInt64,
  block_hash String,
  block_time DateTime64(3, 'UTC'),
  tx_hash String,
  log_index UInt32,
  kind LowCardinality(String),
  contract String,
  neg_risk Bool,
  question_id String,
  requester String,
  proposer String,
  disputer String,
  identifier String,
  request_timestamp UInt64,
  ancillary_data String,
  price Nullable(String),
  payouts Array(String),
  args String,
  status Enum8('pending' = 0, 'confirmed' = 1),
  INDEX idx_question_id question_id TYPE bloom_filter(0.01) GRANULARITY 1,
  INDEX idx_tx_hash tx_hash TYPE bloom_filter(0.001) GRANULARITY 1
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(block_time)
ORDER BY (chain_id, block_number, tx_hash, log_index);

-- Collateral: USDC.e and pUSD transfers, pUSD wrap and unwrap.
CREATE TABLE IF NOT EXISTS alpha_collateral (
  chain_id UInt32,
  block_number UInt64,
  block_hash String,
  block_time DateTime64(3, 'UTC'),
  tx_hash String,
  log_index UInt32,
  kind Enum8('transfer' = 1, 'wrap' = 2, 'unwrap' = 3),
  token String,
  symbol LowCardinality(String),
  from_address String,
  to_address String,
  caller String,
  asset String,
  amount UInt64,
  status Enum8('pending' = 0, 'confirmed' = 1),
  INDEX idx_from from_address TYPE bloom_filter(0.01) GRANULARITY 1,
  INDEX idx_to to_address TYPE bloom_filter(0.01) GRANULARITY 1,
  INDEX idx_tx_hash tx_hash TYPE bloom_filter(0.001) GRANULARITY 1
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(block_time)
ORDER BY (kind, block_number, chain_id, tx_hash, log_index);

-- ERC-1155 outcome-token movements on the CTF (TransferSingle, and one row per TransferBatch item).
CREATE TABLE IF NOT EXISTS alpha_token_transfers (
  chain_id UInt32,
  block_number UInt64,
  block_hash String,
  block_time DateTime64(3, 'UTC'),
  tx_hash String,
  log_index UInt32,
  batch_index UInt32,
  operator String,
  from_address String,
  to_address String,
  token_id String,
  amount UInt64,
  status Enum8('pending' = 0, 'confirmed' = 1),
  INDEX idx_from from_address TYPE bloom_filter(0.01) GRANULARITY 1,
  INDEX idx_to to_address TYPE bloom_filter(0.01) GRANULARITY 1,
  INDEX idx_tx_hash tx_hash TYPE bloom_filter(0.001) GRANULARITY 1
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(block_time)
ORDER BY (token_id, block_number, chain_id, tx_hash, log_index, batch_index);

-- Other exchange and fee-module events: OrdersMatched, FeeCharged, FeeRefunded, OrderCancelled, pauses.
CREATE TABLE IF NOT EXISTS alpha_exchange_events (
  chain_id UInt32,
  block_number UInt64,
  block_hash String,
  block_time DateTime64(3, 'UTC'),
  tx_hash String,
  log_index UInt32,
  kind LowCardinality(String),
  contract String,
  exchange_version UInt8,
  neg_risk Bool,
  order_hash String,
  account String,
  token_id String,
  amount UInt64,
  args String,
  status Enum8('pending' = 0, 'confirmed' = 1),
  INDEX idx_order_hash order_hash TYPE bloom_filter(0.001) GRANULARITY 1,
  INDEX idx_tx_hash tx_hash TYPE bloom_filter(0.001) GRANULARITY 1
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(block_time)
ORDER BY (kind, block_number, chain_id, tx_hash, log_index);

-- Outcome token → condition map, from ConditionPreparation (derived ids of binary conditions) and
-- TokenRegistered. Keyed by the event that taught it, so reorgs remove what they orphan.
CREATE TABLE IF NOT EXISTS alpha_tokens (
  chain_id UInt32,
  token_id String,
  condition_id String,
  outcome_index Int8,
  complement_token_id String,
  neg_risk Bool,
  source LowCardinality(String),
  block_number UInt64,
  tx_hash String,
  log_index UInt32
) ENGINE = ReplacingMergeTree
ORDER BY (token_id, chain_id, tx_hash, log_index);

-- Headers of the blocks the event rows came from.
CREATE TABLE IF NOT EXISTS alpha_blocks (
  chain_id UInt32,
  number UInt64,
  hash String,
  parent_hash String,
  timestamp DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree
ORDER BY (chain_id, number, hash);

-- Progress, written after the data it covers: the last block (number and hash) a pipeline finished.
CREATE TABLE IF NOT EXISTS alpha_checkpoints (
  chain_id UInt32,
  pipeline String,
  block_number UInt64,
  block_hash String,
  updated_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (chain_id, pipeline);
