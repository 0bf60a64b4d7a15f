/** `GET /v2/beta/markets`: the schemas here; filters, sorts, the page and the mapping in api/queries/beta/markets.ts. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { BetaMarketsQuery, BetaMarketsResponse } from '../../../../schemas/api/beta-markets.ts';
import { keyedErrorResponses } from '../../../../schemas/api/common.ts';
import { listBetaMarkets } from '../../../queries/beta/markets.ts';
import type { RouteContext } from '../../context.ts';

export async function betaMarketsRoutes(scope: FastifyInstance, ctx: RouteContext) {
  scope.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v2/beta/markets',
    {
      schema: {
        summary: 'Beta markets',
        description:
          "Beta's markets (open, closed and resolved; no multivariate markets), binary Yes/No with bids and asks 0–1 and " +
          'the canonical id of each outcome. min_price and max_price are integer cents (0–100) on the last price. ' +
          'Filters combine with AND; a list parameter (repeat the key, up to 50 items) matches any of its items; ' +
          'canonical_id matches a market when any of its outcomes has one of the ids. Cursor paginated: pass ' +
          'pagination_key back with the same filters and sort. limit 1–100 (default 20). Free and unlimited: ' +
          'not counted toward the monthly quota.',
        tags: ['beta'],
        querystring: BetaMarketsQuery,
        response: { 200: BetaMarketsResponse, ...keyedErrorResponses },
      },
    },
    async (request) => listBetaMarkets(ctx, request.query),
  );
}
