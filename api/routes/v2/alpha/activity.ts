/** `GET /v2/alpha/activity`: the schema here; SQL and row mapping in api/queries/alpha/activity.ts. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ActivityQuery, ActivityResponse } from '../../../../schemas/api/alpha-activity.ts';
import { keyedErrorResponses } from '../../../../schemas/api/common.ts';
import { alphaActivity } from '../../../queries/alpha/activity.ts';
import { listHandler } from '../../../queries/list.ts';
import type { RouteContext } from '../../context.ts';

export async function alphaActivityRoutes(scope: FastifyInstance, ctx: RouteContext) {
  scope.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v2/alpha/activity',
    {
      schema: {
        summary: 'Alpha wallet activity (SPLIT, MERGE, REDEEM, CONVERT)',
        description:
          'Position actions on the conditional-token contracts, attributed to the user who acted. CONVERT ' +
          'rows (neg-risk conversions) carry neg_risk_market_id and index_set and have null condition_id ' +
          'and market_id. Free and unlimited: not counted toward the monthly quota.',
        tags: ['alpha'],
        querystring: ActivityQuery,
        response: { 200: ActivityResponse, ...keyedErrorResponses },
      },
    },
    listHandler(scope, ctx, alphaActivity),
  );
}
