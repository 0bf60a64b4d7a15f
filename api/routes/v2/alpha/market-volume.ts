/** `GET /v2/alpha/markets/{token_id}/volume`: the schemas here; rules and SQL in api/queries/alpha/volume.ts. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import {
  marketDataErrorResponses,
  SeriesQuery,
  TokenParams,
  VolumeResponse,
} from '../../../../schemas/api/alpha-market-data.ts';
import type { RouteContext } from '../../../context.ts';
import { alphaTokenVolume } from '../../../queries/alpha/volume.ts';

export async function alphaMarketVolumeRoutes(scope: FastifyInstance, ctx: RouteContext) {
  scope.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v2/alpha/markets/:token_id/volume',
    {
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
    },
    async (request) => alphaTokenVolume(ctx.deps.clickhouse, request.params.token_id, request.query),
  );
}
