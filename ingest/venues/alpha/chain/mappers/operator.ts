/**
 * The NegRiskOperator family: its markets and questions, flags, reports and resolutions, one
 * alpha_lifecycle row each.
 */
import type { EventKey, RowSink } from '../rows.ts';
import { type Decoded, type FamilyMapper, lifecycleBase, type MapContext, str } from './context.ts';

export function createOperatorMapper(ctx: MapContext): FamilyMapper {
  function mapOperator(d: Decoded, key: EventKey, rows: RowSink): void {
    const a = d.args;
    const kinds: Record<string, string> = {
      MarketPrepared: 'operator_market_prepared',
      QuestionPrepared: 'operator_question_prepared',
      QuestionFlagged: 'operator_question_flagged',
      QuestionUnflagged: 'operator_question_unflagged',
      QuestionReported: 'operator_question_reported',
      QuestionResolved: 'operator_question_resolved',
      QuestionEmergencyResolved: 'operator_question_emergency_resolved',
    };
    rows.alpha_lifecycle.push({
      ...lifecycleBase(ctx, d, key, kinds[d.name] ?? d.name),
      market_id: str(a.marketId),
      question_id: str(a.questionId),
    });
  }

  return (d, key, _tx, rows) => mapOperator(d, key, rows);
}
