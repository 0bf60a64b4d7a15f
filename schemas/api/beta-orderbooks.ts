/**
 * `GET /v2/beta/orderbooks` (SPEC's beta snapshot, interface-shapes §17.2: integer cents) and
 * `GET /v2/beta/orderbooks-subcent` (§17.3's proposal: dollars, fractional sizes, `source`): queries and
 * responses. One definition for validation, OpenAPI and types.
 */
import { type Static, Type } from '@sinclair/typebox';
import { orderbookQuery, snapshotPage } from './orderbooks.ts';

export const BETA_BOOK_MAX_LIMIT = 2000;

const ticker = Type.String({ minLength: 1, maxLength: 200, description: 'Market ticker (required)' });

export const BetaOrderbooksQuery = Type.Object({
  ticker,
  ...orderbookQuery({ max: BETA_BOOK_MAX_LIMIT }),
});
export type BetaOrderbooksQuery = Static<typeof BetaOrderbooksQuery>;

export const BetaSubcentOrderbooksQuery = Type.Object({
  ticker,
  ...orderbookQuery({ max: BETA_BOOK_MAX_LIMIT }),
  sources: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'Comma-separated sources: rest (polled snapshots), ws (books rebuilt from the feed); default both',
    }),
  ),
});
export type BetaSubcentOrderbooksQuery = Static<typeof BetaSubcentOrderbooksQuery>;

const CentLevel = Type.Object({
  price: Type.Integer({ description: 'Price in cents, 1–99' }),
  size: Type.Integer({ description: 'Whole contracts' }),
});

export const BetaSnapshot = Type.Object({
  ticker: Type.String(),
  timestamp: Type.Integer({ description: 'Book time, Unix milliseconds' }),
  yes_bids: Type.Array(CentLevel, { description: 'YES bids, price descending' }),
  yes_asks: Type.Array(CentLevel, { description: 'YES asks (100 − a NO bid), price ascending' }),
  best_bid: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Best YES bid in cents; null when none',
  }),
  best_ask: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Best YES ask in cents; null when none',
  }),
  bid_depth: Type.Integer({ description: 'Total whole contracts bid' }),
  ask_depth: Type.Integer({ description: 'Total whole contracts offered' }),
  sequence: Type.Integer({ description: 'Orders snapshots of the same timestamp (Unix ms recorded)' }),
});
export type BetaSnapshot = Static<typeof BetaSnapshot>;

export const BetaOrderbooksResponse = snapshotPage(BetaSnapshot, 'One page of beta order book snapshots');
export type BetaOrderbooksResponse = Static<typeof BetaOrderbooksResponse>;

const DollarLevel = Type.Object({
  price: Type.Number({ description: 'Price in dollars, 0–1 (up to 4 decimals)' }),
  size: Type.Number({ description: 'Contracts, fractional where the venue rests fractions' }),
});

export const BetaSubcentSnapshot = Type.Object({
  ticker: Type.String(),
  timestamp: Type.Integer({ description: 'Book time, Unix milliseconds' }),
  source: Type.String({ description: 'rest (a polled snapshot) or ws (a book rebuilt from the feed)' }),
  yes_bids: Type.Array(DollarLevel, { description: 'YES bids, price descending' }),
  yes_asks: Type.Array(DollarLevel, { description: 'YES asks (1 − a NO bid), price ascending' }),
  best_bid: Type.Union([Type.Number(), Type.Null()], { description: 'Best YES bid; null when none' }),
  best_ask: Type.Union([Type.Number(), Type.Null()], { description: 'Best YES ask; null when none' }),
  bid_depth: Type.Number({ description: 'Total contracts bid' }),
  ask_depth: Type.Number({ description: 'Total contracts offered' }),
  sequence: Type.Integer({
    description: 'Orders snapshots of the same timestamp and source (Unix ms recorded)',
  }),
});
export type BetaSubcentSnapshot = Static<typeof BetaSubcentSnapshot>;

export const BetaSubcentOrderbooksResponse = snapshotPage(
  BetaSubcentSnapshot,
  'One page of beta sub-cent order book snapshots',
);
export type BetaSubcentOrderbooksResponse = Static<typeof BetaSubcentOrderbooksResponse>;
