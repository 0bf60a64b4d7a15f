-- The run marks of the products that recorded none before every product run committed one
-- (core/watermarks.ts, source the product's name, stream 'run'), seeded once from what their freshness
-- was read from, so an upgraded data dir shows the same freshness until their next run: the rolling
-- metrics and the wallet profiles from the newest `version` of their rows (their run's version, Unix ms),
-- the catalog lists from when the active parts of `alpha_market_list` (swapped in whole) were written.
-- A product without rows gets no mark (it never ran). A newer mark wins over a seeded one (newest `at`).
INSERT INTO watermarks (source, stream, kind, range_from, range_to, block, hash, time, at)
SELECT 'alpha-rolling-metrics', 'run', 'head', 0, 0, NULL, '', NULL, fromUnixTimestamp64Milli(toInt64(v), 'UTC')
FROM (SELECT max(version) AS v FROM alpha_market_rolling)
WHERE v > 0;

INSERT INTO watermarks (source, stream, kind, range_from, range_to, block, hash, time, at)
SELECT 'alpha-profiles', 'run', 'head', 0, 0, NULL, '', NULL, fromUnixTimestamp64Milli(toInt64(v), 'UTC')
FROM (SELECT max(version) AS v FROM alpha_wallet_profiles)
WHERE v > 0;

INSERT INTO watermarks (source, stream, kind, range_from, range_to, block, hash, time, at)
SELECT 'alpha-catalog-lists', 'run', 'head', 0, 0, NULL, '', NULL, fromUnixTimestamp64Milli(toInt64(t) * 1000, 'UTC')
FROM (
  SELECT toUnixTimestamp(max(modification_time)) AS t FROM system.parts
  WHERE database = currentDatabase() AND table = 'alpha_market_list' AND active
)
WHERE t > 0;
