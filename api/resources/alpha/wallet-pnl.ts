/** `GET /v2/alpha/wallet/pnl/{wallet}`: rules and SQL in api/queries/alpha/wallet-pnl.ts. */
import { PnlQuery, PnlResponse, pnlErrorResponses, WalletParams } from '../../../schemas/api/alpha-pnl.ts';
import { alphaWalletPnl } from '../../queries/alpha/wallet-pnl.ts';
import { defineResource, FREE } from '../define.ts';
import { ALPHA_POSITIONS } from './sources.ts';

export const alphaWalletPnlResource = defineResource({
  path: '/v2/alpha/wallet/pnl/:wallet',
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
  access: FREE,
  // Positions, their changes and token prices only (no slugs or titles in the answer).
  sources: [ALPHA_POSITIONS],
  read: (ctx, { params, query }) => alphaWalletPnl(ctx.deps.clickhouse, params.wallet, query),
});
