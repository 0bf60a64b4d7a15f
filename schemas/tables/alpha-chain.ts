/**
 * Venue alpha's chain tables (schemas/clickhouse/010_chain.sql, 011, 020, 021, 026), each described once: the
 * row types of ingestion, the insert encoders and the API's column lists derive from these
 * (core/clickhouse/table.ts). Column order is the table's; test/table-descriptions.test.ts checks every
 * description against `DESCRIBE TABLE` of a freshly migrated database.
 *
 * Conventions: addresses, hashes and bytes32 values are lowercase 0x-hex strings; token ids and other
 * uint256 ids are decimal strings; amounts are integers in 6-decimal base units (`U64`: a number when it
 * is a safe integer, else its decimal string); block_time is UTC, written from Unix ms.
 */
import { c, defineTable } from '../../core/clickhouse/table.ts';

/** Enum8 codes shared by the tables and by the direct lane that writes hot rows column by column. */
export const CODES = {
  status: { pending: 0, confirmed: 1 },
  role: { maker: 1, taker: 2 },
  side: { BUY: 1, SELL: 2 },
  feeAsset: { shares: 1, collateral: 2 },
  collateralKind: { transfer: 1, wrap: 2, unwrap: 3 },
  activityType: { SPLIT: 1, MERGE: 2, REDEEM: 3, CONVERT: 4 },
  supplyKind: { split: 1, merge: 2, redeem: 3, convert: 4 },
  hashKind: { tx: 1, order: 2 },
} as const;

/** The key every event row starts with: (chain_id, tx_hash, log_index) plus its block. */
const EVENT_KEY = {
  chain_id: c.u32,
  block_number: c.u64n,
  block_hash: c.hex(),
  block_time: c.time,
  tx_hash: c.hex(),
  log_index: c.u32,
} as const;

const STATUS = c.enum8(CODES.status);

/** One row per OrderFilled (V1 and V2 exchanges, standard and neg-risk). */
export const ALPHA_FILLS = defineTable('alpha_fills', {
  ...EVENT_KEY,
  exchange: c.hex(),
  exchange_version: c.u8<1 | 2>(),
  neg_risk: c.bool,
  order_hash: c.hex(),
  maker: c.hex(),
  taker: c.hex(),
  role: c.enum8(CODES.role),
  side: c.enum8(CODES.side),
  token_id: c.hex(),
  condition_id: c.hex(),
  outcome_index: c.i8,
  maker_amount: c.u64,
  taker_amount: c.u64,
  shares: c.u64,
  usd: c.u64,
  // usd ÷ shares, computed by the engine (021_fill_insert_cost.sql).
  price: c.computed(c.f64),
  fee: c.u64,
  fee_asset: c.enum8(CODES.feeAsset),
  builder: c.hex(),
  metadata: c.hex(),
  status: STATUS,
});

/** SPLIT, MERGE, REDEEM, CONVERT by the real user (adapter-mediated actions attributed to the user). */
export const ALPHA_ACTIVITY = defineTable('alpha_activity', {
  ...EVENT_KEY,
  type: c.enum8(CODES.activityType),
  version: c.u8<1 | 2>(),
  neg_risk: c.bool,
  wallet: c.hex(),
  stakeholder: c.hex(),
  contract: c.hex(),
  condition_id: c.nullableHex,
  market_id: c.nullableHex,
  neg_risk_market_id: c.nullableHex,
  index_set: c.nullableHex,
  collateral_token: c.hex(),
  partition: c.hexArray,
  amounts: c.u64Array,
  amount: c.u64,
  payout: c.u64,
  status: STATUS,
});

/**
 * Outcome-token supply (026_ctf_supply.sql): every CTF split, merge and redemption and every NegRiskAdapter
 * split, merge, redemption and conversion, whoever the stakeholder. `amount`: the split, merged or
 * converted amount (a conversion's before its fee), a NegRiskAdapter redemption's shares (the sum of its
 * `amounts`), 0 for a CTF redemption (its event has none); `payout`: a redemption's payout, else 0.
 */
export const ALPHA_CTF_SUPPLY = defineTable('alpha_ctf_supply', {
  ...EVENT_KEY,
  kind: c.enum8(CODES.supplyKind),
  contract: c.hex(),
  stakeholder: c.hex(),
  condition_id: c.nullableHex,
  collateral_token: c.hex(),
  amount: c.u64,
  payout: c.u64,
  neg_risk_market_id: c.nullableHex,
  index_set: c.nullableHex,
  status: STATUS,
});

/** Market lifecycle: conditions prepared/resolved, token registrations, neg-risk markets/questions. */
export const ALPHA_LIFECYCLE = defineTable('alpha_lifecycle', {
  ...EVENT_KEY,
  kind: c.lowText(),
  version: c.u8<1 | 2>(),
  neg_risk: c.bool,
  contract: c.hex(),
  condition_id: c.hex(),
  question_id: c.hex(),
  market_id: c.hex(),
  oracle: c.hex(),
  outcome_slot_count: c.u32,
  tokens: c.nullableText,
  payout_numerators: c.hexArray,
  args: c.text,
  status: STATUS,
});

/** UMA CTF adapter and Optimistic Oracle V2 events. */
export const ALPHA_ORACLE = defineTable('alpha_oracle', {
  ...EVENT_KEY,
  kind: c.lowText(),
  contract: c.hex(),
  neg_risk: c.bool,
  question_id: c.hex(),
  /** The condition the question prepares ('' when not known: a neg-risk question not prepared in range). */
  condition_id: c.hex(),
  requester: c.hex(),
  proposer: c.hex(),
  disputer: c.hex(),
  identifier: c.hex(),
  request_timestamp: c.u64,
  ancillary_data: c.text,
  price: c.nullableHex,
  payouts: c.hexArray,
  args: c.text,
  status: STATUS,
});

