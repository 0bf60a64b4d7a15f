/**
 * The UMA family: the CTF adapters' question lifecycle (initialized, reset, resolved, ...) and the
 * Optimistic Oracle V2's requests, proposals, disputes and settlements of the adapters' questions
 * (alpha_oracle); oracle requests of anyone else are skipped.
 */

import type { MapStats } from '../../../../chain/types.ts';
import type { EventKey, RowSink } from '../rows.ts';
import { type Decoded, type FamilyMapper, type MapContext, str, toU64 } from './context.ts';

export function createUmaMapper(ctx: MapContext): { adapter: FamilyMapper; optimisticOracle: FamilyMapper } {
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
    if (!ctx.umaAdapters.has(str(a.requester))) {
      stats.skipped++;
      return;
    }
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
      neg_risk: false,
      question_id: '',
      requester: str(a.requester),
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
