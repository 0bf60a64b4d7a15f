/** `GET /v2/epsilon/markets`: the schemas here; filters, sorts, the page and the mapping in api/queries/epsilon/markets.ts. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { keyedErrorResponses } from '../../../../schemas/api/common.ts';
import { EpsilonMarketsQuery, EpsilonMarketsResponse } from '../../../../schemas/api/epsilon-markets.ts';
import { listEpsilonMarkets } from '../../../queries/epsilon/markets.ts';
import type { RouteContext } from '../../context.ts';

export async function epsilonMarketsRoutes(scope: FastifyInstance, ctx: RouteContext) {
  scope.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v2/epsilon/markets',
    {
      schema: {
        summary: 'Epsilon markets',
        description:
          "Epsilon's markets, outcomes with token ids, best bid and ask 0–1 and canonical ids (the venue has no " +
          'end time). ' +
          'Filters combine with AND; a list parameter (repeat the key, up to 50 items) matches any of its items; ' +
          'canonical_id matches a market when any of its outcomes has one of the ids. Cursor paginated: pass ' +
          'pagination_key back with the same filters and sort. limit 1–100 (default 20). Free and unlimited: ' +
          'not counted toward the monthly quota.',
        tags: ['epsilon'],
        querystring: EpsilonMarketsQuery,
        response: { 200: EpsilonMarketsResponse, ...keyedErrorResponses },
      },
    },
    async (request) => listEpsilonMarkets(ctx, request.query),
  );
}
