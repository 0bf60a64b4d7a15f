-- Venue alpha's positions (docs/positions.md): per (wallet, token) average cost, realized P&L, fees and
-- lifetime buys, kept by the `alpha.positions` job (analytics/positions/) in chain order. Amounts and
-- shares are 6-decimal base units, prices ×1e6 (integers, truncating division as the accounting rules
-- say); the API divides by 1e6 at the edge.

-- The state of one (wallet, token) after every event that changed it, with the event's deltas. Keyed by
-- the event (block, log index, batch index: one event changes a (wallet, token) at most once). A reorg
-- or a backfill below the job's checkpoint deletes the rows above the fork point; the last remaining row
-- of a position is its state there.
CREATE TABLE IF NOT EXISTS alpha_position_changes (
  chain_id UInt32,
  wallet String,
  token_id String,
  condition_id String,
  outcome_index Int8,
  block_number UInt64,
  block_hash String,
  block_time DateTime64(3, 'UTC'),
  tx_hash String,
  log_index UInt32,
  batch_index UInt32,
  kind Enum8('buy' = 1, 'sell' = 2, 'split' = 3, 'merge' = 4, 'redeem' = 5, 'convert_in' = 6,
    'convert_out' = 7, 'transfer_in' = 8, 'transfer_out' = 9, 'fee_refund' = 10, 'fee_income' = 11),
  -- The event is a fill of this wallet (a maker fill or the taker's aggregate): a trade.
  fill UInt8,
  -- The event's price ×1e6 (fill price, 0.50, payout, avg or yes price; 0 where none applies). Signed:
  -- a conversion's yes price (alpha-chain.md §7.1) is negative when the collateral it releases exceeds
  -- the cost of the NO positions given up, and the average price of the YES bought follows.
  price Int64,
  -- Gross shares the event moved (a fill's shares, a split's amount, ...) and a fill's collateral.
  amount UInt64,
  usd UInt64,
  delta_shares Int64,
  delta_realized_pnl Int64,
  delta_fees Int64,
  delta_bought_usd UInt64,
  -- State after the event.
  shares UInt64,
  avg_price Int64,
  realized_pnl Int64,
  total_bought UInt64,
  total_bought_usd UInt64,
  net_fees Int64,
  fills UInt32,
  -- When the current holding opened (shares went from 0 to more) and the realized P&L then: a change to
  -- 0 shares closes it with result realized_pnl − open_realized_pnl, held block_time − opened_at.
  opened_at DateTime64(3, 'UTC'),
  open_realized_pnl Int64,
  INDEX idx_block block_number TYPE minmax GRANULARITY 1,
  INDEX idx_token token_id TYPE bloom_filter(0.01) GRANULARITY 1
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(block_time)
ORDER BY (wallet, token_id, block_number, log_index, batch_index)
SETTINGS index_granularity = 1024;

-- The current state of every position (closed ones included: shares 0), one row per (wallet, token):
-- the newest `version` wins, `deleted` drops a position a reorg removed entirely. Readers use FINAL.
CREATE TABLE IF NOT EXISTS alpha_positions (
  chain_id UInt32,
  wallet String,
  token_id String,
  condition_id String,
  outcome_index Int8,
  shares UInt64,
  avg_price Int64,
  realized_pnl Int64,
  total_bought UInt64,
  total_bought_usd UInt64,
  net_fees Int64,
  fills UInt32,
  first_fill_at Nullable(DateTime64(3, 'UTC')),
  last_fill_at Nullable(DateTime64(3, 'UTC')),
  opened_at DateTime64(3, 'UTC'),
  open_realized_pnl Int64,
  -- The first and the last change of the position.
  first_block UInt64,
  first_at DateTime64(3, 'UTC'),
  last_block UInt64,
  last_log_index UInt32,
  last_batch_index UInt32,
  last_block_hash String,
  last_at DateTime64(3, 'UTC'),
  version UInt64,
  deleted UInt8,
  INDEX idx_token token_id TYPE bloom_filter(0.01) GRANULARITY 1,
  INDEX idx_condition condition_id TYPE bloom_filter(0.01) GRANULARITY 1,
  INDEX idx_last_block last_block TYPE minmax GRANULARITY 1
) ENGINE = ReplacingMergeTree(version, deleted)
ORDER BY (wallet, token_id)
SETTINGS index_granularity = 256;

-- The current price of every token that has a position (analytics/prices/current-price.ts: payout, fresh
-- book midpoint, newest maker fill), as of `priced_at` (the newest ingested block's time); null price: no
-- rule gives one. Refreshed by the positions job.
CREATE TABLE IF NOT EXISTS alpha_token_prices (
  token_id String,
  condition_id String,
  price Nullable(Float64),
  source LowCardinality(String),
  priced_at DateTime64(3, 'UTC'),
  version UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY token_id
SETTINGS index_granularity = 256;

-- The positions job reads the chain tables by block range: block-number skip indexes over the tables not
-- sorted by block (rows are inserted in block order, so the granules of recent parts cover narrow
-- ranges; parts written before this migration get the index as they merge).
ALTER TABLE alpha_fills ADD INDEX IF NOT EXISTS idx_block_number block_number TYPE minmax GRANULARITY 1;
ALTER TABLE alpha_activity ADD INDEX IF NOT EXISTS idx_block_number block_number TYPE minmax GRANULARITY 1;
ALTER TABLE alpha_token_transfers ADD INDEX IF NOT EXISTS idx_block_number block_number TYPE minmax GRANULARITY 1;
