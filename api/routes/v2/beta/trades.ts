/** `GET /v2/beta/trades`: the schema here; SQL and row mapping in api/queries/beta/trades.ts. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { BetaTradesQuery, BetaTradesResponse } from '../../../../schemas/api/beta-trades.ts';
import { keyedErrorResponses } from '../../../../schemas/api/common.ts';
import type { RouteContext } from '../../../context.ts';
import { betaTrades } from '../../../queries/beta/trades.ts';

export async function betaTradesRoutes(scope: FastifyInstance, ctx: RouteContext) {
  scope.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v2/beta/trades',
    {
      schema: {
        summary: 'Beta trades',
        description:
          "Beta's trades, newest first by default. At least one of ticker (exact) or event_ticker (a prefix " +
          "of the trade's market ticker) is required (400 otherwise); the other filters combine with AND. " +
          'Prices 0–1; count is fractional when the venue traded a fraction of a contract. Counted toward ' +
          'the monthly quota.',
        tags: ['beta'],
        querystring: BetaTradesQuery,
        response: { 200: BetaTradesResponse, ...keyedErrorResponses },
      },
    },
    async (request) => betaTrades(ctx, request.query),
  );
}
