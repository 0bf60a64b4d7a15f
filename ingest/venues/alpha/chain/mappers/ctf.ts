/**
 * The ConditionalTokens (CTF) family: conditions prepared and resolved (alpha_lifecycle), every split,
 * merge and redemption as a change of supply (alpha_ctf_supply), and those by the user who acted (alpha_activity; adapter-mediated ones attributed through
 * the transaction, exchange mints/merges and the NegRiskAdapter's own echoes skipped: they are trades,
 * or mapped from the adapter). The ERC-1155 transfers are the direct lane's (direct-lane.ts).
 */

import type { MapStats } from '../../../../chain/types.ts';
import type { EventKey, RowSink } from '../rows.ts';
import { attribute, type TxContext } from './attribution.ts';
import { type Decoded, type FamilyMapper, lifecycleBase, type MapContext, str, toU64 } from './context.ts';
import { activityRow, supplyRow } from './event-rows.ts';

export function createCtfMapper(ctx: MapContext): FamilyMapper {
  function mapCtf(d: Decoded, key: EventKey, tx: TxContext, rows: RowSink, stats: MapStats): void {
    const a = d.args;
    const ctf = ctx.addressOf(d.contract);
    switch (d.name) {
      case 'ConditionPreparation': {
        const conditionId = str(a.conditionId);
        const slots = Number(a.outcomeSlotCount);
        const negRisk = ctx.negRiskAdapters.has(str(a.oracle));
        let tokens: string | null = null;
        if (slots === 2) {
          const collateral = negRisk ? ctx.wcol : ctx.usdcE;
          tokens = JSON.stringify([
            { token_id: ctx.positionId(collateral, conditionId, 1n), label: 'Yes' },
            { token_id: ctx.positionId(collateral, conditionId, 2n), label: 'No' },
          ]);
        }
        rows.alpha_lifecycle.push({
          ...lifecycleBase(ctx, d, key, 'condition_prepared'),
          neg_risk: negRisk,
          condition_id: conditionId,
          question_id: str(a.questionId),
          oracle: str(a.oracle),
          outcome_slot_count: slots,
          tokens,
        });
        return;
      }
      case 'ConditionResolution':
        rows.alpha_lifecycle.push({
          ...lifecycleBase(ctx, d, key, 'condition_resolved'),
          neg_risk: ctx.negRiskAdapters.has(str(a.oracle)),
          condition_id: str(a.conditionId),
          question_id: str(a.questionId),
          oracle: str(a.oracle),
          outcome_slot_count: Number(a.outcomeSlotCount),
          payout_numerators: a.payoutNumerators as string[],
        });
        return;
      case 'PositionSplit':
      case 'PositionsMerge':
      case 'PayoutRedemption': {
        const redeem = d.name === 'PayoutRedemption';
        const stakeholder = str(redeem ? a.redeemer : a.stakeholder);
        const collateral = str(a.collateralToken);
        const conditionId = str(a.conditionId);
        // Supply changes whoever acted; pushed only once nothing below can fail the log.
        const supply = supplyRow(key, {
          kind: d.name === 'PositionSplit' ? 'split' : redeem ? 'redeem' : 'merge',
          contract: ctf,
          stakeholder,
          condition_id: conditionId,
          collateral_token: collateral,
          amount: redeem ? 0 : toU64(a.amount),
          payout: redeem ? toU64(a.payout) : 0,
          neg_risk_market_id: null,
          index_set: null,
        });
        // The NegRiskAdapter's own event carries the user; exchange mints/merges are trades.
        if (ctx.negRiskAdapters.has(stakeholder) || ctx.exchanges.has(stakeholder)) {
          rows.alpha_ctf_supply.push(supply);
          stats.skipped++;
          return;
        }
        const indexSets = (redeem ? a.indexSets : a.partition) as string[];
        const type = d.name === 'PositionSplit' ? 'SPLIT' : redeem ? 'REDEEM' : 'MERGE';
        let ids: Set<string> | undefined;
        const conditionTokens = () => {
          ids ??= ctx.tokenIdsOf(collateral, conditionId, indexSets);
          return ids;
        };
        const wallet = attribute(ctx, tx, d, stakeholder, type, conditionTokens);
        if (wallet === undefined) {
          rows.alpha_ctf_supply.push(supply);
          stats.skipped++;
          return;
        }
        // A redemption's shares are what the CTF burned from the redeemer in this transaction.
        const amount = redeem ? tx.burned(stakeholder, conditionTokens()) : toU64(a.amount);
        rows.alpha_ctf_supply.push(supply);
        rows.alpha_activity.push(
          activityRow(key, {
            type,
            version: ctx.collateralAdapters.has(stakeholder) ? 2 : 1,
            neg_risk: collateral === ctx.wcol || ctx.collateralAdapterNegRisk.get(stakeholder) === true,
            wallet,
            stakeholder,
            contract: ctf,
            condition_id: conditionId,
            market_id: conditionId,
            neg_risk_market_id: null,
            index_set: null,
            collateral_token: collateral,
            partition: indexSets,
            amounts: [],
            amount,
            payout: redeem ? toU64(a.payout) : 0,
          }),
        );
        return;
      }
    }
  }

  return mapCtf;
}
