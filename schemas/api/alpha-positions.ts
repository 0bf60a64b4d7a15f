/**
 * Venue alpha's position endpoints (interface-shapes §12, §13, §15; docs/api.md "Positions"): query,
 * path and response schemas. One definition gives validation, OpenAPI and the TS types.
 */
import { type Static, Type } from '@sinclair/typebox';
import { cursorQuery, ErrorBody, keyedErrorResponses, Pagination, StringEnum } from './common.ts';

const TokenId = (description: string) => Type.String({ pattern: '^[0-9]{1,78}$', description });
const Hex = (description: string) => Type.String({ maxLength: 200, description });
const Order = (description: string) =>
  Type.Optional(StringEnum(['desc', 'asc'], { default: 'desc', description }));

// ---- the position resource (§13), shared by the three endpoints -------------------------------------

export const PositionMarketInfo = Type.Object(
  {
    condition_id: Type.String(),
    market_slug: Type.String({ description: "From alpha's catalog; '' while the catalog does not know it" }),
    title: Type.String({ description: "The market's question; '' while the catalog does not know it" }),
    side: Type.Union([Type.Literal('YES'), Type.Literal('NO')], {
      description: 'Outcome index 0 is YES, 1 is NO',
    }),
    side_label: Type.String({ description: 'The outcome label of the catalog (Yes/No when unknown)' }),
    token_id: Type.String(),
    status: StringEnum(['open', 'resolved_win', 'resolved_loss'], {
      description:
        'resolved_win / resolved_loss once the condition resolved on chain (payout price > 0 / = 0), else open',
    }),
  },
  { title: 'Market of a position' },
);

export const PositionDetails = Type.Object(
  {
    shares: Type.Number({ description: 'Shares held now (0 for closed positions)' }),
    total_shares_bought: Type.Number({
      description: 'Deprecated (values kept, approximate): use total_bought_usd',
      deprecated: true,
    }),
    total_bought_usd: Type.Number({
      description:
        'Exact lifetime USD spent buying the position (buys, splits at 0.50, conversions); kept after redemption',
    }),
    avg_entry_price: Type.Number({ description: 'Average cost per share' }),
    total_cost_usd: Type.Number({ description: 'Cost basis of the shares held: shares × avg_entry_price' }),
    net_fees_usd: Type.Number({ description: 'Fees charged minus fees refunded, USD' }),
  },
  { title: 'Position details' },
);

export const PositionCurrentState = Type.Object(
  {
    price: Type.Number({
      description:
        'Current price: the payout once resolved, else a fresh book midpoint, else the newest fill; the ' +
        'average entry price when no price is known',
    }),
    value_usd: Type.Number({ description: 'shares × price' }),
  },
  { title: 'Current state of a position' },
);

export const PositionPnL = Type.Object(
  {
    unrealized_usd: Type.Number({ description: 'shares × (price − avg_entry_price)' }),
    unrealized_pct: Type.Number({
      description:
        'unrealized_usd ÷ |total_cost_usd| × 100 (the sign of unrealized_usd, a negative avg price included); ' +
        '0 when total_cost_usd is 0',
    }),
    realized_usd: Type.Number(),
  },
  { title: 'Position P&L' },
);

export const Position = Type.Object(
  {
    market: PositionMarketInfo,
    position: PositionDetails,
    current: PositionCurrentState,
    pnl: PositionPnL,
  },
  { title: 'Position' },
);
export type Position = Static<typeof Position>;

// ---- GET /v2/alpha/positions (§12) ----------------------------------------------------------------

const BlockNumber = (description: string) =>
  Type.Optional(Type.Integer({ minimum: 0, maximum: 9_007_199_254_740_991, description }));
const Seconds = (description: string) =>
  Type.Optional(Type.Integer({ minimum: 0, maximum: 99_999_999_999, description }));

