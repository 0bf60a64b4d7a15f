/**
 * The tables alpha's chain ingestion writes (schemas/tables/alpha-chain.ts), as the generic writer,
 * range job and follower take them (ingest/chain/tables.ts). The hot tables (fills, activity, ERC-1155
 * transfers, collateral, exchange events, blocks) are written as RowBinary, the others (few rows) as
 * JSON lines. Progress (alpha_checkpoints) goes through the writer's own statements, alpha_fill_hashes
 * through a materialized view.
 */
import {
  ALPHA_ACTIVITY,
  ALPHA_BLOCKS,
  ALPHA_CHECKPOINTS,
  ALPHA_COLLATERAL,
  ALPHA_EXCHANGE_EVENTS,
  ALPHA_FILLS,
  ALPHA_LIFECYCLE,
  ALPHA_NEG_RISK_MARKETS,
  ALPHA_ORACLE,
  ALPHA_TOKEN_TRANSFERS,
  ALPHA_TOKENS,
  QUARANTINE,
} from '../../../../schemas/tables/alpha-chain.ts';
import { type ChainTables, columnsOf, formatOf } from '../../../chain/tables.ts';
import { type EventTable, REFERENCE_TABLES, STATUS_TABLES } from './rows.ts';

export const ALPHA_CHAIN_WRITES: ChainTables<EventTable> = {
  venue: 'alpha',
  events: {
    alpha_fills: ALPHA_FILLS,
    alpha_activity: ALPHA_ACTIVITY,
    alpha_lifecycle: ALPHA_LIFECYCLE,
    alpha_oracle: ALPHA_ORACLE,
    alpha_collateral: ALPHA_COLLATERAL,
    alpha_token_transfers: ALPHA_TOKEN_TRANSFERS,
    alpha_exchange_events: ALPHA_EXCHANGE_EVENTS,
    alpha_tokens: ALPHA_TOKENS,
    alpha_neg_risk_markets: ALPHA_NEG_RISK_MARKETS,
  },
  reference: REFERENCE_TABLES,
  status: STATUS_TABLES,
  binary: new Set([
    ALPHA_FILLS.name,
    ALPHA_ACTIVITY.name,
    ALPHA_TOKEN_TRANSFERS.name,
    ALPHA_COLLATERAL.name,
    ALPHA_EXCHANGE_EVENTS.name,
    ALPHA_BLOCKS.name,
  ]),
  blocks: ALPHA_BLOCKS,
  checkpoints: ALPHA_CHECKPOINTS,
  quarantine: QUARANTINE,
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
