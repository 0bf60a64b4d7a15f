/**
 * Rows of alpha_ctf_supply: every change of outcome-token supply (CTF and NegRiskAdapter splits, merges,
 * redemptions, conversions), whoever the stakeholder. The CTF and NegRiskAdapter family mappers write one
 * for each such event before they decide whether it is also a user's action (alpha_activity).
 */
import type { CtfSupplyRow, EventKey } from '../rows.ts';

type SupplyFields = Omit<CtfSupplyRow, keyof EventKey>;

/** The supply row of an event (field by field, no spread: splits are as frequent as fills). */
export function supplyRow(key: EventKey, f: SupplyFields): CtfSupplyRow {
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
