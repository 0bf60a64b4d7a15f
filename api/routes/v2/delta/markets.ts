/** `GET /v2/delta/markets`: the schemas here; filters, sorts, the page and the mapping in api/queries/delta/markets.ts. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { keyedErrorResponses } from '../../../../schemas/api/common.ts';
import { DeltaMarketsQuery, DeltaMarketsResponse } from '../../../../schemas/api/delta-markets.ts';
import { listDeltaMarkets } from '../../../queries/delta/markets.ts';
import type { RouteContext } from '../../context.ts';

export async function deltaMarketsRoutes(scope: FastifyInstance, ctx: RouteContext) {
  scope.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v2/delta/markets',
    {
      schema: {
        summary: 'Delta markets',
        description:
          "Delta's markets (binary, and the alternatives of categorical events), outcomes with token ids, prices " +
          '0–1 and canonical ids. ' +
          'Filters combine with AND; a list parameter (repeat the key, up to 50 items) matches any of its items; ' +
          'canonical_id matches a market when any of its outcomes has one of the ids. Cursor paginated: pass ' +
          'pagination_key back with the same filters and sort. limit 1–100 (default 20). Free and unlimited: ' +
          'not counted toward the monthly quota.',
        tags: ['delta'],
        querystring: DeltaMarketsQuery,
        response: { 200: DeltaMarketsResponse, ...keyedErrorResponses },
      },
    },
    async (request) => listDeltaMarkets(ctx, request.query),
  );
}
