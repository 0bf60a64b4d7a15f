/** `GET /v2/delta/orderbooks` (interface-shapes §17.5): query and response. */
import { type Static, Type } from '@sinclair/typebox';
import { BookLevel, orderbookQuery, snapshotPage } from './orderbooks.ts';

export const DeltaOrderbooksQuery = Type.Object({
  market_id: Type.Integer({
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'Market id (required)',
  }),
  ...orderbookQuery({ max: 200 }),
});
export type DeltaOrderbooksQuery = Static<typeof DeltaOrderbooksQuery>;

export const DeltaSnapshot = Type.Object({
  market_id: Type.Integer(),
  token_id: Type.String({ description: 'The YES token' }),
  timestamp: Type.Integer({ description: 'Book time, Unix milliseconds' }),
  bids: Type.Array(BookLevel, { description: 'YES bids, price descending' }),
  asks: Type.Array(BookLevel, { description: 'YES asks, price ascending' }),
  best_bid: Type.Union([Type.Number(), Type.Null()], { description: 'Best YES bid; null when none' }),
  best_ask: Type.Union([Type.Number(), Type.Null()], { description: 'Best YES ask; null when none' }),
  bid_depth: Type.Number({ description: 'Total size bid' }),
  ask_depth: Type.Number({ description: 'Total size offered' }),
});
export type DeltaSnapshot = Static<typeof DeltaSnapshot>;

export const DeltaOrderbooksResponse = snapshotPage(DeltaSnapshot, 'One page of delta order book snapshots');
export type DeltaOrderbooksResponse = Static<typeof DeltaOrderbooksResponse>;
