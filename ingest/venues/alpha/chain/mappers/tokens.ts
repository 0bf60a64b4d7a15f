/**
 * Reference events: what later events need to be understood. A binary condition's preparation teaches its
 * two outcome token ids (derived: position-ids.ts), an exchange's TokenRegistered a token pair, a neg-risk
 * MarketPrepared the market's fee, a NegRiskOperator's QuestionPrepared the condition of a neg-risk UMA
 * question (its UMA question id is the operator's request id). They are learnt before a page's rows are
 * made (the token map), and written to alpha_tokens, alpha_neg_risk_markets and alpha_neg_risk_questions.
 */
import type { RowSink } from '../rows.ts';
import { type Decoded, type MapContext, str } from './context.ts';

export function learnTokens(ctx: MapContext, d: Decoded, rows: RowSink): void {
  const a = d.args;
  const base = {
    chain_id: ctx.chainId,
    block_number: d.key.block_number,
    tx_hash: d.key.tx_hash,
    log_index: d.key.log_index,
  };
  if (d.contract.kind === 'conditionalTokens' && d.name === 'ConditionPreparation') {
    if (Number(a.outcomeSlotCount) !== 2) return;
    const conditionId = str(a.conditionId);
    const negRisk = ctx.negRiskAdapters.has(str(a.oracle));
    const collateral = negRisk ? ctx.wcol : ctx.usdcE;
    const yes = ctx.positionId(collateral, conditionId, 1n);
    const no = ctx.positionId(collateral, conditionId, 2n);
    for (const [token, index, complement] of [
      [yes, 0, no],
      [no, 1, yes],
    ] as const) {
      ctx.tokens.set(token, { condition_id: conditionId, outcome_index: index });
      rows.alpha_tokens.push({
        ...base,
        token_id: token,
        condition_id: conditionId,
        outcome_index: index,
        complement_token_id: complement,
        neg_risk: negRisk,
        source: 'condition_prepared',
      });
    }
  } else if (d.contract.kind === 'negRiskAdapter' && d.name === 'MarketPrepared') {
    const feeBips = Number(a.feeBips);
    ctx.tokens.setMarketFee(str(a.marketId), feeBips);
    rows.alpha_neg_risk_markets.push({
      ...base,
      market_id: str(a.marketId),
      oracle: str(a.oracle),
      fee_bips: feeBips,
    });
  } else if (d.contract.kind === 'negRiskOperator' && d.name === 'QuestionPrepared') {
    const requestId = str(a.requestId);
    const questionId = str(a.questionId);
    const conditionId = ctx.negRiskConditionOf(questionId);
    ctx.tokens.setQuestionCondition(requestId, conditionId);
    rows.alpha_neg_risk_questions.push({
      ...base,
      request_id: requestId,
      question_id: questionId,
      market_id: str(a.marketId),
      condition_id: conditionId,
      operator: ctx.addressOf(d.contract),
    });
  } else if (d.contract.kind === 'exchangeV1' && d.name === 'TokenRegistered') {
    const token = str(a.token0);
    const conditionId = str(a.conditionId);
    if (!ctx.tokens.get(token)) ctx.tokens.set(token, { condition_id: conditionId, outcome_index: -1 });
    rows.alpha_tokens.push({
      ...base,
      token_id: token,
      condition_id: conditionId,
      outcome_index: ctx.tokens.get(token)?.outcome_index ?? -1,
      complement_token_id: str(a.token1),
      neg_risk: d.contract.negRisk,
      source: 'token_registered',
    });
  }
}
