/** `GET /v2/alpha/volume-chart/{condition_id}`: the schemas here; rules and SQL in api/queries/alpha/volume.ts. */
import {
  ConditionParams,
  marketDataErrorResponses,
  VolumeChartQuery,
  VolumeChartResponse,
} from '../../../schemas/api/alpha-market-data.ts';
import { conditionIdOf } from '../../queries/alpha/market-data.ts';
import { alphaVolumeChart } from '../../queries/alpha/volume.ts';
import { defineResource, FREE } from '../define.ts';
import { ALPHA_CHAIN_SOURCE, ALPHA_MARKET_DATA } from './sources.ts';

export const alphaVolumeChartResource = defineResource({
  path: '/v2/alpha/volume-chart/:condition_id',
  schema: {
    summary: 'Alpha volume chart (per period)',
    description:
      'USD volume of a condition per hour, day or week (weeks start Monday 00:00 UTC): total, YES token, ' +
      'NO token, and the trade count. start_time and end_time are required; the range may be at most ' +
      '90 days (hour), 1 year (day) or 3 years (week), else 400. A period is listed when it overlaps ' +
      'the range; periods without trades are omitted. 404: never seen on chain. Free and unlimited.',
    tags: ['alpha'],
    params: ConditionParams,
    querystring: VolumeChartQuery,
    response: { 200: VolumeChartResponse, ...marketDataErrorResponses },
  },
  access: FREE,
  // The last period reads the maker fills of end_time's minute (chain rows) too.
  sources: [ALPHA_MARKET_DATA, ALPHA_CHAIN_SOURCE],
  read: (ctx, { query, params }) =>
    alphaVolumeChart(ctx.deps.clickhouse, conditionIdOf(params.condition_id), query),
});
