/** `GET /v2/alpha/trades`: the schema here; SQL and row mapping in api/queries/alpha/trades.ts. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { TradesQuery, TradesResponse } from '../../../../schemas/api/alpha-trades.ts';
import { keyedErrorResponses } from '../../../../schemas/api/common.ts';
import { alphaTrades } from '../../../queries/alpha/trades.ts';
import { listHandler } from '../../../queries/list.ts';
import type { RouteContext } from '../../context.ts';

export async function alphaTradesRoutes(scope: FastifyInstance, ctx: RouteContext) {
  scope.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v2/alpha/trades',
    {
      schema: {
        summary: 'Alpha trades (fills)',
        description:
          'Every OrderFilled of the alpha exchanges (versions 1 and 2). Each row is one fill: role `maker` ' +
          "rows are one per matched maker order (count these for volume), role `taker` rows are the taker's " +
          'aggregate view. Filters combine with AND. Free and unlimited: not counted toward the monthly quota.',
        tags: ['alpha'],
        querystring: TradesQuery,
        response: { 200: TradesResponse, ...keyedErrorResponses },
      },
    },
    listHandler(scope, ctx, alphaTrades),
  );
}
