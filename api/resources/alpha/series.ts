/**
 * `GET /v2/alpha/series` and `GET /v2/alpha/series/{slug}`: SQL in api/queries/alpha/series.ts (the
 * detail's events through api/queries/alpha/events.ts).
 */
import {
  SeriesDetailQuery,
  SeriesDetailResponse,
  SeriesListQuery,
  SeriesListResponse,
  SeriesParams,
  seriesDetailErrorResponses,
} from '../../../schemas/api/alpha-series.ts';
import { keyedErrorResponses } from '../../../schemas/api/common.ts';
import { alphaSeriesDetail, alphaSeriesList } from '../../queries/alpha/series.ts';
import { defineResource, METERED } from '../define.ts';
import { ALPHA_CATALOG_LISTS } from './sources.ts';

export const alphaSeriesResource = defineResource({
  path: '/v2/alpha/series',
  schema: {
    summary: 'Alpha series',
    description:
      'Recurring groupings of events, most open events first, then slug. active=true (default) lists ' +
      'the series with an open event; false includes the others. Offset pagination with the total.',
    tags: ['alpha'],
    querystring: SeriesListQuery,
    response: { 200: SeriesListResponse, ...keyedErrorResponses },
  },
  access: METERED,
  // The catalog lists (analytics/catalog/), rebuilt whole by the build, which bumps analytics:alpha-catalog.
  sources: [ALPHA_CATALOG_LISTS],
  read: (ctx, { query }) => alphaSeriesList(ctx, query),
});

export const alphaSeriesDetailResource = defineResource({
  path: '/v2/alpha/series/:slug',
  schema: {
    summary: 'Alpha series detail',
    description:
      'One series and its events, newest first (ties by event id), cursor paginated; status filters ' +
      'the events. Events carry markets: null. Unknown slug: 404.',
    tags: ['alpha'],
    params: SeriesParams,
    querystring: SeriesDetailQuery,
    response: { 200: SeriesDetailResponse, ...seriesDetailErrorResponses },
  },
  access: METERED,
  // The series list and the event list (analytics/catalog/), rebuilt whole by the build.
  sources: [ALPHA_CATALOG_LISTS],
  read: (ctx, { params, query }) => alphaSeriesDetail(ctx, params.slug, query),
});
