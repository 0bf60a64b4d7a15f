/**
 * Venue alpha's position resources: `GET /v2/alpha/positions`, `/v2/alpha/wallet/positions/{wallet}` and
 * `/v2/alpha/position/{token_id}/top-holders`. SQL, rules and mapping in api/queries/alpha/positions.ts,
 * wallet-positions.ts, top-holders.ts and position-rows.ts.
 */
import {
  PositionsQuery,
  PositionsResponse,
  positionErrorResponses,
  TopHoldersParams,
  TopHoldersQuery,
  TopHoldersResponse,
  topHoldersErrorResponses,
  WalletParams,
  WalletPositionsQuery,
  WalletPositionsResponse,
} from '../../../schemas/api/alpha-positions.ts';
import { listPositions } from '../../queries/alpha/positions.ts';
import { topHolders } from '../../queries/alpha/top-holders.ts';
import { walletPositions } from '../../queries/alpha/wallet-positions.ts';
import { defineResource, FREE } from '../define.ts';
import { ALPHA_CATALOG_LISTS, ALPHA_POSITIONS } from './sources.ts';

const NUMBERS =
  'Shares and USD are base units ÷ 10⁶; value = shares × current price (the payout once resolved, else a ' +
  'fresh book midpoint, else the newest fill; the average entry price when none is known).';

export const alphaPositionsResource = defineResource({
  path: '/v2/alpha/positions',
  schema: {
    summary: 'Alpha positions of all users',
    description:
      'Every (wallet, outcome token) position, closed ones included, ordered by its last update ' +
      '(order_by timestamp or block; ties in chain order, then by wallet and token). Block and time ' +
      `bounds are inclusive and apply to the last update. ${NUMBERS} Cursor paginated: pass ` +
      'pagination_key back with the same filters and sort. Free and unlimited.',
    tags: ['alpha'],
    querystring: PositionsQuery,
    response: { 200: PositionsResponse, ...positionErrorResponses },
  },
  access: FREE,
  // Positions and token prices (alpha_positions, alpha_token_prices: the positions job bumps
  // analytics:alpha-positions); slugs, titles and outcome labels from the catalog lists.
  sources: [ALPHA_POSITIONS, ALPHA_CATALOG_LISTS],
  read: (ctx, { query }) => listPositions(ctx, query),
});

export const alphaWalletPositionsResource = defineResource({
  path: '/v2/alpha/wallet/positions/:wallet',
  schema: {
    summary: "Alpha wallet's positions",
    description:
      "A wallet's positions (open ones; include_closed adds those with 0 shares) in the requested sort, " +
      `ties by token id, and the summary of every matching position, not only the page's. ${NUMBERS} ` +
      'A wallet without positions answers an empty list and a zero summary. Free and unlimited.',
    tags: ['alpha'],
    params: WalletParams,
    querystring: WalletPositionsQuery,
    response: { 200: WalletPositionsResponse, ...positionErrorResponses },
  },
  access: FREE,
  // Positions and token prices (alpha_positions, alpha_token_prices: the positions job bumps
  // analytics:alpha-positions); slugs, titles and outcome labels from the catalog lists.
  sources: [ALPHA_POSITIONS, ALPHA_CATALOG_LISTS],
  read: (ctx, { params, query }) => walletPositions(ctx, params.wallet, query),
});

export const alphaTopHoldersResource = defineResource({
  path: '/v2/alpha/position/:token_id/top-holders',
  schema: {
    summary: 'Alpha top holders of a token',
    description:
      'The wallets holding one outcome token (shares above 0), by shares descending, ties by address; ' +
      `rank continues across pages. ${NUMBERS} include_count adds total_count. 404: token never seen ` +
      'on chain. Free and unlimited.',
    tags: ['alpha'],
    params: TopHoldersParams,
    querystring: TopHoldersQuery,
    response: { 200: TopHoldersResponse, ...topHoldersErrorResponses },
  },
  access: FREE,
  // Positions and token prices (alpha_positions, alpha_token_prices: the positions job bumps
  // analytics:alpha-positions); slugs, titles and outcome labels from the catalog lists. top-holders
  // reads alpha_tokens too: only for its 404s, which are never cached, and a token's condition never changes.
  sources: [ALPHA_POSITIONS, ALPHA_CATALOG_LISTS],
  read: (ctx, { params, query }) => topHolders(ctx, params.token_id, query),
});
