/**
 * The UMA family: the CTF adapters' question lifecycle (initialized, reset, resolved, ...) and the
 * Optimistic Oracle V2's requests, proposals, disputes and settlements of the adapters' questions
 * (alpha_oracle); oracle requests of anyone else are skipped.
 *
 * Every row names the question and its condition where the chain says them. An OO request's question is
 * keccak256 of its ancillary data for adapters v2 and later (UmaCtfAdapter.initialize and priceDisputed
 * hash it so), not derivable for v1 (''); `neg_risk` is the requesting adapter's. The condition of a
 * standard question is keccak256(adapter, question, 2) (the adapter prepares it on the CTF); a neg-risk
 * adapter's question id is the NegRiskOperator's request id, whose condition the operator's
 * QuestionPrepared teaches (tokens.ts; '' while not known).
 */
import { type Hex, keccak256 } from 'viem';

import type { MapStats } from '../../../../chain/types.ts';
import type { EventKey, RowSink } from '../rows.ts';
import { type Decoded, type FamilyMapper, type MapContext, str, toU64 } from './context.ts';

export function createUmaMapper(ctx: MapContext): { adapter: FamilyMapper; optimisticOracle: FamilyMapper } {
  function conditionOf(adapter: string, questionId: string): string {
    if (questionId === '') return '';
    if (ctx.umaAdapterNegRisk.get(adapter)) return ctx.tokens.questionCondition(questionId) ?? '';
    return ctx.conditionOf(adapter, questionId);
  }

  function mapUmaAdapter(d: Decoded, key: EventKey, rows: RowSink): void {
    const a = d.args;
    const snake = d.name.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
    const price = a.settledPrice !== undefined ? str(a.settledPrice) : null;
    rows.alpha_oracle.push({
      ...key,
      kind: snake,
      contract: ctx.addressOf(d.contract),
      neg_risk: d.contract.negRisk,
      question_id: str(a.questionID),
      condition_id: conditionOf(ctx.addressOf(d.contract), str(a.questionID)),
      requester: str(a.creator),
      proposer: '',
      disputer: '',
      identifier: '',
      request_timestamp: a.requestTimestamp !== undefined ? toU64(a.requestTimestamp) : 0,
      ancillary_data: str(a.ancillaryData),
      price,
      payouts: (a.payouts as string[] | undefined) ?? [],
      args: JSON.stringify(a),
    });
  }

  function mapOptimisticOracle(d: Decoded, key: EventKey, rows: RowSink, stats: MapStats): void {
    const a = d.args;
    const address = ctx.addressOf(d.contract);
    const requester = str(a.requester);
    if (!ctx.umaAdapters.has(requester)) {
      stats.skipped++;
      return;
    }
    const questionId = umaQuestionId(ctx, requester, a.ancillaryData);
    const kind = {
      RequestPrice: 'request_price',
      ProposePrice: 'propose_price',
      DisputePrice: 'dispute_price',
      Settle: 'settle',
    }[d.name];
    const price = d.name === 'Settle' ? a.price : d.name === 'RequestPrice' ? null : a.proposedPrice;
    rows.alpha_oracle.push({
      ...key,
      kind: kind ?? d.name,
      contract: address,
      neg_risk: ctx.umaAdapterNegRisk.get(requester) ?? false,
      question_id: questionId,
      condition_id: conditionOf(requester, questionId),
      requester,
      proposer: str(a.proposer),
      disputer: str(a.disputer),
      identifier: str(a.identifier),
      request_timestamp: toU64(a.timestamp),
      ancillary_data: str(a.ancillaryData),
      price: price === null || price === undefined ? null : str(price),
      payouts: [],
      args: JSON.stringify(a),
    });
  }

  return {
    adapter: (d, key, _tx, rows) => mapUmaAdapter(d, key, rows),
    optimisticOracle: (d, key, _tx, rows, stats) => mapOptimisticOracle(d, key, rows, stats),
  };
}

/** The adapter's question id of an OO request it made ('' when not derivable: adapter v1). */
export function umaQuestionId(ctx: MapContext, requester: string, ancillaryData: unknown): string {
  const data = str(ancillaryData);
  return ctx.umaHashedQuestions.has(requester) && /^0x([0-9a-fA-F]{2})*$/.test(data)
    ? keccak256(data as Hex)
    : '';
}
