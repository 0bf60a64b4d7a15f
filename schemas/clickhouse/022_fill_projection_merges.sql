-- Merges of alpha_fills merge the by_token projection's parts instead of rebuilding the projection
-- (issue 4: background merges held 530-645 MiB and took about twice the time of a plain merge).
-- With 'rebuild' (010), a ReplacingMergeTree merge recomputes the projection from the merged rows,
-- squashed into blocks of up to 256 MiB (min_insert_block_size_bytes) that are then sorted by token:
-- one merge of 3.5M fills held ~650 MiB of engine memory for 24 s, against ~70 MiB for 7-13 s when the
-- projection's parts are merged like the table's. 'ignore' merges them that way. The projection can
-- then only differ from the table where two rows share the whole sorting key (maker, block_number,
-- chain_id, tx_hash, log_index), i.e. one fill written twice, which ingestion never does: a range is
-- rewritten only after `deleteRange` removed it (docs/decisions.md).
ALTER TABLE alpha_fills MODIFY SETTING deduplicate_merge_projection_mode = 'ignore';
