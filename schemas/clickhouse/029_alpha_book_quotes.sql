-- Venue alpha's order books as observed through its book API (`POST /books`): one row per token per
-- observation. Levels best first (bids by price descending, asks ascending) as parallel arrays of price and
-- size; best_bid/best_ask null for an empty side, mid = their mean, null unless both sides have a level.
-- book_time is the book's own timestamp, observed_at when the sync read it (the current-price function
-- takes a midpoint observed less than 10 minutes ago).
CREATE TABLE IF NOT EXISTS alpha_book_quotes (
  token_id String,
  observed_at DateTime64(3, 'UTC'),
  condition_id String,
  book_time DateTime64(3, 'UTC'),
  hash String,
  best_bid Nullable(Float64),
  best_ask Nullable(Float64),
  mid Nullable(Float64),
  bid_prices Array(Float64),
  bid_sizes Array(Float64),
  ask_prices Array(Float64),
  ask_sizes Array(Float64)
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(observed_at)
ORDER BY (token_id, observed_at);
