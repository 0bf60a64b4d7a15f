/** `GET /v2/beta/trades` (interface-shapes §19): query and response. One definition for validation, OpenAPI and types. */
import { type Static, Type } from '@sinclair/typebox';
import { cursorQuery, Pagination, StringEnum } from './common.ts';

const UNIX_S = { minimum: 0, maximum: 99_999_999_999 };

export const BetaTradesQuery = Type.Object({
  ticker: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Market ticker, exact match' }),
  ),
  event_ticker: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        "Event ticker, prefix match on the trade's market ticker (at least one of ticker or event_ticker is required: 400 otherwise)",
    }),
  ),
  taker_side: Type.Optional(StringEnum(['yes', 'no'], { description: "The taker's side: yes or no" })),
  start_time: Type.Optional(
    Type.Integer({ ...UNIX_S, description: 'Earliest trade time, Unix seconds (inclusive)' }),
  ),
  end_time: Type.Optional(
    Type.Integer({
      ...UNIX_S,
      description: 'Latest trade time, Unix seconds (inclusive); start_time after end_time is a 400',
    }),
  ),
  min_count: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1e12, description: 'Minimum contracts traded (≥ 1)' }),
  ),
  order: Type.Optional(
    StringEnum(['desc', 'asc'], {
      default: 'desc',
      description: 'Time order: desc (newest first, default) or asc',
    }),
  ),
  ...cursorQuery({ min: 1, max: 500, default: 100 }),
});
export type BetaTradesQuery = Static<typeof BetaTradesQuery>;

export const BetaTrade = Type.Object({
  trade_id: Type.String(),
  ticker: Type.String({ description: 'Market ticker' }),
  count: Type.Number({ description: 'Contracts traded; fractional when the venue traded a fraction' }),
  yes_price: Type.Number({ description: 'Price of YES, 0–1' }),
  no_price: Type.Number({ description: 'Price of NO, 0–1' }),
  taker_side: Type.Union([Type.Literal('yes'), Type.Literal('no')]),
  created_time: Type.Integer({ description: 'Trade time, Unix seconds' }),
});
export type BetaTrade = Static<typeof BetaTrade>;

export const BetaTradesResponse = Type.Object(
  { trades: Type.Array(BetaTrade), pagination: Pagination },
  { description: 'One page of beta trades' },
);
export type BetaTradesResponse = Static<typeof BetaTradesResponse>;
