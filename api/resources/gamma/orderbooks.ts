/** `GET /v2/gamma/orderbooks`: the schemas here; the read in api/queries/gamma/orderbooks.ts. */
import { GammaOrderbooksQuery, GammaOrderbooksResponse } from '../../../schemas/api/gamma-orderbooks.ts';
import { orderbookErrorResponses } from '../../../schemas/api/orderbooks.ts';
import { gammaOrderbooks } from '../../queries/gamma/orderbooks.ts';
import { defineResource, FREE } from '../define.ts';

export const gammaOrderbooksResource = defineResource({
  path: '/v2/gamma/orderbooks',
  schema: {
    summary: 'Gamma order book history',
    description:
      'The polled YES books of one market (prices 0–1; midpoint and adjusted_midpoint as the venue gave ' +
      'them), oldest first. start_time and end_time (Unix ms, inclusive) are required; start_time after ' +
      'end_time is a 400. limit 1–200 (default 100), cursor paginated. Unknown slug or an AMM market ' +
      '(no order book): 404; nothing recorded in the range: an empty page. Free and unlimited.',
    tags: ['gamma'],
    querystring: GammaOrderbooksQuery,
    response: { 200: GammaOrderbooksResponse, ...orderbookErrorResponses },
  },
  access: FREE,
  sources: ['books:gamma'],
  read: (ctx, { query }) => gammaOrderbooks(ctx, query),
});
