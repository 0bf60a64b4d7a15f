/** `GET /v2/alpha/trades`: query and response. One definition for validation, OpenAPI and types. */
import { type Static, Type } from '@sinclair/typebox';
import { blockTimeRangeQuery, cursorQuery, Pagination, StringEnum } from './common.ts';

const Hex = (description: string) => Type.String({ maxLength: 200, description });

export const TradesQuery = Type.Object({
  wallet: Type.Optional(
    Type.String({
      maxLength: 20_000,
      description:
        'Comma-separated wallet addresses (up to 50; order irrelevant, duplicates ignored). Matches the ' +
        'maker side of each fill; the feed merges the wallets in time order.',
    }),
  ),
  market_slug: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 300,
      description: 'Market slug; unknown slugs give an empty page',
    }),
  ),
  condition_id: Type.Optional(Hex('Condition id, 0x + 64 hex')),
  token_id: Type.Optional(
    Type.String({ pattern: '^[0-9]{1,78}$', description: 'Outcome token id (decimal uint256)' }),
  ),
  ...blockTimeRangeQuery,
  min_total: Type.Optional(
    Type.Number({ minimum: 0, maximum: 1e12, description: 'Minimum trade total (collateral notional), USD' }),
  ),
  order: Type.Optional(
    StringEnum(['desc', 'asc'], {
      default: 'desc',
      description: 'Time order: desc (newest first, default) or asc',
    }),
  ),
  after: Type.Optional(
    Type.String({
      maxLength: 40,
      description:
        '`<block_number>:<log_index>`: only rows strictly after that chain position, oldest first (catch-up after a stream gap); `order` is ignored',
    }),
  ),
  tx_hash: Type.Optional(Hex('0x + 64 hex: every fill of that transaction')),
  order_hash: Type.Optional(Hex('0x + 64 hex: every fill of that order')),
  builder: Type.Optional(Hex('Builder code (bytes32, 0x + 64 hex): fills attributed to that builder')),
  role: Type.Optional(
    StringEnum(['maker', 'taker'], {
      description:
        "maker: one row per matched maker order (count each trade once); taker: the taker's aggregate fills",
    }),
  ),
  ...cursorQuery({ min: 1, max: 200, default: 50 }),
});
export type TradesQuery = Static<typeof TradesQuery>;

export const Trade = Type.Object({
  tx_hash: Type.String(),
  log_index: Type.Integer(),
  block_number: Type.Integer(),
  timestamp: Type.Integer({ description: 'Block time, Unix seconds' }),
  status: Type.Union([Type.Literal('confirmed'), Type.Literal('pending')], {
    description: 'pending while the block is within the finality depth',
  }),
  order_hash: Type.String(),
  maker: Type.String({ description: 'Maker of the filled order (the wallet the row belongs to)' }),
  taker: Type.String({ description: 'Counterparty; the exchange address on taker aggregate rows' }),
  role: Type.Union([Type.Literal('maker'), Type.Literal('taker')]),
  side: Type.Union([Type.Literal('BUY'), Type.Literal('SELL')], { description: "Side of the maker's order" }),
  token_id: Type.String(),
  condition_id: Type.Union([Type.String(), Type.Null()]),
  outcome_index: Type.Union([Type.Integer(), Type.Null()]),
  market_slug: Type.Union([Type.String(), Type.Null()]),
  shares: Type.Number({ description: 'Outcome shares filled' }),
  price: Type.Number({ description: 'Collateral per share' }),
  total: Type.Number({ description: 'Collateral notional, USD, gross of fee' }),
  fee: Type.Number(),
  fee_asset: Type.Union([Type.Literal('shares'), Type.Literal('collateral')]),
  exchange: Type.String(),
  exchange_version: Type.Integer({ description: '1 or 2' }),
  neg_risk: Type.Boolean(),
  builder: Type.String({ description: 'bytes32 hex; empty for version-1 fills or fills without one' }),
  metadata: Type.String({ description: 'bytes32 hex; empty likewise' }),
});
export type Trade = Static<typeof Trade>;

export const TradesResponse = Type.Object(
  {
    trades: Type.Array(Trade),
    pagination: Pagination,
  },
  { description: 'One page of trades' },
);
export type TradesResponse = Static<typeof TradesResponse>;
