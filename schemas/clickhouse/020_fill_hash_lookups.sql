-- Point lookups of fills by transaction hash or order hash. alpha_fills is sorted by (maker, block_number),
-- so a hash alone can only use its bloom filters, which read every granule's filter; this small table,
-- sorted by hash, answers (maker, block_number) for a hash, and the API then reads alpha_fills by its
-- primary key. Filled by a materialized view on every insert into alpha_fills (the writer's inserts and
-- reorg re-inserts alike); rows of fills removed by a reorg stay here but point at nothing, and the API
-- re-checks the hash on alpha_fills itself.
CREATE TABLE IF NOT EXISTS alpha_fill_hashes (
  hash String,
  kind Enum8('tx' = 1, 'order' = 2),
  maker String,
  block_number UInt64
) ENGINE = ReplacingMergeTree
ORDER BY (hash, kind, maker, block_number)
SETTINGS index_granularity = 1024;

CREATE MATERIALIZED VIEW IF NOT EXISTS alpha_fill_hashes_mv TO alpha_fill_hashes AS
SELECT h.1 AS hash, h.2 AS kind, maker, block_number
FROM alpha_fills
ARRAY JOIN [(tx_hash, CAST('tx', 'Enum8(\'tx\' = 1, \'order\' = 2)')), (order_hash, CAST('order', 'Enum8(\'tx\' = 1, \'order\' = 2)'))] AS h;
