/**
 * `GET /v2/alpha/markets` and `GET /v2/alpha/markets/keyset` (same parameters and behaviour; `limit` up
 * to 100 and 200): filters, sorts and the page in api/queries/alpha/markets.ts. `/markets/keyset` is a
 * static path, so it never reaches the `/markets/:token_id/...` routes.
 */
import { MarketsKeysetQuery, MarketsQuery, MarketsResponse } from '../../../schemas/api/alpha-markets.ts';
import { keyedErrorResponses } from '../../../schemas/api/common.ts';
import { listMarkets } from '../../queries/alpha/markets.ts';
import { defineResource, FREE } from '../define.ts';
import { ALPHA_CATALOG_LISTS } from './sources.ts';

const DESCRIPTION =
  "alpha's markets (open, closed and resolved) with their outcomes, current prices, volume, liquidity " +
  'and rolling metrics, from the catalog lists (rebuilt by the catalog build; rolling metrics refresh ' +
  'hourly). Filters combine with AND; a list parameter (repeat the key) matches any of its items. Cursor ' +
  'paginated: pass pagination_key back with the same filters and sort. Free and unlimited: not counted ' +
  'toward the monthly quota.';

export const alphaMarketsResource = defineResource({
  path: '/v2/alpha/markets',
  schema: {
    summary: 'Alpha markets',
    description: `${DESCRIPTION} limit 1–100.`,
    tags: ['alpha'],
    querystring: MarketsQuery,
    response: { 200: MarketsResponse, ...keyedErrorResponses },
  },
  access: FREE,
  // The market list (alpha_market_list), rebuilt whole by the catalog build.
  sources: [ALPHA_CATALOG_LISTS],
  read: (ctx, { query }) => listMarkets(ctx, query),
});

export const alphaMarketsKeysetResource = defineResource({
  path: '/v2/alpha/markets/keyset',
  schema: {
    summary: 'Alpha markets (keyset)',
    description: `${DESCRIPTION} limit 1–200.`,
    tags: ['alpha'],
    querystring: MarketsKeysetQuery,
    response: { 200: MarketsResponse, ...keyedErrorResponses },
  },
  access: FREE,
  // As /v2/alpha/markets.
  sources: [ALPHA_CATALOG_LISTS],
  read: (ctx, { query }) => listMarkets(ctx, query),
});
