-- Background merges of the hot alpha tables use the vertical algorithm whatever their size (issue 4:
-- peak RSS of a 1M-fill backfill). A horizontal merge reads every column of every part at once, each
-- through its own read and decompression buffers; a backfill's merges are of a few 15,000-row parts,
-- under the default threshold of 131,072 rows, so they were all horizontal: the largest, 6 alpha_fills
-- parts (90,000 rows), held ~195 MiB of engine memory. A vertical merge reads the sorting key's columns
-- first and then one column at a time. The column threshold (default 11 columns outside the sorting
-- key) is lowered too: alpha_token_transfers has 7 such columns, and its 10-part merges held ~168 MiB.
ALTER TABLE alpha_fills MODIFY SETTING vertical_merge_algorithm_min_rows_to_activate = 1,
  vertical_merge_algorithm_min_columns_to_activate = 1;
ALTER TABLE alpha_token_transfers MODIFY SETTING vertical_merge_algorithm_min_rows_to_activate = 1,
  vertical_merge_algorithm_min_columns_to_activate = 1;
ALTER TABLE alpha_collateral MODIFY SETTING vertical_merge_algorithm_min_rows_to_activate = 1,
  vertical_merge_algorithm_min_columns_to_activate = 1;
ALTER TABLE alpha_activity MODIFY SETTING vertical_merge_algorithm_min_rows_to_activate = 1,
  vertical_merge_algorithm_min_columns_to_activate = 1;
ALTER TABLE alpha_exchange_events MODIFY SETTING vertical_merge_algorithm_min_rows_to_activate = 1,
  vertical_merge_algorithm_min_columns_to_activate = 1;
