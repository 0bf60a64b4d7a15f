/** `GET /v2/epsilon/orderbooks` (interface-shapes §17.6: no token id): query and response. */
import { type Static, Type } from '@sinclair/typebox';
import { BookLevel, orderbookQuery, snapshotPage } from './orderbooks.ts';

export const EpsilonOrderbooksQuery = Type.Object({
  market_id: Type.Integer({
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'Market id (required)',
  }),
  ...orderbookQuery({ max: 200 }),
});
export type EpsilonOrderbooksQuery = Static<typeof EpsilonOrderbooksQuery>;

export const EpsilonSnapshot = Type.Object({
  market_id: Type.Integer(),
  timestamp: Type.Integer({ description: 'Book time, Unix milliseconds' }),
  bids: Type.Array(BookLevel, { description: 'YES bids, price descending' }),
  asks: Type.Array(BookLevel, { description: 'YES asks, price ascending' }),
  best_bid: Type.Union([Type.Number(), Type.Null()], { description: 'Best YES bid; null when none' }),
  best_ask: Type.Union([Type.Number(), Type.Null()], { description: 'Best YES ask; null when none' }),
  bid_depth: Type.Number({ description: 'Total size bid' }),
  ask_depth: Type.Number({ description: 'Total size offered' }),
});
export type EpsilonSnapshot = Static<typeof EpsilonSnapshot>;

export const EpsilonOrderbooksResponse = snapshotPage(
  EpsilonSnapshot,
  'One page of epsilon order book snapshots',
);
export type EpsilonOrderbooksResponse = Static<typeof EpsilonOrderbooksResponse>;
