/** `GET /v2/alpha/wallet/pnl/{wallet}`: the schemas here; rules and SQL in api/queries/alpha/wallet-pnl.ts. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { PnlQuery, PnlResponse, pnlErrorResponses, WalletParams } from '../../../../schemas/api/alpha-pnl.ts';
import type { RouteContext } from '../../../context.ts';
import { alphaWalletPnl } from '../../../queries/alpha/wallet-pnl.ts';

export async function alphaWalletPnlRoutes(scope: FastifyInstance, ctx: RouteContext) {
  scope.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v2/alpha/wallet/pnl/:wallet',
    {
      schema: {
        summary: 'Alpha wallet P&L (summary and series)',
        description:
          'The current realized and unrealized P&L and net fees of a wallet’s positions (total_pnl = ' +
          'realized + unrealized − fees_paid), and its cumulative realized P&L per UTC day, week (from ' +
          'Monday), month or year, each point stamped with its period’s start (all: one point at ' +
          'end_time). Changes before start_time count toward pnl_to_date. condition_id keeps one market ' +
          '(both outcomes). A wallet without positions answers zeros and an empty series. Free and unlimited.',
        tags: ['alpha'],
        params: WalletParams,
        querystring: PnlQuery,
        response: { 200: PnlResponse, ...pnlErrorResponses },
      },
    },
    async (request) => alphaWalletPnl(ctx.deps.clickhouse, request.params.wallet, request.query),
  );
}
