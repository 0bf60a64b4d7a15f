/** `GET /v2/epsilon/orderbooks`: the schemas here; the read in api/queries/epsilon/orderbooks.ts. */
import {
  EpsilonOrderbooksQuery,
  EpsilonOrderbooksResponse,
} from '../../../schemas/api/epsilon-orderbooks.ts';
import { orderbookErrorResponses } from '../../../schemas/api/orderbooks.ts';
import { epsilonOrderbooks } from '../../queries/epsilon/orderbooks.ts';
import { defineResource, FREE } from '../define.ts';

export const epsilonOrderbooksResource = defineResource({
  path: '/v2/epsilon/orderbooks',
  schema: {
    summary: 'Epsilon order book history',
    description:
      'The polled YES books of one market (prices 0–1; best_bid and best_ask null for an empty side; ' +
      'depths the total size of each side), oldest first. market_id is an integer. start_time and ' +
      'end_time (Unix ms, inclusive) are required; start_time after end_time is a 400. limit 1–200 ' +
      '(default 100), cursor paginated. Unknown market_id: 404; nothing recorded in the range: an empty ' +
      'page. Free and unlimited.',
    tags: ['epsilon'],
    querystring: EpsilonOrderbooksQuery,
    response: { 200: EpsilonOrderbooksResponse, ...orderbookErrorResponses },
  },
  access: FREE,
  sources: ['books:epsilon'],
  read: (ctx, { query }) => epsilonOrderbooks(ctx, query),
});
