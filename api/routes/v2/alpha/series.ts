/**
 * `GET /v2/alpha/series` and `GET /v2/alpha/series/{slug}`: the schemas here; SQL in
 * api/queries/alpha/series.ts (the detail's events through api/queries/alpha/events.ts).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import {
  SeriesDetailQuery,
  SeriesDetailResponse,
  SeriesListQuery,
  SeriesListResponse,
  SeriesParams,
  seriesDetailErrorResponses,
} from '../../../../schemas/api/alpha-series.ts';
import { keyedErrorResponses } from '../../../../schemas/api/common.ts';
import type { RouteContext } from '../../../context.ts';
import { alphaSeriesDetail, alphaSeriesList } from '../../../queries/alpha/series.ts';

export async function alphaSeriesRoutes(scope: FastifyInstance, ctx: RouteContext) {
  const typed = scope.withTypeProvider<TypeBoxTypeProvider>();
  typed.get(
    '/v2/alpha/series',
    {
      schema: {
        summary: 'Alpha series',
        description:
          'Recurring groupings of events, most open events first, then slug. active=true (default) lists ' +
          'the series with an open event; false includes the others. Offset pagination with the total.',
        tags: ['alpha'],
        querystring: SeriesListQuery,
        response: { 200: SeriesListResponse, ...keyedErrorResponses },
      },
    },
    async (request) => alphaSeriesList(ctx, request.query),
  );
  typed.get(
    '/v2/alpha/series/:slug',
    {
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
    },
    async (request) => alphaSeriesDetail(ctx, request.params.slug, request.query),
  );
}
