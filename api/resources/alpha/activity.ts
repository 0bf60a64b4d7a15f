/** `GET /v2/alpha/activity`: splits, merges, redemptions, conversions; SQL and mapping in api/queries/alpha/activity.ts. */
import { ActivityQuery, ActivityResponse } from '../../../schemas/api/alpha-activity.ts';
import { keyedErrorResponses } from '../../../schemas/api/common.ts';
import { alphaActivity } from '../../queries/alpha/activity.ts';
import { defineResource, FREE } from '../define.ts';
import { ALPHA_CHAIN_SOURCE, ALPHA_VENUE } from './sources.ts';

export const alphaActivityResource = defineResource({
  path: '/v2/alpha/activity',
  schema: {
    summary: 'Alpha wallet activity (SPLIT, MERGE, REDEEM, CONVERT)',
    description:
      'Position actions on the conditional-token contracts, attributed to the user who acted. CONVERT ' +
      'rows (neg-risk conversions) carry neg_risk_market_id and index_set and have null condition_id ' +
      'and market_id. Free and unlimited: not counted toward the monthly quota.',
    tags: ['alpha'],
    querystring: ActivityQuery,
    response: { 200: ActivityResponse, ...keyedErrorResponses },
  },
  access: FREE,
  // Activity rows are chain rows; market_slug (and the market_slug filter) come from the venue.
  sources: [ALPHA_CHAIN_SOURCE, ALPHA_VENUE],
  read: alphaActivity,
});
