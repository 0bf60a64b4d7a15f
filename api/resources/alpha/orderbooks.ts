/** `GET /v2/alpha/orderbooks`: the schemas here; the read in api/queries/alpha/orderbooks.ts. */
import { AlphaOrderbooksQuery, AlphaOrderbooksResponse } from '../../../schemas/api/alpha-orderbooks.ts';
import { orderbookErrorResponses } from '../../../schemas/api/orderbooks.ts';
import { alphaOrderbooks } from '../../queries/alpha/orderbooks.ts';
import { defineResource, FREE } from '../define.ts';

export const alphaOrderbooksResource = defineResource({
  path: '/v2/alpha/orderbooks',
  schema: {
    summary: 'Alpha order book history',
    description:
      "One token's books as the book sync observed them, oldest first: camelCase fields, timestamp the " +
      "book's own time and indexedAt when it was observed (Unix ms), prices 0–1, levels best first. " +
      'start_time and end_time (Unix ms, inclusive, on timestamp) are required; start_time after end_time ' +
      'is a 400. limit 1–2000 (default 100), cursor paginated. Unknown token: 404; nothing recorded in ' +
      'the range: an empty page. Free and unlimited.',
    tags: ['alpha'],
    querystring: AlphaOrderbooksQuery,
    response: { 200: AlphaOrderbooksResponse, ...orderbookErrorResponses },
  },
  access: FREE,
  sources: ['books:alpha'],
  read: (ctx, { query }) => alphaOrderbooks(ctx, query),
});
