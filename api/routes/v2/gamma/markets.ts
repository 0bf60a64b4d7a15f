/** `GET /v2/gamma/markets`: the schemas here; filters, sorts, the page and the mapping in api/queries/gamma/markets.ts. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { keyedErrorResponses } from '../../../../schemas/api/common.ts';
import { GammaMarketsQuery, GammaMarketsResponse } from '../../../../schemas/api/gamma-markets.ts';
import { listGammaMarkets } from '../../../queries/gamma/markets.ts';
import type { RouteContext } from '../../context.ts';

export async function gammaMarketsRoutes(scope: FastifyInstance, ctx: RouteContext) {
  scope.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v2/gamma/markets',
    {
      schema: {
        summary: 'Gamma markets',
        description:
          "Gamma's markets (AMM and order book), outcomes with token ids, prices 0–1 and canonical ids. " +
          'open_interest_usd is null for order-book (clob) markets, a number for AMM markets. ' +
          'Filters combine with AND; a list parameter (repeat the key, up to 50 items) matches any of its items; ' +
          'canonical_id matches a market when any of its outcomes has one of the ids. Cursor paginated: pass ' +
          'pagination_key back with the same filters and sort. limit 1–100 (default 20). Free and unlimited: ' +
          'not counted toward the monthly quota.',
        tags: ['gamma'],
        querystring: GammaMarketsQuery,
        response: { 200: GammaMarketsResponse, ...keyedErrorResponses },
      },
    },
    async (request) => listGammaMarkets(ctx, request.query),
  );
}