export const PositionsQuery = Type.Object({
  order_by: Type.Optional(
    StringEnum(['timestamp', 'block'], {
      default: 'timestamp',
      description:
        "Sort by the time (default) or the block of the position's last update; ties in chain order, then by wallet and token",
    }),
  ),
  order: Order('desc: latest first (default); asc: streaming from the oldest'),
  min_block: BlockNumber('Last update at or after this block (inclusive)'),
  max_block: BlockNumber('Last update at or before this block (inclusive)'),
  min_timestamp: Seconds('Last update at or after this time, Unix seconds (inclusive)'),
  max_timestamp: Seconds('Last update at or before this time, Unix seconds (inclusive)'),
  wallet: Type.Optional(Type.String({ maxLength: 200, description: 'One wallet address (any case)' })),
  token_id: Type.Optional(TokenId('Outcome token id (decimal uint256)')),
  condition_id: Type.Optional(Hex('Condition id, 0x + 64 hex: both outcomes of the market')),
  ...cursorQuery({ min: 1, max: 500, default: 100 }),
});
export type PositionsQuery = Static<typeof PositionsQuery>;

export const AllUsersPosition = Type.Object(
  {
    user: Type.String({ description: 'Wallet address (lowercase)' }),
    ...Position.properties,
    last_updated_at: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Unix seconds of the last change of the position',
    }),
    last_updated_block: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Block of the last change of the position',
    }),
  },
  { title: 'Position of any user' },
);
export type AllUsersPosition = Static<typeof AllUsersPosition>;

export const PositionsResponse = Type.Object(
  { positions: Type.Array(AllUsersPosition), pagination: Pagination },
  { description: 'One page of positions, closed ones included' },
);
export type PositionsResponse = Static<typeof PositionsResponse>;

// ---- GET /v2/alpha/wallet/positions/{wallet} (§13) -------------------------------------------------

export const WalletParams = Type.Object({
  wallet: Type.String({ maxLength: 200, description: 'Wallet address, 0x + 40 hex (any case)' }),
});

export const WALLET_POSITION_SORTS = [
  'value',
  'unrealized_pnl',
  'realized_pnl',
  'cost',
  'avg_price',
  'current_price',
  'entry_date',
] as const;
export type WalletPositionSort = (typeof WALLET_POSITION_SORTS)[number];

export const WalletPositionsQuery = Type.Object({
  include_closed: Type.Optional(
    Type.Boolean({ default: false, description: 'Include positions with 0 shares (closed or redeemed)' }),
  ),
  min_shares: Type.Optional(
    Type.Number({ minimum: 0, maximum: 1e12, default: 0, description: 'Minimum shares held' }),
  ),
  market_slug: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 300,
      description: 'Market slug; unknown slugs give no positions',
    }),
  ),
  condition_id: Type.Optional(Hex('Condition id, 0x + 64 hex: both outcomes of the market')),
  sort_by: Type.Optional(
    StringEnum(WALLET_POSITION_SORTS, {
      default: 'value',
      description:
        'value (shares × price), unrealized_pnl, realized_pnl, cost (cost basis), avg_price, current_price, ' +
        'entry_date (first change of the position); ties by token id',
    }),
  ),
  order: Order('desc (default) or asc'),
  ...cursorQuery({ min: 1, max: 200, default: 100 }),
});
export type WalletPositionsQuery = Static<typeof WalletPositionsQuery>;

export const PositionsSummary = Type.Object(
  {
    total_positions: Type.Integer({ description: 'Positions matching the filters (every page)' }),
    total_value_usd: Type.Number(),
    total_cost_usd: Type.Number(),
    total_unrealized_pnl_usd: Type.Number(),
    total_realized_pnl_usd: Type.Number(),
    win_rate: Type.Union([Type.Number(), Type.Null()], {
      description: 'winning ÷ (winning + losing), a decimal; 0 when neither',
    }),
    winning_positions: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Matching positions with realized + unrealized P&L above 0',
    }),
    losing_positions: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Matching positions with realized + unrealized P&L below 0',
    }),
    fees_paid: Type.Union([Type.Number(), Type.Null()], {
      description: 'Net fees of the matching positions (refunds already deducted), USD',
    }),
    fees_refunded: Type.Union([Type.Number(), Type.Null()], {
      description: 'Deprecated: always 0 (refunds are netted into fees_paid)',
      deprecated: true,
    }),
    net_fees: Type.Union([Type.Number(), Type.Null()], { description: 'Same as fees_paid' }),
  },
  { title: 'Summary of the matching positions' },
);
export type PositionsSummary = Static<typeof PositionsSummary>;