/** Collateral: USDC.e and pUSD transfers, pUSD wrap and unwrap. */
export const ALPHA_COLLATERAL = defineTable('alpha_collateral', {
  ...EVENT_KEY,
  kind: c.enum8(CODES.collateralKind),
  token: c.hex(),
  symbol: c.lowText(),
  from_address: c.hex(),
  to_address: c.hex(),
  caller: c.hex(),
  asset: c.hex(),
  amount: c.u64,
  status: STATUS,
});

/** ERC-1155 outcome-token movements on the CTF (TransferSingle, and one row per TransferBatch item). */
export const ALPHA_TOKEN_TRANSFERS = defineTable('alpha_token_transfers', {
  ...EVENT_KEY,
  batch_index: c.u32,
  operator: c.hex(),
  from_address: c.hex(),
  to_address: c.hex(),
  token_id: c.hex(),
  amount: c.u64,
  status: STATUS,
});

/** Other exchange and fee-module events: OrdersMatched, FeeCharged, FeeRefunded, OrderCancelled, pauses. */
export const ALPHA_EXCHANGE_EVENTS = defineTable('alpha_exchange_events', {
  ...EVENT_KEY,
  kind: c.lowText(),
  contract: c.hex(),
  exchange_version: c.u8<1 | 2>(),
  neg_risk: c.bool,
  order_hash: c.hex(),
  account: c.hex(),
  token_id: c.hex(),
  amount: c.u64,
  args: c.text,
  status: STATUS,
});

/** Outcome token → condition, from ConditionPreparation (derived ids) and TokenRegistered. */
export const ALPHA_TOKENS = defineTable('alpha_tokens', {
  chain_id: c.u32,
  token_id: c.hex(),
  condition_id: c.hex(),
  outcome_index: c.i8,
  complement_token_id: c.hex(),
  neg_risk: c.bool,
  source: c.lowText<'condition_prepared' | 'token_registered'>(),
  block_number: c.u64n,
  tx_hash: c.hex(),
  log_index: c.u32,
});

/** Neg-risk markets (MarketPrepared): oracle and fee of each. */
export const ALPHA_NEG_RISK_MARKETS = defineTable('alpha_neg_risk_markets', {
  chain_id: c.u32,
  market_id: c.hex(),
  oracle: c.hex(),
  fee_bips: c.u32,
  block_number: c.u64n,
  tx_hash: c.hex(),
  log_index: c.u32,
});

/**
 * Neg-risk questions as the NegRiskOperator prepared them (041): the UMA question id (its request id) →
 * the neg-risk question, its market and the condition the NegRiskAdapter prepares for it.
 */
export const ALPHA_NEG_RISK_QUESTIONS = defineTable('alpha_neg_risk_questions', {
  chain_id: c.u32,
  request_id: c.hex(),
  question_id: c.hex(),
  market_id: c.hex(),
  condition_id: c.hex(),
  operator: c.hex(),
  block_number: c.u64n,
  tx_hash: c.hex(),
  log_index: c.u32,
});

/** Headers of the blocks the event rows came from. */
export const ALPHA_BLOCKS = defineTable('alpha_blocks', {
  chain_id: c.u32,
  number: c.u64n,
  hash: c.hex(),
  parent_hash: c.hex(),
  timestamp: c.time,
});

/**
 * Progress before migration 042 (the last block, number and hash, a pipeline finished): copied into
 * `watermarks` (schemas/tables/watermarks.ts) by that migration, no longer written or read.
 */
export const ALPHA_CHECKPOINTS = defineTable('alpha_checkpoints', {
  chain_id: c.u32,
  pipeline: c.text,
  block_number: c.u64n,
  block_hash: c.hex(),
  updated_at: c.time,
});

/** Fill lookups by tx or order hash, filled by a materialized view of alpha_fills (020). */
export const ALPHA_FILL_HASHES = defineTable('alpha_fill_hashes', {
  hash: c.hex(),
  kind: c.enum8(CODES.hashKind),
  maker: c.hex(),
  block_number: c.u64n,
});

/** Records that failed their schema or decoding, kept with their reason (001_maintenance.sql). */
export const QUARANTINE = defineTable('quarantine', {
  source: c.lowText(),
  kind: c.lowText(),
  record_id: c.text,
  reason: c.text,
  payload: c.text,
  quarantined_at: c.computed(c.time),
});

/** Every table of the chain ingestion, by name. */
export const ALPHA_CHAIN_TABLES = {
  alpha_fills: ALPHA_FILLS,
  alpha_activity: ALPHA_ACTIVITY,
  alpha_ctf_supply: ALPHA_CTF_SUPPLY,
  alpha_lifecycle: ALPHA_LIFECYCLE,
  alpha_oracle: ALPHA_ORACLE,
  alpha_collateral: ALPHA_COLLATERAL,
  alpha_token_transfers: ALPHA_TOKEN_TRANSFERS,
  alpha_exchange_events: ALPHA_EXCHANGE_EVENTS,
  alpha_tokens: ALPHA_TOKENS,
  alpha_neg_risk_markets: ALPHA_NEG_RISK_MARKETS,
  alpha_neg_risk_questions: ALPHA_NEG_RISK_QUESTIONS,
  alpha_blocks: ALPHA_BLOCKS,
  alpha_checkpoints: ALPHA_CHECKPOINTS,
  alpha_fill_hashes: ALPHA_FILL_HASHES,
  quarantine: QUARANTINE,
} as const;
