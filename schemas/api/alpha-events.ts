/**
 * `GET /v2/alpha/events/keyset` and `GET /v2/alpha/events`: query and response. One definition for
 * validation, OpenAPI and types; the Event resource itself lives in alpha-catalog.ts.
 */
import { type Static, Type } from '@sinclair/typebox';
import { MAX_NESTED_MARKETS } from '../tables/alpha-catalog-lists.ts';
import { AlphaEvent } from './alpha-catalog.ts';
import { cursorQuery, Pagination, StringEnum } from './common.ts';

/** SPEC's event sorts; metric sorts run descending, ties by event id. */
export const EVENT_SORTS = [
  'created',
  'created_asc',
  'start_date',
  'start_date_asc',
  'end_date',
  'end_date_desc',
  'title',
  'relevance',
  'volume_1d',
  'volume_7d',
  'volume_30d',
  'volume_all_time',
  'open_interest',
  'trades_1d',
  'trades_7d',
  'trades_30d',
] as const;
export type EventSort = (typeof EVENT_SORTS)[number];

export const EVENT_STATUSES = ['open', 'closed'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

/** Repeated-key array parameter (`?tag=a&tag=b`): any item matches, at most 50 items. */
const list = (description: string) =>
  Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
      maxItems: 50,
      description: `${description}; repeat the key for several (up to 50), any matches`,
    }),
  );

export const EventsQuery = Type.Object({
  status: Type.Optional(
    StringEnum(EVENT_STATUSES, { description: 'open (a market is open) or closed (every market closed)' }),
  ),
  category: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Category label (any case, e.g. "Sports") or slug ("sports")',
    }),
  ),
  search: Type.Optional(
    Type.String({
      minLength: 3,
      maxLength: 100,
      description: 'Title search: every word must begin a word of the title (any order)',
    }),
  ),
  id: list('Event ids'),
  slug: list('Event slugs'),
  tag: list('Tag slugs'),
  sort: Type.Optional(
    StringEnum(EVENT_SORTS, {
      default: 'created',
      description:
        'created (newest first, default), created_asc, start_date (newest first), start_date_asc, end_date ' +
        '(soonest first), end_date_desc, title (A→Z), relevance (search rank, then volume_all_time), ' +
        'volume_1d, volume_7d, volume_30d, volume_all_time, open_interest, trades_1d, trades_7d, trades_30d ' +
        '(metrics descending). Ties by event id; missing dates last in both directions.',
    }),
  ),
  ...cursorQuery({ min: 1, max: 100, default: 20 }),
  include_markets: Type.Optional(
    Type.Boolean({ default: false, description: 'Nest each event’s markets (by volume) in `markets`' }),
  ),
  markets_per_event: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_NESTED_MARKETS,
      default: 10,
      description: `At most this many nested markets per event (1 to ${MAX_NESTED_MARKETS}, default 10)`,
    }),
  ),
  min_volume: Type.Optional(
    Type.Number({ minimum: 0, maximum: 1e15, description: 'Only events with 7-day USD volume ≥ value' }),
  ),
  min_open_interest: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 1e15,
      description: 'Only events with current open interest (USD) ≥ value',
    }),
  ),
});
export type EventsQuery = Static<typeof EventsQuery>;

export const EventsResponse = Type.Object(
  { events: Type.Array(AlphaEvent), pagination: Pagination },
  { description: 'One page of events' },
);
export type EventsResponse = Static<typeof EventsResponse>;
