/** `GET /v2/alpha/search`: SQL and mapping in api/queries/alpha/search.ts. */
import { SearchQuery, SearchResponse } from '../../../schemas/api/alpha-search.ts';
import { keyedErrorResponses } from '../../../schemas/api/common.ts';
import { alphaSearch } from '../../queries/alpha/search.ts';
import { defineResource, METERED } from '../define.ts';
import { ALPHA_CATALOG_LISTS } from './sources.ts';

export const alphaSearchResource = defineResource({
  path: '/v2/alpha/search',
  schema: {
    summary: 'Alpha search',
    description:
      'One search over markets, events and tags, grouped by type: rows whose title (market question, ' +
      'event title, tag label) holds every word of q as a word prefix, in any order, ranked by ' +
      'relevance, then all-time volume, then id; counts are the matches per type in all. status ' +
      'applies to markets (closed: closed or resolved) and events. Events come without markets.',
    tags: ['alpha'],
    querystring: SearchQuery,
    response: { 200: SearchResponse, ...keyedErrorResponses },
  },
  // Not among SPEC's free and unlimited endpoints: any tier, counted toward the monthly quota.
  access: METERED,
  // The market, event and tag lists (analytics/catalog/), rebuilt whole by the catalog build.
  sources: [ALPHA_CATALOG_LISTS],
  read: (ctx, { query }) => alphaSearch(ctx, query),
});
