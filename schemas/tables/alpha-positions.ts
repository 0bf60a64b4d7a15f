/**
 * Venue alpha's positions (schemas/clickhouse/031_alpha_positions.sql; docs/positions.md): the change log
 * and the current state of every (wallet, token), and the tokens' current prices. Written by the
 * `alpha.positions` job (analytics/positions/), read by the position endpoints and the profiles job.
 * Shares and amounts in 6-decimal base units, prices ×1e6. Checked against `DESCRIBE TABLE` by
 * test/table-descriptions.test.ts.
 */
import { c, defineTable } from '../../core/clickhouse/table.ts';

export const POSITION_CHANGE_KINDS = {
  buy: 1,
  sell: 2,
  split: 3,
  merge: 4,
  redeem: 5,
  convert_in: 6,
  convert_out: 7,
  transfer_in: 8,
  transfer_out: 9,
  fee_refund: 10,
  fee_income: 11,
} as const;
export type PositionChangeKind = keyof typeof POSITION_CHANGE_KINDS;

export const ALPHA_POSITION_CHANGES = defineTable('alpha_position_changes', {
  chain_id: c.u32,
  wallet: c.hex(),
  token_id: c.hex(),
  condition_id: c.hex(),
  outcome_index: c.i8,
  block_number: c.u64n,
  block_hash: c.hex(),
  block_time: c.time,
  tx_hash: c.hex(),
  log_index: c.u32,
  batch_index: c.u32,
  kind: c.enum8(POSITION_CHANGE_KINDS),
  fill: c.u8<0 | 1>(),
  price: c.i64,
  amount: c.u64,
  usd: c.u64,
  delta_shares: c.i64,
  delta_realized_pnl: c.i64,
  delta_fees: c.i64,
  delta_bought_usd: c.u64,
  shares: c.u64,
  avg_price: c.i64,
  realized_pnl: c.i64,
  total_bought: c.u64,
  total_bought_usd: c.u64,
  net_fees: c.i64,
  fills: c.u32,
  opened_at: c.time,
  open_realized_pnl: c.i64,
});

export const ALPHA_POSITIONS = defineTable('alpha_positions', {
  chain_id: c.u32,
  wallet: c.hex(),
  token_id: c.hex(),
  condition_id: c.hex(),
  outcome_index: c.i8,
  shares: c.u64,
  avg_price: c.i64,
  realized_pnl: c.i64,
  total_bought: c.u64,
  total_bought_usd: c.u64,
  net_fees: c.i64,
  fills: c.u32,
  first_fill_at: c.nullableTime,
  last_fill_at: c.nullableTime,
  opened_at: c.time,
  open_realized_pnl: c.i64,
  first_block: c.u64n,
  first_at: c.time,
  last_block: c.u64n,
  last_log_index: c.u32,
  last_batch_index: c.u32,
  last_block_hash: c.hex(),
  last_at: c.time,
  version: c.u64,
  deleted: c.u8<0 | 1>(),
});

export const ALPHA_TOKEN_PRICES = defineTable('alpha_token_prices', {
  token_id: c.hex(),
  condition_id: c.hex(),
  price: c.nullableF64,
  source: c.lowText<'payout' | 'book' | 'fill' | 'none'>(),
  priced_at: c.time,
  version: c.u64,
});

/** The positions tables, by name. */
export const ALPHA_POSITION_TABLES = {
  alpha_position_changes: ALPHA_POSITION_CHANGES,
  alpha_positions: ALPHA_POSITIONS,
  alpha_token_prices: ALPHA_TOKEN_PRICES,
} as const;
