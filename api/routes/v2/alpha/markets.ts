/**
 * `GET /v2/alpha/markets` and `GET /v2/alpha/markets/keyset` (same parameters and behaviour; `limit` up
 * to 100 and 200): the schemas here; filters, sorts and the page in api/queries/alpha/markets.ts.
 * `/markets/keyset` is a static path, so it never reaches the `/markets/:token_id/...` routes.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { MarketsKeysetQuery, MarketsQuery, MarketsResponse } from '../../../../schemas/api/alpha-markets.ts';
import { keyedErrorResponses } from '../../../../schemas/api/common.ts';
import type { RouteContext } from '../../../context.ts';
import { listMarkets } from '../../../queries/alpha/markets.ts';

const DESCRIPTION =
  "alpha's markets (open, closed and resolved) with their outcomes, current prices, volume, liquidity " +
  'and rolling metrics, from the catalog lists (rebuilt by the catalog build; rolling metrics refresh ' +
  'hourly). Filters combine with AND; a list parameter (repeat the key) matches any of its items. Cursor ' +
  'paginated: pass pagination_key back with the same filters and sort. Free and unlimited: not counted ' +
  'toward the monthly quota.';

export async function alphaMarketsRoutes(scope: FastifyInstance, ctx: RouteContext) {
  const typed = scope.withTypeProvider<TypeBoxTypeProvider>();
  typed.get(
    '/v2/alpha/markets',
    {
      schema: {
        summary: 'Alpha markets',
        description: `${DESCRIPTION} limit 1–100.`,
        tags: ['alpha'],
        querystring: MarketsQuery,
        response: { 200: MarketsResponse, ...keyedErrorResponses },
      },
    },
    async (request) => listMarkets(ctx, request.query),
  );
  typed.get(
    '/v2/alpha/markets/keyset',
    {
      schema: {
        summary: 'Alpha markets (keyset)',
        description: `${DESCRIPTION} limit 1–200.`,
        tags: ['alpha'],
        querystring: MarketsKeysetQuery,
        response: { 200: MarketsResponse, ...keyedErrorResponses },
      },
    },
    async (request) => listMarkets(ctx, request.query),
  );
}
