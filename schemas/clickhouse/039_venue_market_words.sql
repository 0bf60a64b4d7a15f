-- The title words of the four REST venues' markets, for GET /v2/markets/search: one row per (venue, word,
-- market), sorted so that the markets having a word with a given prefix are one range read on the primary
-- key. Filled by one materialized view per `<venue>_markets` table on its inserts (arrayJoin of `words`;
-- the venue key as text: beta ticker, gamma slug, delta and epsilon market id). A word of an older version
-- of a market's row stays here: the search re-checks its candidates against the venue table's current
-- `words`. ReplacingMergeTree without version: the same (venue, word, market) written again collapses.
CREATE TABLE IF NOT EXISTS venue_market_words (
  venue LowCardinality(String),
  word String,
  market String
) ENGINE = ReplacingMergeTree
ORDER BY (venue, word, market);

CREATE MATERIALIZED VIEW IF NOT EXISTS beta_market_words_mv TO venue_market_words AS
SELECT 'beta' AS venue, arrayJoin(words) AS word, ticker AS market FROM beta_markets;

CREATE MATERIALIZED VIEW IF NOT EXISTS gamma_market_words_mv TO venue_market_words AS
SELECT 'gamma' AS venue, arrayJoin(words) AS word, slug AS market FROM gamma_markets;

CREATE MATERIALIZED VIEW IF NOT EXISTS delta_market_words_mv TO venue_market_words AS
SELECT 'delta' AS venue, arrayJoin(words) AS word, toString(market_id) AS market FROM delta_markets;

CREATE MATERIALIZED VIEW IF NOT EXISTS epsilon_market_words_mv TO venue_market_words AS
SELECT 'epsilon' AS venue, arrayJoin(words) AS word, toString(market_id) AS market FROM epsilon_markets;
