/**
 * The tables alpha's chain ingestion writes (schemas/tables/alpha-chain.ts), as the generic writer,
 * range job and follower take them (ingest/chain/tables.ts). The hot tables (fills, activity, ERC-1155
 * transfers, collateral, exchange events, blocks) are written as RowBinary, the others (few rows) as
 * JSON lines. Progress goes to the progress store (core/watermarks.ts, source `alpha-chain`) through the
 * writer's `commit`; alpha_fill_hashes is written by a materialized view. alpha_checkpoints, the progress
 * before migration 042, is no longer written.
 */
import type { TableDescription } from '../../../../core/clickhouse/table.ts';
import { ALPHA_CHAIN_TABLES } from '../../../../schemas/tables/alpha-chain.ts';
import { type ChainTables, columnsOf, formatOf } from '../../../chain/tables.ts';
import { type EventTable, REFERENCE_TABLES, STATUS_TABLES } from './rows.ts';

const {
  alpha_blocks,
  alpha_checkpoints: _before042,
  alpha_fill_hashes: _view,
  quarantine,
  ...events
} = ALPHA_CHAIN_TABLES;
events satisfies Record<EventTable, TableDescription>;

export const ALPHA_CHAIN_WRITES: ChainTables<EventTable> = {
  venue: 'alpha',
  events,
  reference: REFERENCE_TABLES,
  status: STATUS_TABLES,
  binary: new Set([
    events.alpha_fills.name,
    events.alpha_activity.name,
    events.alpha_ctf_supply.name,
    events.alpha_token_transfers.name,
    events.alpha_collateral.name,
    events.alpha_exchange_events.name,
    alpha_blocks.name,
  ]),
  blocks: alpha_blocks,
  quarantine,
};

/** A table alpha's chain ingestion writes rows to. */
export type AlphaWrittenTable = EventTable | 'alpha_blocks' | 'quarantine';

/** The insert column list of each written table (its description's written columns, in order). */
export const COLUMNS = Object.fromEntries(
  [...Object.keys(ALPHA_CHAIN_WRITES.events), 'alpha_blocks', 'quarantine'].map((t) => [
    t,
    columnsOf(ALPHA_CHAIN_WRITES, t),
  ]),
) as Record<AlphaWrittenTable, readonly string[]>;

/** The insert format of a written table's bytes. */
export const alphaFormatOf = (table: AlphaWrittenTable) => formatOf(ALPHA_CHAIN_WRITES, table);
