/**
 * `GET /v2/alpha/candlesticks/{condition_id}` and `/v2/alpha/candlesticks/token/{token_id}`: the schemas
 * here; range rules, SQL and mapping in api/queries/alpha/candles.ts.
 */
import {
  CandlesQuery,
  CandlesResponse,
  ConditionParams,
  marketDataErrorResponses,
  TokenParams,
} from '../../../schemas/api/alpha-market-data.ts';
import { alphaCandles } from '../../queries/alpha/candles.ts';
import { conditionIdOf } from '../../queries/alpha/market-data.ts';
import { defineResource, FREE } from '../define.ts';
import { ALPHA_MARKET_DATA } from './sources.ts';

const RULES =
  'interval: 0 (auto, default: the smallest width whose maximum range covers the span), 1, 5, 15, 60 or ' +
  '1440 minutes; maximum range 7, 14, 30 and 90 days, none for 1440 (400 beyond it, or when start_time ' +
  'is not before end_time). end_time defaults to the last trade; start_time to the first trade (auto, ' +
  '1440) or the later of it and end_time minus the maximum range. A period is listed when it overlaps ' +
  'the range; periods without trades are omitted. 404: never seen on chain. Free and unlimited.';

export const alphaCandlesticksResource = defineResource({
  path: '/v2/alpha/candlesticks/:condition_id',
  schema: {
    summary: 'Alpha condition candles (YES terms)',
    description: `Candles of a condition in YES terms: a NO fill at p counts as 1 − p; volume of both tokens. ${RULES}`,
    tags: ['alpha'],
    params: ConditionParams,
    querystring: CandlesQuery,
    response: { 200: CandlesResponse, ...marketDataErrorResponses },
  },
  access: FREE,
  // Candles and totals (analytics/). alpha_tokens only tells a 404 (never cached) from a market without
  // trades, and a market once seen on chain stays seen.
  sources: [ALPHA_MARKET_DATA],
  read: (ctx, { query, params }) =>
    alphaCandles(ctx.deps.clickhouse, { level: 'condition', id: conditionIdOf(params.condition_id) }, query),
});

export const alphaTokenCandlesticksResource = defineResource({
  path: '/v2/alpha/candlesticks/token/:token_id',
  schema: {
    summary: 'Alpha token candles (raw prices)',
    description: `Candles of one outcome token: its own prices, not normalized; its volume only. ${RULES}`,
    tags: ['alpha'],
    params: TokenParams,
    querystring: CandlesQuery,
    response: { 200: CandlesResponse, ...marketDataErrorResponses },
  },
  access: FREE,
  // Candles and totals (analytics/). alpha_tokens only tells a 404 (never cached) from a market without
  // trades, and a market once seen on chain stays seen.
  sources: [ALPHA_MARKET_DATA],
  read: (ctx, { query, params }) =>
    alphaCandles(ctx.deps.clickhouse, { level: 'token', id: params.token_id }, query),
});
