/**
 * The exchange family: OrderFilled of both exchange generations (one alpha_fills row per fill, the maker's
 * and the taker's aggregate alike), OrdersMatched, FeeCharged, OrderCancelled, pauses, TokenRegistered,
 * and the fee module's FeeRefunded (alpha_exchange_events, alpha_lifecycle).
 */
import { optionalBytes32, ratio } from '../../../../chain/hex.ts';
import type { U64 } from '../../../../chain/types.ts';
import type { EventKey, RowSink } from '../rows.ts';
import { type Decoded, type FamilyMapper, type MapContext, str, toU64 } from './context.ts';

export function createExchangeMapper(ctx: MapContext): { exchange: FamilyMapper; feeModule: FamilyMapper } {
  function mapExchange(d: Decoded, key: EventKey, rows: RowSink): void {
    const a = d.args;
    const c = d.contract;
    const exchange = ctx.addressOf(c);
    const version = c.kind === 'exchangeV2' ? 2 : 1;
    if (d.name === 'OrderFilled') {
      let side: 'BUY' | 'SELL';
      let tokenId: string;
      const makerAmount = a.makerAmountFilled as U64;
      const takerAmount = a.takerAmountFilled as U64;
      if (version === 1) {
        const makerAsset = a.makerAssetId as string;
        const takerAsset = a.takerAssetId as string;
        if ((makerAsset === '0') === (takerAsset === '0')) {
          throw new Error(
            `OrderFilled: exactly one asset id must be 0 (collateral), got ${makerAsset}/${takerAsset}`,
          );
        }
        side = makerAsset === '0' ? 'BUY' : 'SELL';
        tokenId = side === 'BUY' ? takerAsset : makerAsset;
      } else {
        const s = a.side as number;
        if (s !== 0 && s !== 1) throw new Error(`OrderFilled: side ${s} is neither BUY (0) nor SELL (1)`);
        side = s === 0 ? 'BUY' : 'SELL';
        tokenId = a.tokenId as string;
      }
      const shares = side === 'BUY' ? takerAmount : makerAmount;
      const usd = side === 'BUY' ? makerAmount : takerAmount;
      const taker = a.taker as string;
      const known = ctx.tokens.get(tokenId);
      // Written field by field (no spread): this is the hottest object of the pipeline.
      rows.alpha_fills.push({
        chain_id: key.chain_id,
        block_number: key.block_number,
        block_hash: key.block_hash,
        block_time: key.block_time,
        tx_hash: key.tx_hash,
        log_index: key.log_index,
        exchange,
        exchange_version: version,
        neg_risk: c.negRisk,
        order_hash: a.orderHash as string,
        maker: a.maker as string,
        taker,
        role: taker === exchange ? 'taker' : 'maker',
        side,
        token_id: tokenId,
        condition_id: known?.condition_id ?? '',
        outcome_index: known?.outcome_index ?? -1,
        maker_amount: makerAmount,
        taker_amount: takerAmount,
        shares,
        usd,
        price: ratio(usd, shares),
        fee: a.fee as U64,
        fee_asset: version === 1 && side === 'BUY' ? 'shares' : 'collateral',
        builder: version === 2 ? optionalBytes32((a.builder as string).slice(2)) : '',
        metadata: version === 2 ? optionalBytes32((a.metadata as string).slice(2)) : '',
        status: key.status,
      });
      return;
    }
    const base = {
      ...key,
      contract: exchange,
      exchange_version: version as 1 | 2,
      neg_risk: c.negRisk,
      args: JSON.stringify(a),
    };
    switch (d.name) {
      case 'OrdersMatched': {
        const tokenId =
          version === 2
            ? str(a.tokenId)
            : str(a.makerAssetId) === '0'
              ? str(a.takerAssetId)
              : str(a.makerAssetId);
        rows.alpha_exchange_events.push({
          ...base,
          kind: 'orders_matched',
          order_hash: str(a.takerOrderHash),
          account: str(a.takerOrderMaker),
          token_id: tokenId,
          amount: toU64(a.makerAmountFilled),
        });
        return;
      }
      case 'FeeCharged':
        rows.alpha_exchange_events.push({
          ...base,
          kind: 'fee_charged',
          order_hash: '',
          account: str(a.receiver),
          token_id: version === 1 ? str(a.tokenId) : '0',
          amount: toU64(a.amount),
        });
        return;
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
