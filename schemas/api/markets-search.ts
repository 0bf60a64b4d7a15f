/**
 * `GET /v2/markets/search` (interface-shapes §20): the cross-venue text search. One definition for
 * validation, OpenAPI and types. The venues searched, and which of them serve which field, are their
 * contracts' (schemas/venues/<code>.ts `search`), named here in venue order.
 */
import { type Static, Type } from '@sinclair/typebox';
import { VENUE_CONTRACTS } from '../venues/index.ts';
import { StringEnum } from './common.ts';

/** The venues searched, in venue order, each with the fields it serves. */
const searched = VENUE_CONTRACTS.flatMap((c) =>
  c.search === undefined ? [] : [{ code: c.code, ...c.search }],
);
const NUMBER_WORDS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
const venueCount = NUMBER_WORDS[searched.length] ?? String(searched.length);
const serving = (field: 'marketSlug' | 'conditionId') =>
  searched.filter((v) => v[field] !== null).map((v) => v.code);
const slugVenues = serving('marketSlug').join(', ');
const idVenues = searched.flatMap((v) => (v.marketId ? [`${v.code}: ${v.marketId.is}`] : [])).join('; ');
const conditionVenues = serving('conditionId');
const conditionText =
  conditionVenues.length === 1 ? `${conditionVenues[0]} only` : conditionVenues.join(', ');

export const MarketsSearchQuery = Type.Object({
  q: Type.String({
    minLength: 3,
    maxLength: 200,
    description:
      'Search words: a market matches when every word begins a word of its title, in any order (3 to 200 characters)',
  }),
  status: Type.Optional(
    StringEnum(['open', 'closed'], {
      default: 'open',
      description: 'open (default) or closed (closed and resolved markets)',
    }),
  ),
  venue: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        `Comma-separated venue codes to search (${searched.map((v) => v.code).join(', ')}; order and duplicates ` +
        `irrelevant; default all ${venueCount}); an unknown code is a 422`,
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100,
      default: 20,
      description: 'Total results, 1 to 100 (default 20)',
    }),
  ),
});
export type MarketsSearchQuery = Static<typeof MarketsSearchQuery>;

export const SearchMarket = Type.Object(
  {
    venue: Type.String({ description: 'Venue code' }),
    title: Type.String(),
    status: Type.Union([Type.Literal('open'), Type.Literal('closed')], {
      description: 'open, or closed (no longer trading, resolved or not)',
    }),
    price: Type.Optional(Type.Number({ description: 'Current YES (first outcome) price, 0–1' })),
    volume: Type.Optional(Type.Number({ description: 'Lifetime traded volume, USD' })),
    market_slug: Type.Optional(Type.String({ description: `Market slug (${slugVenues})` })),
    market_id: Type.Optional(Type.String({ description: `Market id (${idVenues})` })),
    condition_id: Type.Optional(Type.String({ description: `Condition id (${conditionText})` })),
    canonical_id: Type.Optional(Type.String({ description: 'Canonical id of the YES (first) outcome' })),
    end_time: Type.Optional(
      Type.String({ description: 'When trading ends, ISO 8601; omitted where the venue has none' }),
    ),
  },
  { description: 'A market found; fields without a value are omitted' },
);
export type SearchMarket = Static<typeof SearchMarket>;

export const MarketsSearchResponse = Type.Object(
  {
    query: Type.String({ description: 'The q parameter as given' }),
    count: Type.Integer({ description: 'Markets in this response' }),
    venues_searched: Type.Array(Type.String(), { description: 'The venues searched, sorted alphabetically' }),
    venues_failed: Type.Array(Type.String(), {
      description:
        'The venues searched whose data could not be read (empty when every venue answered): their markets ' +
        'are missing from this answer; retry later for a complete one. When every venue searched fails the ' +
        'answer is a 500 (503 when temporary), never an empty list',
    }),
    markets: Type.Array(SearchMarket, {
      description:
        "Interleaved round-robin across venues (one of each venue's in turn, venues in alphabetical order); " +
        "each venue's own results by relevance, then volume",
    }),
  },
  { description: 'Markets of the venues searched whose title holds every word of q' },
);
export type MarketsSearchResponse = Static<typeof MarketsSearchResponse>;
