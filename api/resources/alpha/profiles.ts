/** `GET /v2/alpha/wallets/profiles`: rules and SQL in api/queries/alpha/profiles.ts. */
import {
  ProfilesQuery,
  ProfilesResponse,
  profilesErrorResponses,
} from '../../../schemas/api/alpha-profiles.ts';
import { alphaWalletProfiles } from '../../queries/alpha/profiles.ts';
import { defineResource, GATED } from '../define.ts';
import { ALPHA_PROFILES } from './sources.ts';

export const alphaProfilesResource = defineResource({
  path: '/v2/alpha/wallets/profiles',
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
  access: GATED,
  // The profiles table, rewritten whole by the profiles job.
  sources: [ALPHA_PROFILES],
  read: (ctx, { query }) => alphaWalletProfiles(ctx.deps.clickhouse, query.addresses),
});
