-- `watermarks` (core/watermarks.ts): the progress of every source, stream and product, in one table.
-- A head mark per (source, stream): the chain follower ('alpha-chain', 'follow'; block number and hash),
-- a REST venue's streams ('beta', 'markets', ...; `time`: the stream's position, Unix ms), a product's run
-- ('alpha-positions', 'run'; block number and hash, `at` the run's version). A backfill range has its own
-- mark, keyed by its bounds ('alpha-chain', 'backfill', kind 'range', range_from, range_to). A mark is
-- written after the data it covers; the newest `at` of a key wins (read with FINAL).
CREATE TABLE IF NOT EXISTS watermarks (
  source LowCardinality(String),
  stream LowCardinality(String),
  kind Enum8('head' = 1, 'range' = 2),
  range_from UInt64,
  range_to UInt64,
  block Nullable(UInt64),
  hash String,
  time Nullable(DateTime64(3, 'UTC')),
  at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(at)
ORDER BY (source, stream, kind, range_from, range_to);

-- The checkpoints of a data dir written before this table, copied once: `alpha_checkpoints` (pipeline
-- 'follow', 'backfill:<from>-<to>', 'analytics:market-data', 'positions'; the chain id is dropped, a data
-- dir holds one chain) and `venue_checkpoints` (venue 'alpha' is the source 'alpha-catalog'; its value is
-- a Unix ms time except beta's 'markets', Unix seconds). `at` is the old `updated_at` exactly (a
-- product's run version), so repeating a statement inserts rows the engine collapses with the first
-- copy. Both old tables stay in place but are no longer written or read.
INSERT INTO watermarks (source, stream, kind, range_from, range_to, block, hash, time, at)
SELECT
  multiIf(pipeline = 'analytics:market-data', 'alpha-market-data', pipeline = 'positions', 'alpha-positions', 'alpha-chain'),
  multiIf(pipeline = 'follow', 'follow', startsWith(pipeline, 'backfill:'), 'backfill', 'run'),
  if(startsWith(pipeline, 'backfill:'), 'range', 'head'),
  if(startsWith(pipeline, 'backfill:'), toUInt64(extract(pipeline, '^backfill:([0-9]+)-')), 0),
  if(startsWith(pipeline, 'backfill:'), toUInt64(extract(pipeline, '-([0-9]+)$')), 0),
  block_number,
  block_hash,
  NULL,
  updated_at
FROM alpha_checkpoints FINAL
WHERE pipeline IN ('follow', 'analytics:market-data', 'positions') OR match(pipeline, '^backfill:[0-9]+-[0-9]+$');

INSERT INTO watermarks (source, stream, kind, range_from, range_to, block, hash, time, at)
SELECT
  if(venue = 'alpha', 'alpha-catalog', venue),
  stream,
  'head',
  0,
  0,
  NULL,
  '',
  if(
    isNull(toInt64OrNull(value)),
    NULL,
    fromUnixTimestamp64Milli(assumeNotNull(toInt64OrNull(value)) * if(venue = 'beta' AND stream = 'markets', 1000, 1), 'UTC')
  ),
  updated_at
FROM venue_checkpoints FINAL;
