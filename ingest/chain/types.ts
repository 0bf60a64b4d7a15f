/**
 * Shapes shared by the chain pipeline: raw JSON-RPC logs and headers as the node sends them (hex
 * strings, never reformatted on the hot path), and the row types of the alpha tables
 * (schemas/clickhouse/010_chain.sql; columns documented in docs/chain-ingestion.md).
 */

/** A log exactly as `eth_getLogs` returns it. */
export interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  transactionIndex: string;
  logIndex: string;
  removed?: boolean;
  blockTimestamp?: string;
}

/** The header fields the pipeline keeps. */
export interface BlockHeader {
  number: number;
  hash: string;
  parentHash: string;
  /** Unix milliseconds. */
  timestampMs: number;
}

export type Status = 'pending' | 'confirmed';

/** Columns every event row carries. */
export interface EventKey {
  chain_id: number;
  block_number: number;
  block_hash: string;
  /** Unix milliseconds (DateTime64(3) accepts integer ticks). */
  block_time: number;
  tx_hash: string;
  log_index: number;
  status: Status;
}

import type { U64 } from '../../core/clickhouse/row-binary.ts';

export type { U64 };

export interface FillRow extends EventKey {
  exchange: string;
  exchange_version: 1 | 2;
  neg_risk: boolean;
  order_hash: string;
  maker: string;
  taker: string;
  role: 'maker' | 'taker';
  side: 'BUY' | 'SELL';
  token_id: string;
  condition_id: string;
  outcome_index: number;
  maker_amount: U64;
  taker_amount: U64;
  shares: U64;
  usd: U64;
  price: number;
  fee: U64;
  fee_asset: 'shares' | 'collateral';
  builder: string;
  metadata: string;
}

export interface ActivityRow extends EventKey {
  type: 'SPLIT' | 'MERGE' | 'REDEEM' | 'CONVERT';
  version: 1 | 2;
  neg_risk: boolean;
  wallet: string;
  stakeholder: string;
  contract: string;
  condition_id: string | null;
  market_id: string | null;
  neg_risk_market_id: string | null;
  index_set: string | null;
  collateral_token: string;
  partition: string[];
  amounts: U64[];
  amount: U64;
  payout: U64;
}

export interface LifecycleRow extends EventKey {
  kind: string;
  version: 1 | 2;
  neg_risk: boolean;
  contract: string;
  condition_id: string;
  question_id: string;
  market_id: string;
  oracle: string;
  outcome_slot_count: number;
  tokens: string | null;
  payout_numerators: string[];
  args: string;
}

export interface OracleRow extends EventKey {
  kind: string;
  contract: string;
  neg_risk: boolean;
  question_id: string;
  requester: string;
  proposer: string;
  disputer: string;
  identifier: string;
  request_timestamp: U64;
  ancillary_data: string;
  price: string | null;
  payouts: string[];
  args: string;
}

export interface CollateralRow extends EventKey {
  kind: 'transfer' | 'wrap' | 'unwrap';
  token: string;
  symbol: string;
  from_address: string;
  to_address: string;
  caller: string;
  asset: string;
  amount: U64;
}

export interface TokenTransferRow extends EventKey {
  batch_index: number;
  operator: string;
  from_address: string;
  to_address: string;
  token_id: string;
  amount: U64;
}

export interface ExchangeEventRow extends EventKey {
  kind: string;
  contract: string;
  exchange_version: 1 | 2;
  neg_risk: boolean;
  order_hash: string;
  account: string;
  token_id: string;
  amount: U64;
  args: string;
}

export interface TokenRow {
  chain_id: number;
  token_id: string;
  condition_id: string;
  outcome_index: number;
  complement_token_id: string;
  neg_risk: boolean;
  source: 'condition_prepared' | 'token_registered';
  block_number: number;
  tx_hash: string;
  log_index: number;
}

export interface NegRiskMarketRow {
  chain_id: number;
  market_id: string;
  oracle: string;
  fee_bips: number;
  block_number: number;
  tx_hash: string;
  log_index: number;
}

export interface BlockRow {
  chain_id: number;
  number: number;
  hash: string;
  parent_hash: string;
  timestamp: number;
}

export interface QuarantineRow {
  source: string;
  kind: string;
  record_id: string;
  reason: string;
  payload: string;
}

/** Rows produced from one page of logs, by table. */
export interface RowSet {
  alpha_fills: FillRow[];
  alpha_activity: ActivityRow[];
  alpha_lifecycle: LifecycleRow[];
  alpha_oracle: OracleRow[];
  alpha_collateral: CollateralRow[];
  alpha_token_transfers: TokenTransferRow[];
  alpha_exchange_events: ExchangeEventRow[];
  alpha_tokens: TokenRow[];
  alpha_neg_risk_markets: NegRiskMarketRow[];
}

export type EventTable = keyof RowSet;

/**
 * Where mapped rows go: a RowSet (arrays collect them) or a writer's sink that serializes each at once.
 * A writer's sink that does not collect rows also takes rows written column by column (`direct`).
 */
export type RowSink = { [T in EventTable]: { push(row: RowSet[T][number]): unknown } } & {
  readonly direct?: DirectSink;
};

/**
 * A table's RowBinary writer, for rows written column by column in COLUMNS order (direct-lane.ts):
 * `writer` is undefined for a table whose rows are dropped; `written` counts a complete row (and
 * starts the insert of a full batch).
 */
export interface DirectSink {
  writer(table: EventTable): import('../../core/clickhouse/row-binary.ts').ByteWriter | undefined;
  written(table: EventTable): void;
}

/** Tables that hold rows keyed by block (deleted on reorg / rewritten on re-ingest). */
export const EVENT_TABLES: readonly EventTable[] = [
  'alpha_fills',
  'alpha_activity',
  'alpha_lifecycle',
  'alpha_oracle',
  'alpha_collateral',
  'alpha_token_transfers',
  'alpha_exchange_events',
  'alpha_tokens',
  'alpha_neg_risk_markets',
];

/**
 * Reference tables: what later events need to be understood (token → condition, market → fee). The
 * backfill's reference pass owns them for its range; range jobs leave them alone.
 */
export const REFERENCE_TABLES: readonly EventTable[] = ['alpha_tokens', 'alpha_neg_risk_markets'];

/** Tables with a `status` column (the reference tables have none). */
export const STATUS_TABLES: readonly EventTable[] = EVENT_TABLES.filter((t) => !REFERENCE_TABLES.includes(t));

export function emptyRowSet(): RowSet {
  return {
    alpha_fills: [],
    alpha_activity: [],
    alpha_lifecycle: [],
    alpha_oracle: [],
    alpha_collateral: [],
    alpha_token_transfers: [],
    alpha_exchange_events: [],
    alpha_tokens: [],
    alpha_neg_risk_markets: [],
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
  alpha_lifecycle: 'block_number, log_index',
  alpha_oracle: 'block_number, log_index',
  alpha_collateral: 'block_number, log_index',
  alpha_token_transfers: 'block_number, log_index, batch_index',
  alpha_exchange_events: 'block_number, log_index',
  alpha_tokens: 'block_number, tx_hash, log_index, token_id',
  alpha_neg_risk_markets: 'block_number, tx_hash, log_index',
  alpha_blocks: 'number, hash',
};
