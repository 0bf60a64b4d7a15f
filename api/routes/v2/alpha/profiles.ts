/** `GET /v2/alpha/wallets/profiles`: the schemas here; rules and SQL in api/queries/alpha/profiles.ts. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import {
  ProfilesQuery,
  ProfilesResponse,
  profilesErrorResponses,
} from '../../../../schemas/api/alpha-profiles.ts';
import type { RouteContext } from '../../../context.ts';
import { alphaWalletProfiles } from '../../../queries/alpha/profiles.ts';

export async function alphaProfilesRoutes(scope: FastifyInstance, ctx: RouteContext) {
  scope.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v2/alpha/wallets/profiles',
    {
      schema: {
        summary: 'Alpha wallet profiles (batch)',
        description:
          'Profiles of up to 20 wallets (`addresses`, comma-separated; case and duplicates ignored): ' +
          'realized P&L, volume, ROI, trades, wins and losses, win rate, profit factor, closes, total P&L, ' +
          'average buy and sell prices and fees over 1, 7 and 30 days and all time, trading styles and ' +
          'entry edge, as computed by the last profiles run (computed_at). Answered in the order asked; ' +
          'wallets without a profile are omitted. Dev tier or higher.',
        tags: ['alpha'],
        querystring: ProfilesQuery,
        response: { 200: ProfilesResponse, ...profilesErrorResponses },
      },
    },
    async (request) => alphaWalletProfiles(ctx.deps.clickhouse, request.query.addresses),
  );
}
