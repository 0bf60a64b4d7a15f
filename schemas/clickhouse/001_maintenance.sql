-- Table sizes recorded by the `maintenance` job: one row per table per run.
CREATE TABLE IF NOT EXISTS table_sizes (
  recorded_at DateTime64(3, 'UTC'),
  table LowCardinality(String),
  rows UInt64,
  bytes_on_disk UInt64,
  parts UInt32
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(recorded_at)
ORDER BY (table, recorded_at);

-- Records of upstream data that failed validation: counted, logged with its id, kept for inspection.
CREATE TABLE IF NOT EXISTS quarantine (
  source LowCardinality(String),
  kind LowCardinality(String),
  record_id String,
  reason String,
  payload String,
  quarantined_at DateTime64(3, 'UTC') DEFAULT now64(3)
) ENGINE = ReplacingMergeTree(quarantined_at)
ORDER BY (source, kind, record_id);
