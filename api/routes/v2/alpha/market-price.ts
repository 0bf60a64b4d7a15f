/** `GET /v2/alpha/market-price/{token_id}`: the schemas here; the rule and SQL in api/queries/alpha/market-price.ts. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import {
  MarketPriceQuery,
  MarketPriceResponse,
  marketDataErrorResponses,
  TokenParams,
} from '../../../../schemas/api/alpha-market-data.ts';
import type { RouteContext } from '../../../context.ts';
import { alphaMarketPrice } from '../../../queries/alpha/market-price.ts';

export async function alphaMarketPriceRoutes(scope: FastifyInstance, ctx: RouteContext) {
  scope.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v2/alpha/market-price/:token_id',
    {
      schema: {
        summary: 'Alpha market price of a token',
        description:
          'The price of a token from the last 5 maker fills of its market (the token and its complement; a ' +
          'complement fill at p counts as 1 − p) at or before at_time (default now): their USD-weighted mean ' +
          'when max − min ≤ 0.10, else the last price. at_time is echoed (now when omitted). 404: token ' +
          'never seen on chain or no fill at or before at_time. Free and unlimited.',
        tags: ['alpha'],
        params: TokenParams,
        querystring: MarketPriceQuery,
        response: { 200: MarketPriceResponse, ...marketDataErrorResponses },
      },
    },
    async (request) => alphaMarketPrice(ctx.deps.clickhouse, request.params.token_id, request.query),
  );
}
