/** `GET /v2/alpha/trades`: every OrderFilled; SQL and row mapping in api/queries/alpha/trades.ts. */
import { TradesQuery, TradesResponse } from '../../../schemas/api/alpha-trades.ts';
import { keyedErrorResponses } from '../../../schemas/api/common.ts';
import { alphaTrades } from '../../queries/alpha/trades.ts';
import { defineResource, FREE } from '../define.ts';
import { ALPHA_CHAIN_SOURCE, ALPHA_VENUE } from './sources.ts';

export const alphaTradesResource = defineResource({
  path: '/v2/alpha/trades',
  schema: {
    summary: 'Alpha trades (fills)',
    description:
      'Every OrderFilled of the alpha exchanges (versions 1 and 2). Each row is one fill: role `maker` ' +
      "rows are one per matched maker order (count these for volume), role `taker` rows are the taker's " +
      'aggregate view. Filters combine with AND. Free and unlimited: not counted toward the monthly quota.',
    tags: ['alpha'],
    querystring: TradesQuery,
    response: { 200: TradesResponse, ...keyedErrorResponses },
  },
  access: FREE,
  // Fills are chain rows; market_slug (and the market_slug filter) come from the venue.
  sources: [ALPHA_CHAIN_SOURCE, ALPHA_VENUE],
  read: alphaTrades,
});
