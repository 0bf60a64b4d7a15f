/**
 * `GET /v2/alpha/tags`, `/v2/alpha/tag/{slug}`, `/v2/alpha/tag/{slug}/subtags` and
 * `/v2/alpha/categories`: queries and responses (interface-shapes §4.2). One definition for validation,
 * OpenAPI and types; the Tag and Category resources live in alpha-catalog.ts.
 */
import { type Static, Type } from '@sinclair/typebox';
import { AlphaCategory, AlphaTag } from './alpha-catalog.ts';
import { cursorQuery, ErrorBody, keyedErrorResponses, Pagination, StringEnum } from './common.ts';

export const TAG_SORTS = ['volume', 'events', 'label'] as const;
export type TagSort = (typeof TAG_SORTS)[number];

export const TagsQuery = Type.Object({
  search: Type.Optional(
    Type.String({
      minLength: 3,
      maxLength: 100,
      description: 'Label search: every word must begin a word of the label (any order)',
    }),
  ),
  sort: Type.Optional(
    StringEnum(TAG_SORTS, {
      default: 'volume',
      description:
        'volume (all-time volume of its events, highest first; default), events (event count, highest ' +
        'first), label (A→Z, any case). Ties by tag id',
    }),
  ),
  ...cursorQuery({ min: 1, max: 200, default: 50 }),
});
export type TagsQuery = Static<typeof TagsQuery>;

export const TagsResponse = Type.Object(
  { tags: Type.Array(AlphaTag), pagination: Pagination },
  { description: 'One page of tags' },
);
export type TagsResponse = Static<typeof TagsResponse>;

export const TagParams = Type.Object({
  slug: Type.String({ minLength: 1, maxLength: 300, description: 'Tag slug' }),
});

export const SUBTAG_STATUSES = ['open', 'closed'] as const;
export type SubtagStatus = (typeof SUBTAG_STATUSES)[number];

export const SubtagsQuery = Type.Object({
  status: Type.Optional(
    StringEnum(SUBTAG_STATUSES, {
      default: 'open',
      description: 'Which events are counted: open (a market is open; default) or closed',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 30, description: 'Subtags, 1 to 100 (default 30)' }),
  ),
});
export type SubtagsQuery = Static<typeof SubtagsQuery>;

export const Subtag = Type.Object({
  slug: Type.String(),
  label: Type.String(),
  event_count: Type.Integer({
    description: 'Events with this tag and the status: what /v2/alpha/events?tag=<slug>&status= pages out',
  }),
  total_volume_usd: Type.Number({ description: 'All-time USD volume of those events' }),
  liquidity_usd: Type.Number({ description: 'Liquidity of those events, USD' }),
});
export type Subtag = Static<typeof Subtag>;

export const SubtagsResponse = Type.Object(
  {
    tag: Type.Object({ slug: Type.String(), label: Type.String() }),
    status: StringEnum(SUBTAG_STATUSES),
    subtags: Type.Array(Subtag, {
      description: "The tag's child tags by event_count (highest first), then the hierarchy's rank",
    }),
    count: Type.Integer({ description: 'Subtags in this response' }),
  },
  { description: "A tag's ranked child tags" },
);
export type SubtagsResponse = Static<typeof SubtagsResponse>;

export const CategoriesResponse = Type.Object(
  {
    categories: Type.Array(AlphaCategory, {
      description: 'Every category, by all-time volume (highest first), then slug',
    }),
  },
  { description: 'The categories of the events' },
);
export type CategoriesResponse = Static<typeof CategoriesResponse>;

/** The error responses of the tag routes, for OpenAPI. */
export const tagErrorResponses = {
  ...keyedErrorResponses,
  404: Type.Object(ErrorBody.properties, { description: 'Not Found: no tag has this slug' }),
} as const;