export const WalletPositionsResponse = Type.Object(
  {
    wallet_address: Type.String({ description: 'The wallet, lowercase' }),
    positions: Type.Array(Position),
    summary: PositionsSummary,
    pagination: Pagination,
  },
  { description: "One page of a wallet's positions and the summary of all that match" },
);
export type WalletPositionsResponse = Static<typeof WalletPositionsResponse>;

// ---- GET /v2/alpha/position/{token_id}/top-holders (§15) -------------------------------------------

export const TopHoldersParams = Type.Object({
  token_id: TokenId('Outcome token id (decimal uint256)'),
});

export const TopHoldersQuery = Type.Object({
  include_count: Type.Optional(
    Type.Boolean({ default: false, description: 'Also count the holders (total_count)' }),
  ),
  ...cursorQuery({ min: 1, max: 100, default: 100 }),
});
export type TopHoldersQuery = Static<typeof TopHoldersQuery>;

export const TopHolderEntry = Type.Object(
  {
    rank: Type.Integer({ description: '1-based, continuing across pages' }),
    user: Type.String({ description: 'Wallet address (lowercase)' }),
    token_id: Type.String(),
    position_shares: Type.Number(),
    position_value_usd: Type.Number({ description: 'shares × current price' }),
    side: Type.String({ description: 'Outcome label (Yes/No or the catalog label)' }),
    outcome_index: Type.Integer({ description: '0 = Yes/first, 1 = No/second' }),
    avg_price: Type.Number(),
    realized_pnl: Type.Number(),
    unrealized_pnl: Type.Number(),
    total_pnl: Type.Number({ description: 'realized_pnl + unrealized_pnl' }),
    trade_count: Type.Integer({ description: "The wallet's fills of this token" }),
    first_trade_at: Type.Union([Type.Integer(), Type.Null()], { description: 'Unix seconds; null: no fill' }),
    last_trade_at: Type.Union([Type.Integer(), Type.Null()], { description: 'Unix seconds; null: no fill' }),
  },
  { title: 'Top holder' },
);
export type TopHolderEntry = Static<typeof TopHolderEntry>;

export const TopHoldersResponse = Type.Object(
  {
    condition_id: Type.String(),
    title: Type.Union([Type.String(), Type.Null()]),
    market_slug: Type.Union([Type.String(), Type.Null()]),
    side: Type.Union([Type.String(), Type.Null()], {
      description: 'The side filter applied: always null here (one token is one side)',
    }),
    total_count: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Holders with shares above 0; only with include_count=true, else null',
    }),
    entries: Type.Array(TopHolderEntry),
    pagination: Pagination,
  },
  { description: 'Holders of one outcome token, largest first' },
);
export type TopHoldersResponse = Static<typeof TopHoldersResponse>;

/** The error responses of the position routes, for OpenAPI. */
export const positionErrorResponses = {
  ...keyedErrorResponses,
  400: Type.Object(ErrorBody.properties, {
    description:
      'Bad Request: a malformed wallet address or condition id, a min above its max, a pagination_key ' +
      'of other filters or tampered with, offset other than 0',
  }),
} as const;

export const topHoldersErrorResponses = {
  ...positionErrorResponses,
  404: Type.Object(ErrorBody.properties, { description: 'Not Found: the token was never seen on chain' }),
} as const;
