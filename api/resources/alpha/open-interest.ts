/**
 * `GET /v2/alpha/markets/{condition_id}/open_interest`: the schemas here; SQL and series in
 * api/queries/alpha/open-interest.ts.
 */
import {
  ConditionParams,
  marketDataErrorResponses,
  OpenInterestResponse,
  SeriesQuery,
} from '../../../schemas/api/alpha-market-data.ts';
import { conditionIdOf } from '../../queries/alpha/market-data.ts';
import { alphaOpenInterest } from '../../queries/alpha/open-interest.ts';
import { defineResource, FREE } from '../define.ts';
import { ALPHA_MARKET_DATA, ALPHA_VENUE } from './sources.ts';

export const alphaOpenInterestResource = defineResource({
  path: '/v2/alpha/markets/:condition_id/open_interest',
  schema: {
    summary: 'Alpha open interest over time',
    description:
      'Open interest (USD: splits, merges, redemptions and neg-risk conversions) of a condition at the ' +
      'end of each day, week (from Monday 00:00 UTC), month or year, one point per period (timestamp: ' +
      'its start) from the first change, carried forward; all: one point at end_time (default now). ' +
      "end_time defaults to now; periods after now are not listed. market_id: the condition's market in " +
      "alpha's catalog, null when the catalog does not know it. 404: never seen " +
      'on chain. Free and unlimited.',
    tags: ['alpha'],
    params: ConditionParams,
    querystring: SeriesQuery,
    response: { 200: OpenInterestResponse, ...marketDataErrorResponses },
  },
  access: FREE,
  // market_id comes from the venue's catalog.
  sources: [ALPHA_MARKET_DATA, ALPHA_VENUE],
  read: (ctx, { query, params }) =>
    alphaOpenInterest(ctx.deps.clickhouse, ctx.markets, conditionIdOf(params.condition_id), query),
});
