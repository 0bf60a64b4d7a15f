/** `GET /v2/markets/search`: the schema here; SQL and mapping in api/queries/search/markets.ts. */
import { keyedErrorResponses } from '../../schemas/api/common.ts';
import { MarketsSearchQuery, MarketsSearchResponse } from '../../schemas/api/markets-search.ts';
import { marketsSearch } from '../queries/search/markets.ts';
import { defineResource, METERED } from './define.ts';

export const marketsSearchResource = defineResource({
  path: '/v2/markets/search',
  schema: {
    summary: 'Cross-venue market search',
    description:
      'Markets of the five venues (or those named in venue) whose title holds every word of q as a word ' +
      "prefix, in any order. Each venue's results are ranked by relevance (2 per query word found " +
      'whole, 1 more when the title begins with the query), then volume; the answer interleaves them ' +
      'round-robin across venues up to limit. Fields without a value are omitted. A venue that cannot ' +
      'be read is left out, named in venues_failed, and the others answer; when no venue searched can be ' +
      'read the answer is a 500 (503 when temporary). Counted toward the monthly quota.',
    tags: ['markets'],
    querystring: MarketsSearchQuery,
    response: { 200: MarketsSearchResponse, ...keyedErrorResponses },
  },
  access: METERED,
  // Canonical ids come from canonical_outcomes, whose assignment (ingest/canonical/) bumps no data version;
  // and an answer without a venue that failed (venues_failed) must not be kept. Never cached before
  // resources either.
  sources: {
    uncached:
      'canonical ids (canonical_outcomes) change with no data version bump; a partial answer (venues_failed) must not be kept',
  },
  read: (ctx, { query, request }) => marketsSearch(ctx, query, request.log),
});
