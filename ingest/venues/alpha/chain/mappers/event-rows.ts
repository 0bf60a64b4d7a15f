/**
 * Row builders of the event tables the CTF and NegRiskAdapter families write for every split, merge,
 * redemption and conversion: alpha_ctf_supply (every change of supply, whoever the stakeholder) and
 * alpha_activity (the actions of the user who acted). Field by field, no spread: splits are as frequent
 * as fills.
 */
import type { ActivityRow, CtfSupplyRow, EventKey } from '../rows.ts';

/** The supply row of an event. */
export function supplyRow(key: EventKey, f: Omit<CtfSupplyRow, keyof EventKey>): CtfSupplyRow {
  return {
    chain_id: key.chain_id,
    block_number: key.block_number,
    block_hash: key.block_hash,
    block_time: key.block_time,
    tx_hash: key.tx_hash,
    log_index: key.log_index,
    kind: f.kind,
    contract: f.contract,
    stakeholder: f.stakeholder,
    condition_id: f.condition_id,
    collateral_token: f.collateral_token,
    amount: f.amount,
    payout: f.payout,
    neg_risk_market_id: f.neg_risk_market_id,
    index_set: f.index_set,
    status: key.status,
  };
}

/** The activity row of an event, attributed to `f.wallet`. */
export function activityRow(key: EventKey, f: Omit<ActivityRow, keyof EventKey>): ActivityRow {
  return {
    chain_id: key.chain_id,
    block_number: key.block_number,
    block_hash: key.block_hash,
    block_time: key.block_time,
    tx_hash: key.tx_hash,
    log_index: key.log_index,
    status: key.status,
    type: f.type,
    version: f.version,
    neg_risk: f.neg_risk,
    wallet: f.wallet,
    stakeholder: f.stakeholder,
    contract: f.contract,
    condition_id: f.condition_id,
    market_id: f.market_id,
    neg_risk_market_id: f.neg_risk_market_id,
    index_set: f.index_set,
    collateral_token: f.collateral_token,
    partition: f.partition,
    amounts: f.amounts,
    amount: f.amount,
    payout: f.payout,
  };
}
