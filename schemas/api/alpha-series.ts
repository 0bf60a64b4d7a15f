/**
 * `GET /v2/alpha/series` and `GET /v2/alpha/series/{slug}`: query and response. The Series and Event
 * resources live in alpha-catalog.ts.
 */
import { type Static, Type } from '@sinclair/typebox';
import { AlphaEvent, AlphaSeries } from './alpha-catalog.ts';
import { EVENT_STATUSES } from './alpha-events.ts';
import { cursorQuery, ErrorBody, keyedErrorResponses, Pagination, StringEnum } from './common.ts';

export const SERIES_RECURRENCES = ['daily', 'weekly', 'monthly'] as const;

export const SeriesListQuery = Type.Object({
  recurrence: Type.Optional(StringEnum(SERIES_RECURRENCES, { description: 'daily, weekly or monthly' })),
  active: Type.Optional(
    Type.Boolean({
      default: true,
      description: 'true (default): only series with an open event; false: inactive series too',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1 to 200 (default 50)' }),
  ),
  offset: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'Series to skip (default 0)' }),
  ),
});
export type SeriesListQuery = Static<typeof SeriesListQuery>;

export const OffsetPagination = Type.Object(
  {
    limit: Type.Integer({ description: 'Requested page size' }),
    offset: Type.Integer({ description: 'Series skipped' }),
    total: Type.Integer({ description: 'Series matching the filters' }),
    has_more: Type.Boolean({ description: 'More series after this page' }),
  },
  { title: 'Offset pagination object' },
);

export const SeriesListResponse = Type.Object(
  { series: Type.Array(AlphaSeries), pagination: OffsetPagination },
  { description: 'One page of series, by open events (most first), then slug' },
);
export type SeriesListResponse = Static<typeof SeriesListResponse>;

export const SeriesParams = Type.Object({
  slug: Type.String({ minLength: 1, maxLength: 300, description: 'Series slug' }),
});

const { limit, pagination_key } = cursorQuery({ min: 1, max: 200, default: 50 });

export const SeriesDetailQuery = Type.Object({
  status: Type.Optional(StringEnum(EVENT_STATUSES, { description: 'Only its open or closed events' })),
  limit,
  pagination_key,
});
export type SeriesDetailQuery = Static<typeof SeriesDetailQuery>;

export const SeriesDetailResponse = Type.Object(
  { series: AlphaSeries, events: Type.Array(AlphaEvent), pagination: Pagination },
  { description: 'One series and a page of its events, newest first (markets: null)' },
);
export type SeriesDetailResponse = Static<typeof SeriesDetailResponse>;

/** The detail's error responses: the keyed ones and 404 for an unknown slug. */
export const seriesDetailErrorResponses = {
  ...keyedErrorResponses,
  404: Type.Object(ErrorBody.properties, { description: 'Not Found: no series has this slug' }),
};
