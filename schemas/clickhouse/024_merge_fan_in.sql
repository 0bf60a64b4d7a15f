-- Wider background merges of the hot alpha tables (issue 4: the full pipeline's share of raw
-- eth_getLogs throughput). A backfill inserts 15,000-row parts; with the default merge_selector_base (5)
-- the simple merge selector merges a few parts at a time, so each row was rewritten about 2.3 times
-- during a 1M-fill backfill (16.4M rows merged for 7.2M inserted, ~6.5 GB uncompressed) and the merge
-- threads used 13-17 s of CPU on the same 2 cores as the node and the mapper. With a base of 20 a merge
-- takes about 20 parts of a similar size, each row is rewritten about once (7.3M rows, 2.7 GB) and the
-- merge threads use 7-10 s. A table then holds up to ~20 parts per size level (about 20 instead of 9 for
-- alpha_fills after that backfill): reads touch more parts, well below any parts limit. Merges stay
-- vertical (023), so their memory does not grow with their width.
ALTER TABLE alpha_fills MODIFY SETTING merge_selector_base = 20;
ALTER TABLE alpha_fill_hashes MODIFY SETTING merge_selector_base = 20;
ALTER TABLE alpha_token_transfers MODIFY SETTING merge_selector_base = 20;
ALTER TABLE alpha_collateral MODIFY SETTING merge_selector_base = 20;
ALTER TABLE alpha_activity MODIFY SETTING merge_selector_base = 20;
ALTER TABLE alpha_exchange_events MODIFY SETTING merge_selector_base = 20;
