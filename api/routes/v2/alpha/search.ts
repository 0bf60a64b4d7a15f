/** `GET /v2/alpha/search`: the schema here; SQL and mapping in api/queries/alpha/search.ts. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { SearchQuery, SearchResponse } from '../../../../schemas/api/alpha-search.ts';
import { keyedErrorResponses } from '../../../../schemas/api/common.ts';
import type { RouteContext } from '../../../context.ts';
import { alphaSearch } from '../../../queries/alpha/search.ts';

export async function alphaSearchRoutes(scope: FastifyInstance, ctx: RouteContext) {
  scope.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v2/alpha/search',
    {
      schema: {
        summary: 'Alpha search',
        description:
          'One search over markets, events and tags, grouped by type: rows whose title (market question, ' +
          'event title, tag label) holds every word of q as a word prefix, in any order, ranked by ' +
          'relevance, then all-time volume, then id; counts are the matches per type in all. status ' +
          'applies to markets (closed: closed or resolved) and events. Events come without markets.',
        tags: ['alpha'],
        querystring: SearchQuery,
        response: { 200: SearchResponse, ...keyedErrorResponses },
      },
    },
    async (request) => alphaSearch(ctx, request.query),
  );
}
