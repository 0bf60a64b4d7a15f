/**
 * Venue alpha's position endpoints: `GET /v2/alpha/positions`, `/v2/alpha/wallet/positions/{wallet}` and
 * `/v2/alpha/position/{token_id}/top-holders`. The schemas here; SQL, rules and mapping in
 * api/queries/alpha/positions.ts, wallet-positions.ts, top-holders.ts and position-rows.ts.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
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
} from '../../../../schemas/api/alpha-positions.ts';
import type { RouteContext } from '../../../context.ts';
import { listPositions } from '../../../queries/alpha/positions.ts';
import { topHolders } from '../../../queries/alpha/top-holders.ts';
import { walletPositions } from '../../../queries/alpha/wallet-positions.ts';

const NUMBERS =
  'Shares and USD are base units ÷ 10⁶; value = shares × current price (the payout once resolved, else a ' +
  'fresh book midpoint, else the newest fill; the average entry price when none is known).';

export async function alphaPositionsRoutes(scope: FastifyInstance, ctx: RouteContext) {
  const typed = scope.withTypeProvider<TypeBoxTypeProvider>();
  typed.get(
    '/v2/alpha/positions',
    {
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
    },
    async (request) => listPositions(ctx, request.query),
  );
  typed.get(
    '/v2/alpha/wallet/positions/:wallet',
    {
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
    },
    async (request) => walletPositions(ctx, request.params.wallet, request.query),
  );
  typed.get(
    '/v2/alpha/position/:token_id/top-holders',
    {
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
    },
    async (request) => topHolders(ctx, request.params.token_id, request.query),
  );
}
