/**
 * `GET /v2/alpha/wallet/pnl/{wallet}` (interface-shapes §14): parameters and response. One definition for
 * validation, OpenAPI and types.
 */
import { type Static, Type } from '@sinclair/typebox';
import { ErrorBody, keyedErrorResponses, StringEnum } from './common.ts';

export const PNL_GRANULARITIES = ['day', 'week', 'month', 'year', 'all'] as const;
export type PnlGranularity = (typeof PNL_GRANULARITIES)[number];

const unixSeconds = (description: string) =>
  Type.Integer({ minimum: 0, maximum: 99_999_999_999, description });

/** The wallet is checked by the handler (a 400 naming it), like the `wallet` lists of trades. */
export const WalletParams = Type.Object({
  wallet: Type.String({ maxLength: 200, description: 'Wallet address, 0x + 40 hex (any case)' }),
});
export type WalletParams = Static<typeof WalletParams>;

export const PnlQuery = Type.Object({
  granularity: StringEnum(PNL_GRANULARITIES, {
    description:
      'Period of pnl_over_time (UTC; weeks start Monday 00:00): day, week, month, year, or all (one point ' +
      'at end_time with the lifetime value)',
  }),
  start_time: Type.Optional(
    unixSeconds('Range start, Unix seconds (default: the wallet’s first position change)'),
  ),
  end_time: Type.Optional(
    unixSeconds('Range end, Unix seconds (default: now, or the wallet’s last change when later)'),
  ),
  condition_id: Type.Optional(
    Type.String({
      maxLength: 200,
      description: 'Only this market (both outcome tokens), 0x + 64 hex',
    }),
  ),
});
export type PnlQuery = Static<typeof PnlQuery>;

export const PnlPoint = Type.Object({
  timestamp: Type.Integer({ description: 'Start of the period, Unix seconds (all: end_time)' }),
  pnl_to_date: Type.Number({
    description: 'Realized P&L (USD) from the first change up to the end of the period (or end_time)',
  }),
});

export const PnlResponse = Type.Object(
  {
    granularity: StringEnum(PNL_GRANULARITIES),
    start_time: Type.Integer({
      description: 'Range start: start_time, else the first change (else end_time)',
    }),
    end_time: Type.Integer({ description: 'Range end: end_time, else now (or the last change when later)' }),
    wallet_address: Type.String({ description: 'Lowercase' }),
    realized_pnl: Type.Number({ description: 'Current realized P&L of the positions, USD' }),
    unrealized_pnl: Type.Number({
      description: 'Shares held × (current price − avg entry price), USD; a token without a price counts 0',
    }),
    fees_paid: Type.Number({ description: 'Net fees of the positions (charged − refunded), USD' }),
    fees_refunded: Type.Number({ description: 'Deprecated: always 0 (refunds are netted into fees_paid)' }),
    total_pnl: Type.Number({ description: 'realized_pnl + unrealized_pnl − fees_paid' }),
    pnl_over_time: Type.Array(PnlPoint, {
      description:
        'Cumulative realized P&L, one point per period from the period of the first change (or of ' +
        'start_time, if later) to the period of end_time; changes before start_time count',
    }),
  },
  { description: 'P&L summary and series of a wallet' },
);
export type PnlResponse = Static<typeof PnlResponse>;

export const pnlErrorResponses = {
  ...keyedErrorResponses,
  400: Type.Object(ErrorBody.properties, {
    description: 'Bad Request: a malformed wallet or condition_id, or start_time after end_time',
  }),
} as const;
