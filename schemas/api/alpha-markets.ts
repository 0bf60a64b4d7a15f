/**
 * `GET /v2/alpha/markets` and `GET /v2/alpha/markets/keyset`: query and response (interface-shapes §1).
 * The two endpoints take the same parameters; only `limit`'s maximum differs (100 and 200). One definition
 * for validation, OpenAPI and types; the Market resource itself is schemas/api/alpha-catalog.ts.
 */
import { type Static, Type } from '@sinclair/typebox';
import { AlphaMarket, MARKET_STATUSES } from './alpha-catalog.ts';
import { canonicalIdParam, cursorQuery, MAX_LIST_ITEMS, Pagination, StringEnum } from './common.ts';

export { MAX_LIST_ITEMS };

export const MARKET_SORTS = [
  'volume',
  'open_interest',
  'price_desc',
  'price_asc',
  'expiration',
  'expiration_asc',
  'created',
  'created_asc',
  'relevance',
  'volume_1d',
  'volume_7d',
  'volume_30d',
  'trades_1d',
  'trades_7d',
  'trades_30d',
  'oi_change_1d',
  'oi_change_7d',
  'oi_change_30d',
] as const;
export type MarketSort = (typeof MARKET_SORTS)[number];

const list = (description: string, maxLength = 300) =>
  Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength }), {
      maxItems: MAX_LIST_ITEMS,
      description: `${description}; repeat the key for several (up to ${MAX_LIST_ITEMS}), any of them matches`,
    }),
  );
const usdFloor = (description: string) =>
  Type.Optional(Type.Number({ minimum: 0, maximum: 1e15, description }));
const countFloor = (description: string) =>
  Type.Optional(Type.Integer({ minimum: 0, maximum: 1e15, description }));
const price = (description: string) => Type.Optional(Type.Number({ minimum: 0, maximum: 1, description }));
const unixSeconds = (description: string) =>
  Type.Optional(Type.Integer({ minimum: 0, maximum: 99_999_999_999, description }));

const FILTERS = {
  status: Type.Optional(
    StringEnum(MARKET_STATUSES, {
      description: 'open, closed (closed and resolved markets) or resolved; all when absent',
    }),
  ),
  min_price: price('Minimum price of the first outcome (0–1); markets without a price never match'),
  max_price: price('Maximum price of the first outcome (0–1); min_price above max_price is a 400'),
  min_open_interest: usdFloor('Minimum current open interest, USD'),
  min_volume: usdFloor('Minimum all-time volume, USD'),
  min_volume_1d: usdFloor('Minimum volume of the last 24 hours, USD'),
  min_volume_7d: usdFloor('Minimum volume of the last 7 days, USD'),
  min_volume_30d: usdFloor('Minimum volume of the last 30 days, USD'),
  min_trades_1d: countFloor('Minimum trades of the last 24 hours'),
  min_trades_7d: countFloor('Minimum trades of the last 7 days'),
  min_trades_30d: countFloor('Minimum trades of the last 30 days'),
  tags: list('Tag slug'),
  event_slug: list('Event slug'),
  search: Type.Optional(
    Type.String({
      minLength: 3,
      maxLength: 100,
      description: 'Words of the question: every word must begin a word of the title (any order)',
    }),
  ),
  condition_id: list('Condition id, 0x + 64 hex (anything else is a 400 naming it)', 200),
  question_id: list('Question id'),
  market_id: list("The venue's market id"),
  market_slug: list('Market slug'),
  token_id: list('Outcome token id (decimal); matches either outcome'),
  canonical_id: canonicalIdParam(),
  sort: Type.Optional(
    StringEnum(MARKET_SORTS, {
      default: 'volume',
      description:
        'volume (all-time, default), open_interest, price_desc / price_asc (first outcome), expiration ' +
        '(latest end first) / expiration_asc, created (newest first) / created_asc, relevance (search rank, ' +
        'then as volume; without search: as volume), volume_1d/7d/30d, trades_1d/7d/30d, ' +
        'oi_change_1d/7d/30d. Metrics descending; ties by market_id; markets without a price, end or ' +
        'creation date come last in either direction',
    }),
  ),
  end_after: unixSeconds('Only markets ending after this time (Unix seconds, exclusive)'),
  end_before: unixSeconds('Only markets ending at or before this time (Unix seconds, inclusive)'),
};

export const MarketsQuery = Type.Object({ ...FILTERS, ...cursorQuery({ min: 1, max: 100, default: 20 }) });
export type MarketsQuery = Static<typeof MarketsQuery>;

export const MarketsKeysetQuery = Type.Object({
  ...FILTERS,
  ...cursorQuery({ min: 1, max: 200, default: 20 }),
});
export type MarketsKeysetQuery = Static<typeof MarketsKeysetQuery>;

export const MarketsResponse = Type.Object(
  {
    markets: Type.Array(AlphaMarket),
    pagination: Pagination,
  },
  { description: 'One page of markets' },
);
export type MarketsResponse = Static<typeof MarketsResponse>;
