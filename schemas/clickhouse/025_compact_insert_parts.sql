-- A backfill's inserts into alpha_fills write compact parts (issue 4: the full pipeline's share of raw
-- eth_getLogs throughput). A 15,000-fill insert is ~10.5 MB uncompressed, just above the engine's
-- default min_bytes_for_wide_part (10 MiB), so it was written as a wide part: two files per column, in
-- the part and again in its by_token projection, ~130 files where a compact part has ~30. A 1M-fill
-- backfill creates ~70 such parts and the merges unlink them again; the file churn cost the engine's
-- threads about as much CPU as their compression (ext4 scans recently unlinked inodes for every file it
-- creates). Merged parts (20 inserts at a time, 024) are ~200 MB and stay wide, so reads of the merged
-- table are unchanged; the other hot tables' inserts (2-6 MB) were compact already.
ALTER TABLE alpha_fills MODIFY SETTING min_bytes_for_wide_part = 33554432;
