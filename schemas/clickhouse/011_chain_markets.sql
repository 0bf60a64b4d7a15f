-- Neg-risk markets as prepared by the NegRiskAdapter (fee_bips is needed to value conversions), written
-- by the reference pass of a backfill and by the follower, keyed like alpha_tokens by the event that
-- taught it so reorgs remove what they orphan. Columns: docs/chain-ingestion.md.
CREATE TABLE IF NOT EXISTS alpha_neg_risk_markets (
  chain_id UInt32,
  market_id String,
  oracle String,
  fee_bips UInt32,
  block_number UInt64,
  tx_hash String,
  log_index UInt32
) ENGINE = ReplacingMergeTree
ORDER BY (market_id, chain_id, tx_hash, log_index);
