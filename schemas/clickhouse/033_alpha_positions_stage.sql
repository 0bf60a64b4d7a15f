-- Work tables of the positions job (analytics/positions/events.ts `stageEvents`): a long block range's rows
-- that the positions read, copied once from the chain tables (sorted by wallet or token, so a block range
-- scans them whole) and read back batch by batch by block. Emptied and refilled by each long run (the
-- job's lease keeps one run at a time); never read by anything else.
CREATE TABLE IF NOT EXISTS alpha_positions_stage_fills (
  block_number UInt64,
  block_hash String,
  time_ms Int64,
  tx_hash String,
  log_index UInt32,
  maker String,
  side String,
  token_id String,
  condition_id String,
  outcome_index Int8,
  shares UInt64,
  usd UInt64,
  fee UInt64,
  fee_asset String,
  order_hash String
) ENGINE = MergeTree
ORDER BY (block_number, log_index);

CREATE TABLE IF NOT EXISTS alpha_positions_stage_activity (
  block_number UInt64,
  block_hash String,
  time_ms Int64,
  tx_hash String,
  log_index UInt32,
  type String,
  wallet String,
  contract String,
  condition_id Nullable(String),
  neg_risk_market_id Nullable(String),
  index_set Nullable(String),
  amounts Array(UInt64),
  amount UInt64
) ENGINE = MergeTree
ORDER BY (block_number, log_index);

CREATE TABLE IF NOT EXISTS alpha_positions_stage_transfers (
  block_number UInt64,
  block_hash String,
  time_ms Int64,
  tx_hash String,
  log_index UInt32,
  batch_index UInt32,
  from_address String,
  to_address String,
  token_id String,
  amount UInt64
) ENGINE = MergeTree
ORDER BY (block_number, log_index, batch_index);

CREATE TABLE IF NOT EXISTS alpha_positions_stage_fees (
  block_number UInt64,
  block_hash String,
  time_ms Int64,
  tx_hash String,
  log_index UInt32,
  kind String,
  account String,
  token_id String,
  amount UInt64,
  order_hash String
) ENGINE = MergeTree
ORDER BY (block_number, log_index);
