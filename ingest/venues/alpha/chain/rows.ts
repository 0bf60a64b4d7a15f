/**
 * The rows of venue alpha's chain tables, their types derived from the table descriptions
 * (schemas/tables/alpha-chain.ts), the table lists the pipeline works by, and the sinks mapped rows go to.
 */
import type { RowOf } from '../../../../core/clickhouse/table.ts';
import type {
  ALPHA_ACTIVITY,
  ALPHA_BLOCKS,
  ALPHA_COLLATERAL,
  ALPHA_CTF_SUPPLY,
  ALPHA_EXCHANGE_EVENTS,
  ALPHA_FILLS,
  ALPHA_LIFECYCLE,
  ALPHA_NEG_RISK_MARKETS,
  ALPHA_NEG_RISK_QUESTIONS,
  ALPHA_ORACLE,
  ALPHA_TOKEN_TRANSFERS,
  ALPHA_TOKENS,
  QUARANTINE,
} from '../../../../schemas/tables/alpha-chain.ts';
import type { DirectSink as ChainDirectSink } from '../../../chain/writer.ts';

export type Status = RowOf<typeof ALPHA_FILLS>['status'];

/** Columns every event row carries. */
export type EventKey = Pick<
  RowOf<typeof ALPHA_FILLS>,
  'chain_id' | 'block_number' | 'block_hash' | 'block_time' | 'tx_hash' | 'log_index' | 'status'
>;

// The row types of the chain tables, derived from their descriptions (schemas/tables/alpha-chain.ts).
export type FillRow = RowOf<typeof ALPHA_FILLS>;
export type ActivityRow = RowOf<typeof ALPHA_ACTIVITY>;
export type CtfSupplyRow = RowOf<typeof ALPHA_CTF_SUPPLY>;
export type LifecycleRow = RowOf<typeof ALPHA_LIFECYCLE>;
export type OracleRow = RowOf<typeof ALPHA_ORACLE>;
export type CollateralRow = RowOf<typeof ALPHA_COLLATERAL>;
export type TokenTransferRow = RowOf<typeof ALPHA_TOKEN_TRANSFERS>;
export type ExchangeEventRow = RowOf<typeof ALPHA_EXCHANGE_EVENTS>;
export type TokenRow = RowOf<typeof ALPHA_TOKENS>;
export type NegRiskMarketRow = RowOf<typeof ALPHA_NEG_RISK_MARKETS>;
export type NegRiskQuestionRow = RowOf<typeof ALPHA_NEG_RISK_QUESTIONS>;
export type BlockRow = RowOf<typeof ALPHA_BLOCKS>;
export type QuarantineRow = RowOf<typeof QUARANTINE>;

/** Rows produced from one page of logs, by table. */
export interface RowSet {
  alpha_fills: FillRow[];
  alpha_activity: ActivityRow[];
  alpha_ctf_supply: CtfSupplyRow[];
  alpha_lifecycle: LifecycleRow[];
  alpha_oracle: OracleRow[];
  alpha_collateral: CollateralRow[];
  alpha_token_transfers: TokenTransferRow[];
  alpha_exchange_events: ExchangeEventRow[];
  alpha_tokens: TokenRow[];
  alpha_neg_risk_markets: NegRiskMarketRow[];
  alpha_neg_risk_questions: NegRiskQuestionRow[];
}

export type EventTable = keyof RowSet;

/**
 * Where mapped rows go: a RowSet (arrays collect them) or a writer's sink that serializes each at once
 * (ingest/chain/writer.ts), which also takes rows written column by column (`direct`, direct-lane.ts).
 */
export type RowSink = { [T in EventTable]: { push(row: RowSet[T][number]): unknown } } & {
  readonly direct?: DirectSink;
};

/** The writer's column-by-column sink of alpha's event tables. */
export type DirectSink = ChainDirectSink<EventTable>;

/** Tables that hold rows keyed by block (deleted on reorg / rewritten on re-ingest). */
export const EVENT_TABLES: readonly EventTable[] = [
  'alpha_fills',
  'alpha_activity',
  'alpha_ctf_supply',
  'alpha_lifecycle',
  'alpha_oracle',
  'alpha_collateral',
  'alpha_token_transfers',
  'alpha_exchange_events',
  'alpha_tokens',
  'alpha_neg_risk_markets',
  'alpha_neg_risk_questions',
];

/**
 * Reference tables: what later events need to be understood (token → condition, market → fee, a
 * neg-risk UMA question → its condition). The backfill's reference pass owns them for its range; range
 * jobs leave them alone.
 */
export const REFERENCE_TABLES: readonly EventTable[] = [
  'alpha_tokens',
  'alpha_neg_risk_markets',
  'alpha_neg_risk_questions',
];

/** Tables with a `status` column (the reference tables have none). */
export const STATUS_TABLES: readonly EventTable[] = EVENT_TABLES.filter((t) => !REFERENCE_TABLES.includes(t));

export function emptyRowSet(): RowSet {
  return {
    alpha_fills: [],
    alpha_activity: [],
    alpha_ctf_supply: [],
    alpha_lifecycle: [],
    alpha_oracle: [],
    alpha_collateral: [],
    alpha_token_transfers: [],
    alpha_exchange_events: [],
    alpha_tokens: [],
    alpha_neg_risk_markets: [],
    alpha_neg_risk_questions: [],
  };
}

export function rowCount(rows: RowSet): number {
  let n = 0;
  for (const t of EVENT_TABLES) n += rows[t].length;
  return n;
}

/** A total order of each table's rows by natural key (dumps and comparisons). */
export const NATURAL_ORDER: Record<EventTable | 'alpha_blocks', string> = {
  alpha_fills: 'block_number, log_index',
  alpha_activity: 'block_number, log_index',
  alpha_ctf_supply: 'block_number, log_index',
  alpha_lifecycle: 'block_number, log_index',
  alpha_oracle: 'block_number, log_index',
  alpha_collateral: 'block_number, log_index',
  alpha_token_transfers: 'block_number, log_index, batch_index',
  alpha_exchange_events: 'block_number, log_index',
  alpha_tokens: 'block_number, tx_hash, log_index, token_id',
  alpha_neg_risk_markets: 'block_number, tx_hash, log_index',
  alpha_neg_risk_questions: 'block_number, tx_hash, log_index',
  alpha_blocks: 'number, hash',
};
