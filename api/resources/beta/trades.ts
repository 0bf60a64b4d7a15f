/** `GET /v2/beta/trades`: the schema here; SQL and row mapping in api/queries/beta/trades.ts. */
import { BetaTradesQuery, BetaTradesResponse } from '../../../schemas/api/beta-trades.ts';
import { keyedErrorResponses } from '../../../schemas/api/common.ts';
import { betaTrades } from '../../queries/beta/trades.ts';
import { defineResource, METERED } from '../define.ts';

export const betaTradesResource = defineResource({
  path: '/v2/beta/trades',
  schema: {
    summary: 'Beta trades',
    description:
      "Beta's trades, newest first by default. At least one of ticker (exact) or event_ticker (a prefix " +
      "of the trade's market ticker) is required (400 otherwise); the other filters combine with AND. " +
      'Prices 0–1; count is fractional when the venue traded a fraction of a contract. Counted toward ' +
      'the monthly quota.',
    tags: ['beta'],
    querystring: BetaTradesQuery,
    response: { 200: BetaTradesResponse, ...keyedErrorResponses },
  },
  access: METERED,
  // Never cached (docs/api.md, "Beta trades"); keying it on venue:beta (bumped by the venue's writes) would
  // be a change of behaviour of its own.
  sources: { uncached: 'not cached before resources (docs/api.md); caching it is a change of its own' },
  read: (ctx, { query }) => betaTrades(ctx, query),
});
