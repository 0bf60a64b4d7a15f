/**
 * The NegRiskAdapter family: neg-risk markets, questions and reported outcomes (alpha_lifecycle), every
 * split, merge, redemption and conversion as a change of supply (alpha_ctf_supply), and those by the user
 * who acted (alpha_activity; a
 * conversion's payout is the collateral it releases, from the market's fee).
 */
import type { MapStats, U64 } from '../../../../chain/types.ts';
import type { EventKey, RowSink } from '../rows.ts';
import { attribute, type TxContext } from './attribution.ts';
import {
  type Decoded,
  type FamilyMapper,
  lifecycleBase,
  type MapContext,
  str,
  sumU64,
  toU64,
} from './context.ts';
import { activityRow, supplyRow } from './event-rows.ts';

export function createNegRiskAdapterMapper(ctx: MapContext): FamilyMapper {
  function mapNegRiskAdapter(d: Decoded, key: EventKey, tx: TxContext, rows: RowSink, stats: MapStats): void {
    const a = d.args;
    const adapter = ctx.addressOf(d.contract);
    switch (d.name) {
      case 'MarketPrepared':
        rows.alpha_lifecycle.push({
          ...lifecycleBase(ctx, d, key, 'neg_risk_market_prepared'),
          market_id: str(a.marketId),
          oracle: str(a.oracle),
        });
        return;
      case 'QuestionPrepared':
        rows.alpha_lifecycle.push({
          ...lifecycleBase(ctx, d, key, 'neg_risk_question_prepared'),
          market_id: str(a.marketId),
          question_id: str(a.questionId),
        });
        return;
      case 'OutcomeReported':
        rows.alpha_lifecycle.push({
          ...lifecycleBase(ctx, d, key, 'neg_risk_outcome_reported'),
          market_id: str(a.marketId),
          question_id: str(a.questionId),
        });
        return;
      case 'PositionSplit':
      case 'PositionsMerge':
      case 'PayoutRedemption':
      case 'PositionsConverted': {
        const redeem = d.name === 'PayoutRedemption';
        const convert = d.name === 'PositionsConverted';
        const stakeholder = str(redeem ? a.redeemer : a.stakeholder);
        const conditionId = convert ? null : str(a.conditionId);
        const amounts = redeem ? (a.amounts as string[]).map(toU64) : [];
        const amount = redeem ? sumU64(amounts) : toU64(a.amount);
        // Supply changes whoever acted; pushed only once nothing below can fail the log.
        const supply = supplyRow(key, {
          kind:
            d.name === 'PositionSplit'
              ? 'split'
              : d.name === 'PositionsMerge'
                ? 'merge'
                : redeem
                  ? 'redeem'
                  : 'convert',
          contract: adapter,
          stakeholder,
          condition_id: conditionId,
          collateral_token: '',
          amount,
          payout: redeem ? toU64(a.payout) : 0,
          neg_risk_market_id: convert ? str(a.marketId) : null,
          index_set: convert ? str(a.indexSet) : null,
        });
        if (ctx.exchanges.has(stakeholder)) {
          rows.alpha_ctf_supply.push(supply);
          stats.skipped++;
          return;
        }
        const type =
          d.name === 'PositionSplit'
            ? 'SPLIT'
            : d.name === 'PositionsMerge'
              ? 'MERGE'
              : redeem
                ? 'REDEEM'
                : 'CONVERT';
        const wallet = attribute(ctx, tx, d, stakeholder, type, () =>
          conditionId ? ctx.tokenIdsOf(ctx.wcol, conditionId, ['1', '2']) : new Set<string>(),
        );
        if (wallet === undefined) {
          rows.alpha_ctf_supply.push(supply);
          stats.skipped++;
          return;
        }
        let payout: U64 = 0;
        if (redeem) payout = toU64(a.payout);
        else if (convert) payout = conversionPayout(str(a.marketId), str(a.indexSet), a.amount);
        rows.alpha_ctf_supply.push(supply);
        rows.alpha_activity.push(
          activityRow(key, {
            type,
            version: ctx.collateralAdapters.has(stakeholder) ? 2 : 1,
            neg_risk: true,
            wallet,
            stakeholder,
            contract: adapter,
            condition_id: conditionId,
            market_id: conditionId,
            neg_risk_market_id: convert ? str(a.marketId) : null,
            index_set: convert ? str(a.indexSet) : null,
            collateral_token: '',
            partition: redeem ? ['1', '2'] : [],
            amounts,
            amount,
            payout,
          }),
        );
        return;
      }
    }
  }

  /**
   * Collateral a conversion releases to the user: (noCount − 1)·(amount − fee), fee = amount·feeBips/10⁴
   * (NegRiskAdapter.convertPositions). Unknown fee (market prepared outside the ingested range): 0 fee.
   */
  function conversionPayout(marketId: string, indexSet: string, amount: unknown): U64 {
    const amt = BigInt(String(amount));
    let noCount = 0n;
    for (let bits = BigInt(indexSet); bits > 0n; bits >>= 1n) if (bits & 1n) noCount++;
    if (noCount <= 1n) return 0;
    const fee = (amt * BigInt(ctx.tokens.marketFee(marketId) ?? 0)) / 10_000n;
    return toU64(((noCount - 1n) * (amt - fee)).toString());
  }

  return mapNegRiskAdapter;
}
