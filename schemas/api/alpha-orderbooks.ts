/** `GET /v2/alpha/orderbooks` (interface-shapes §17.1: camelCase fields): query and response. */
import { type Static, Type } from '@sinclair/typebox';
import { orderbookQuery, snapshotPage } from './orderbooks.ts';

export const AlphaOrderbooksQuery = Type.Object({
  token_id: Type.String({
    pattern: '^[0-9]{1,78}$',
    description: 'Outcome token id (decimal uint256, required)',
  }),
  ...orderbookQuery({ max: 2000 }),
});
export type AlphaOrderbooksQuery = Static<typeof AlphaOrderbooksQuery>;

const Level = Type.Object({
  size: Type.Number({ description: 'Shares resting at this price' }),
  price: Type.Number({ description: 'Price 0–1' }),
});

export const AlphaSnapshot = Type.Object({
  asks: Type.Array(Level, { description: 'Asks, best (lowest price) first' }),
  bids: Type.Array(Level, { description: 'Bids, best (highest price) first' }),
  hash: Type.String({ description: "The venue's hash of the book state" }),
  assetId: Type.String({ description: 'Token id' }),
  timestamp: Type.Integer({ description: 'Book time, Unix milliseconds' }),
  tickSize: Type.String({
    description: 'Tick size as the venue gave it, e.g. "0.01" ("" when not recorded)',
  }),
  indexedAt: Type.Integer({ description: 'When the book was observed, Unix milliseconds' }),
  market: Type.String({ description: 'Condition id' }),
});
export type AlphaSnapshot = Static<typeof AlphaSnapshot>;

export const AlphaOrderbooksResponse = snapshotPage(AlphaSnapshot, 'One page of alpha order book snapshots');
export type AlphaOrderbooksResponse = Static<typeof AlphaOrderbooksResponse>;
