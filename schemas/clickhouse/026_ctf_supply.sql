-- Outcome-token supply: one row per ConditionalTokens PositionSplit / PositionsMerge / PayoutRedemption
-- and NegRiskAdapter PositionSplit / PositionsMerge / PayoutRedemption / PositionsConverted, whoever the
-- stakeholder (exchange mints and merges, the NegRiskAdapter's own CTF calls and adapter-mediated
-- actions included). alpha_activity keeps actions by the user who acted and drops those by design; open
-- interest counts every change of supply from here. Written by the backfill and the follower like every
-- chain table (deleted and rewritten by block range, on reorg too).
CREATE TABLE IF NOT EXISTS alpha_ctf_supply (
  chain_id UInt32,
  block_number UInt64,
  block_hash String,
  block_time DateTime64(3, 'UTC'),
  tx_hash String,
  log_index UInt32,
  kind Enum8('split' = 1, 'merge' = 2, 'redeem' = 3, 'convert' = 4),
  contract String,
  stakeholder String,
  condition_id Nullable(String),
  collateral_token String,
  amount UInt64,
  payout UInt64,
  neg_risk_market_id Nullable(String),
  index_set Nullable(String),
  status Enum8('pending' = 0, 'confirmed' = 1)
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(block_time)
ORDER BY (block_number, chain_id, tx_hash, log_index)
SETTINGS index_granularity = 1024, vertical_merge_algorithm_min_rows_to_activate = 1,
  vertical_merge_algorithm_min_columns_to_activate = 1, merge_selector_base = 20;
