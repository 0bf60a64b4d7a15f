/** `GET /v2/alpha/markets/{token_id}/volume`: the schemas here; rules and SQL in api/queries/alpha/volume.ts. */
import {
  marketDataErrorResponses,
  SeriesQuery,
  TokenParams,
  VolumeResponse,
} from '../../../schemas/api/alpha-market-data.ts';
import { alphaTokenVolume } from '../../queries/alpha/volume.ts';
import { defineResource, FREE } from '../define.ts';
import { ALPHA_CHAIN_SOURCE, ALPHA_MARKET_DATA } from './sources.ts';

export const alphaMarketVolumeResource = defineResource({
  path: '/v2/alpha/markets/:token_id/volume',
  schema: {
    summary: 'Alpha token volume over time (cumulative)',
    description:
      'Cumulative USD volume, buy volume and sell volume of a token at the end of each day, week ' +
      '(from Monday 00:00 UTC), month or year, one point per period (timestamp: its start) from the ' +
      'first trade, everything before start_time included; all: one point at end_time (default now). ' +
      'end_time defaults to now; periods after now are not listed. 404: never seen on chain. Free and ' +
      'unlimited.',
    tags: ['alpha'],
    params: TokenParams,
    querystring: SeriesQuery,
    response: { 200: VolumeResponse, ...marketDataErrorResponses },
  },
  access: FREE,
  // The last period reads the maker fills of end_time's minute (chain rows) too.
  sources: [ALPHA_MARKET_DATA, ALPHA_CHAIN_SOURCE],
  read: (ctx, { query, params }) => alphaTokenVolume(ctx.deps.clickhouse, params.token_id, query),
});
