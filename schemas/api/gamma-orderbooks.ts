/** `GET /v2/gamma/orderbooks` (SPEC's gamma snapshot, interface-shapes §17.4): query and response. */
import { type Static, Type } from '@sinclair/typebox';
import { BookLevel, orderbookQuery, snapshotPage } from './orderbooks.ts';

export const GammaOrderbooksQuery = Type.Object({
  market_slug: Type.String({ minLength: 1, maxLength: 300, description: 'Market slug (required)' }),
  ...orderbookQuery({ max: 200 }),
});
export type GammaOrderbooksQuery = Static<typeof GammaOrderbooksQuery>;

export const GammaSnapshot = Type.Object({
  market_slug: Type.String(),
  token_id: Type.String({ description: 'The YES token' }),
  timestamp: Type.Integer({ description: 'Book time, Unix milliseconds' }),
  bids: Type.Array(BookLevel, { description: 'YES bids, price descending' }),
  asks: Type.Array(BookLevel, { description: 'YES asks, price ascending' }),
  midpoint: Type.Union([Type.Number(), Type.Null()], {
    description: "The venue's midpoint; null when absent",
  }),
  adjusted_midpoint: Type.Union([Type.Number(), Type.Null()], {
    description: "The venue's adjusted midpoint; null when absent",
  }),
});
export type GammaSnapshot = Static<typeof GammaSnapshot>;

export const GammaOrderbooksResponse = snapshotPage(GammaSnapshot, 'One page of gamma order book snapshots');
export type GammaOrderbooksResponse = Static<typeof GammaOrderbooksResponse>;
