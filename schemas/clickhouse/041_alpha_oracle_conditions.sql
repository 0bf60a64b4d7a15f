-- The condition of each UMA oracle row, and what finds it for neg-risk questions. A standard question's
-- condition is keccak256(UMA adapter, question id, 2); a neg-risk question's UMA question id is the
-- NegRiskOperator's request id, mapped to the neg-risk question (whose condition the NegRiskAdapter
-- prepares) by the operator's QuestionPrepared only. alpha_neg_risk_questions keeps that mapping: written
-- by the reference pass of a backfill and by the follower, keyed like alpha_tokens by the event that
-- taught it so reorgs remove what they orphan. Columns: docs/chain-ingestion.md.
CREATE TABLE IF NOT EXISTS alpha_neg_risk_questions (
  chain_id UInt32,
  request_id String,
  question_id String,
  market_id String,
  condition_id String,
  operator String,
  block_number UInt64,
  tx_hash String,
  log_index UInt32
) ENGINE = ReplacingMergeTree
ORDER BY (request_id, chain_id, tx_hash, log_index);

-- '' when the chain has not said it (a neg-risk question whose QuestionPrepared is not ingested).
ALTER TABLE alpha_oracle ADD COLUMN IF NOT EXISTS condition_id String AFTER question_id;
