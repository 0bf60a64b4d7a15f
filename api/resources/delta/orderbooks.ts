/** `GET /v2/delta/orderbooks`: the schemas here; the read in api/queries/delta/orderbooks.ts. */
import { DeltaOrderbooksQuery, DeltaOrderbooksResponse } from '../../../schemas/api/delta-orderbooks.ts';
import { orderbookErrorResponses } from '../../../schemas/api/orderbooks.ts';
import { deltaOrderbooks } from '../../queries/delta/orderbooks.ts';
import { defineResource, FREE } from '../define.ts';

export const deltaOrderbooksResource = defineResource({
  path: '/v2/delta/orderbooks',
  schema: {
    summary: 'Delta order book history',
    description:
      'The polled YES books of one market (prices 0–1; best_bid and best_ask null for an empty side; ' +
      'depths the total size of each side), oldest first. market_id is an integer. start_time and ' +
      'end_time (Unix ms, inclusive) are required; start_time after end_time is a 400. limit 1–200 ' +
      '(default 100), cursor paginated. Unknown market_id: 404; nothing recorded in the range: an empty ' +
      'page. Free and unlimited.',
    tags: ['delta'],
    querystring: DeltaOrderbooksQuery,
    response: { 200: DeltaOrderbooksResponse, ...orderbookErrorResponses },
  },
  access: FREE,
  sources: ['books:delta'],
  read: (ctx, { query }) => deltaOrderbooks(ctx, query),
});
