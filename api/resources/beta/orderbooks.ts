/**
 * `GET /v2/beta/orderbooks` (integer cents, scheduled for deprecation) and `GET /v2/beta/orderbooks-subcent`:
 * the schemas here; the read and the rounding rules in api/queries/beta/orderbooks.ts.
 */
import {
  BetaOrderbooksQuery,
  BetaOrderbooksResponse,
  BetaSubcentOrderbooksQuery,
  BetaSubcentOrderbooksResponse,
} from '../../../schemas/api/beta-orderbooks.ts';
import { orderbookErrorResponses } from '../../../schemas/api/orderbooks.ts';
import { betaOrderbooks, betaSubcentOrderbooks } from '../../queries/beta/orderbooks.ts';
import { defineResource, FREE } from '../define.ts';

const RANGE_RULES =
  'start_time and end_time (Unix ms, inclusive) are required; start_time after end_time is a 400. Oldest ' +
  'first, cursor paginated (pass pagination_key back with the same ticker, range and sources). Unknown ' +
  'ticker: 404; nothing recorded in the range: an empty page. Free and unlimited.';

export const betaOrderbooksResource = defineResource({
  path: '/v2/beta/orderbooks',
  schema: {
    summary: 'Beta order book history (integer cents)',
    description:
      'Scheduled for deprecation (integer-cent rounding widens spreads and merges levels): use ' +
      '/v2/beta/orderbooks-subcent. The polled snapshots of one market in cents 1–99: sub-cent bids ' +
      'floored and asks ceiled to the cent, levels of one cent merged (sizes summed, then floored to ' +
      `whole contracts). limit 1–2000 (default 100). ${RANGE_RULES}`,
    tags: ['beta'],
    deprecated: true,
    querystring: BetaOrderbooksQuery,
    response: { 200: BetaOrderbooksResponse, ...orderbookErrorResponses },
  },
  access: FREE,
  sources: ['books:beta'],
  read: (ctx, { query }) => betaOrderbooks(ctx, query),
});

export const betaSubcentOrderbooksResource = defineResource({
  path: '/v2/beta/orderbooks-subcent',
  schema: {
    summary: 'Beta order book history (sub-cent)',
    description:
      'Snapshots of one market with decimal prices in dollars (up to 4 decimals) and fractional sizes, ' +
      'each with its source: rest (a polled snapshot) or ws (the book rebuilt from the feed); sources ' +
      `filters them (comma-separated, default both; anything else is a 422). limit 1–2000 (default 100). ${RANGE_RULES}`,
    tags: ['beta'],
    querystring: BetaSubcentOrderbooksQuery,
    response: { 200: BetaSubcentOrderbooksResponse, ...orderbookErrorResponses },
  },
  access: FREE,
  sources: ['books:beta'],
  read: (ctx, { query }) => betaSubcentOrderbooks(ctx, query),
});
