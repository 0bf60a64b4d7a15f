-- What every REST venue ingestor (ingest/venues/<code>/, over ingest/rest/) shares.
--
-- `venue_checkpoints`: a venue's progress per stream ('markets' = the newest `updated` time fully read,
-- 'trades' = the newest stored trade, 'reconcile' = the last full listing, ...), written after the data it
-- covers; the newest `updated_at` wins (read with FINAL).
CREATE TABLE IF NOT EXISTS venue_checkpoints (
  venue LowCardinality(String),
  stream LowCardinality(String),
  value String,
  updated_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (venue, stream);

-- `canonical_outcomes` (ingest/canonical/): the canonical id of every outcome of every venue's markets,
-- one row per (venue, market, outcome_index). `key` is the outcome's current canonical key; an id never
-- changes once assigned (a record whose key changes keeps its id, the change is logged once with both
-- keys and `key` becomes the new one). `market` is the venue's market key as its `<venue>_markets` table holds it (alpha: market id;
-- beta: ticker; gamma: slug; delta, epsilon: market id as a decimal string). `token_id` is '' where the
-- venue has none (beta). The bloom filter serves the `canonical_id` filters of the list endpoints.
CREATE TABLE IF NOT EXISTS canonical_outcomes (
  venue LowCardinality(String),
  market String,
  outcome_index UInt8,
  token_id String,
  key String,
  id String,
  assigned_at DateTime64(3, 'UTC'),
  INDEX canonical_id_bf id TYPE bloom_filter GRANULARITY 1
) ENGINE = ReplacingMergeTree(assigned_at)
ORDER BY (venue, market, outcome_index);
