/**
 * `GET /v2/alpha/search`: query and response (interface-shapes §5.2). One definition for validation,
 * OpenAPI and types; Market, Event and Tag live in alpha-catalog.ts.
 */
import { type Static, Type } from '@sinclair/typebox';
import { AlphaEvent, AlphaMarket, AlphaTag } from './alpha-catalog.ts';
import { StringEnum } from './common.ts';

export const SEARCH_TYPES = ['markets', 'events', 'tags'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export const SEARCH_STATUSES = ['open', 'closed'] as const;
export type SearchStatus = (typeof SEARCH_STATUSES)[number];

export const SearchQuery = Type.Object({
  q: Type.String({
    minLength: 3,
    maxLength: 100,
    description:
      'Search words: a row matches when every word begins a word of its title (market question, event ' +
      'title, tag label), in any order',
  }),
  types: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      default: 'markets,events,tags',
      description: 'Comma-separated subset of markets, events, tags (default all); an unknown type is a 400',
    }),
  ),
  status: Type.Optional(
    StringEnum(SEARCH_STATUSES, {
      default: 'open',
      description:
        'Markets and events: open (default) or closed (for markets: closed or resolved). Tags have no status',
    }),
  ),
  limit_per_type: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 50,
      default: 10,
      description: 'Rows per type, 1 to 50 (default 10)',
    }),
  ),
});
export type SearchQuery = Static<typeof SearchQuery>;

export const SearchResponse = Type.Object(
  {
    query: Type.String({ description: 'The q parameter as given' }),
    markets: Type.Array(AlphaMarket),
    events: Type.Array(AlphaEvent, { description: 'Events without their markets (markets: null)' }),
    tags: Type.Array(AlphaTag),
    counts: Type.Object(
      {
        markets: Type.Integer(),
        events: Type.Integer(),
        tags: Type.Integer(),
      },
      { description: 'Matches per type in all (the arrays hold the first limit_per_type); 0 when omitted' },
    ),
  },
  {
    description:
      'Matches of each requested type, by relevance (2 per query word found whole in the title, 1 more ' +
      'when the title begins with the query), then all-time volume, then id',
  },
);
export type SearchResponse = Static<typeof SearchResponse>;
