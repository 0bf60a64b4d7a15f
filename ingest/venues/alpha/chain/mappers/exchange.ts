/**
 * The exchange family's events other than the hot ones (fills, OrdersMatched and FeeCharged are the
 * direct lane's, direct-lane.ts): OrderCancelled, pauses, TokenRegistered, and the fee module's
 * FeeRefunded (alpha_exchange_events, alpha_lifecycle).
 */
import type { EventKey, RowSink } from '../rows.ts';
import { type Decoded, type FamilyMapper, type MapContext, str, toU64 } from './context.ts';

export function createExchangeMapper(ctx: MapContext): { exchange: FamilyMapper; feeModule: FamilyMapper } {
  function mapExchange(d: Decoded, key: EventKey, rows: RowSink): void {
    const a = d.args;
    const c = d.contract;
    const exchange = ctx.addressOf(c);
    const version = c.kind === 'exchangeV2' ? 2 : 1;
    const base = {
      ...key,
      contract: exchange,
      exchange_version: version as 1 | 2,
      neg_risk: c.negRisk,
      args: JSON.stringify(a),
    };
    switch (d.name) {
      case 'TokenRegistered':
        rows.alpha_lifecycle.push({
          ...key,
          kind: 'token_registered',
          version,
          neg_risk: c.negRisk,
          contract: exchange,
          condition_id: str(a.conditionId),
          question_id: '',
          market_id: '',
          oracle: '',
          outcome_slot_count: 0,
          tokens: null,
          payout_numerators: [],
          args: JSON.stringify(a),
        });
        return;
      case 'OrderCancelled':
        rows.alpha_exchange_events.push({
          ...base,
          kind: 'order_cancelled',
          order_hash: str(a.orderHash),
          account: '',
          token_id: '',
          amount: 0,
        });
        return;
      case 'TradingPaused':
      case 'TradingUnpaused':
        rows.alpha_exchange_events.push({
          ...base,
          kind: d.name === 'TradingPaused' ? 'trading_paused' : 'trading_unpaused',
          order_hash: '',
          account: str(a.pauser),
          token_id: '',
          amount: 0,
        });
        return;
    }
  }

  /** FeeRefunded of the fee module (two event versions: the 2025 one indexes the order hash). */
  function mapFeeModule(d: Decoded, key: EventKey, rows: RowSink): void {
    const a = d.args;
    const c = d.contract;
    const address = ctx.addressOf(c);
    const v2025 = d.log.topics.length === 4;
    rows.alpha_exchange_events.push({
      ...key,
      kind: 'fee_refunded',
      contract: address,
      exchange_version: 1,
      neg_risk: c.negRisk,
      order_hash: v2025 ? str(a.orderHash) : '',
      account: str(a.to),
      token_id: str(a.id),
      amount: toU64(v2025 ? a.refund : a.amount),
      args: JSON.stringify(a),
    });
  }

  return {
    exchange: (d, key, _tx, rows) => mapExchange(d, key, rows),
    feeModule: (d, key, _tx, rows) => mapFeeModule(d, key, rows),
  };
}
