/** `GET /v2/alpha/market-price/{token_id}`: the schemas here; the rule and SQL in api/queries/alpha/market-price.ts. */
import {
  MarketPriceQuery,
  MarketPriceResponse,
  marketDataErrorResponses,
  TokenParams,
} from '../../../schemas/api/alpha-market-data.ts';
import { alphaMarketPrice } from '../../queries/alpha/market-price.ts';
import { defineResource, FREE } from '../define.ts';
import { ALPHA_CHAIN_SOURCE } from './sources.ts';

export const alphaMarketPriceResource = defineResource({
  path: '/v2/alpha/market-price/:token_id',
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
  access: FREE,
  // The price reads the fills (maker fills of the token and its complement) and alpha_tokens.
  sources: [ALPHA_CHAIN_SOURCE],
  read: (ctx, { query, params }) => alphaMarketPrice(ctx.deps.clickhouse, params.token_id, query),
});
