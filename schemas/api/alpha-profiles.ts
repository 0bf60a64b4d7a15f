/**
 * `GET /v2/alpha/wallets/profiles` (SPEC "Wallet profile"; reference products.md §1): parameters and
 * response. Definitions of every field: docs/profiles.md.
 */
import { type Static, Type } from '@sinclair/typebox';
import { PRIMARY_STYLES } from '../tables/alpha-profiles.ts';
import { ErrorBody, keyedErrorResponses, StringEnum } from './common.ts';

export const MAX_PROFILE_ADDRESSES = 20;

export const ProfilesQuery = Type.Object({
  addresses: Type.String({
    maxLength: 20_000,
    description: `Comma-separated wallet addresses (0x + 40 hex, any case), at most ${MAX_PROFILE_ADDRESSES} distinct`,
  }),
});
export type ProfilesQuery = Static<typeof ProfilesQuery>;

const num = (description: string) => Type.Number({ description });
const int = (description: string) => Type.Integer({ description });

const windowFields = {
  realized_pnl: num('Σ realized P&L of the position changes in the window, USD'),
  volume: num('Σ USD of the wallet’s fills (maker fills and taker aggregates) in the window'),
  roi: num('realized_pnl ÷ cost basis of the shares exited (sold, merged, redeemed, converted); 0 without'),
  trades: int('Fills of the wallet in the window'),
  wins: int('Positions closed in the window with a positive result'),
  losses: int('Positions closed in the window with a negative result'),
  win_rate: num('wins ÷ positions_closed (0 without closes)'),
  profit_factor: num('Gross profit ÷ gross loss of the closes (no loss: 1000 with a profit, else 0)'),
  positions_closed: int('Positions that went back to 0 shares in the window'),
  total_pnl: num('realized_pnl + change of unrealized P&L over the window − fees_paid, USD'),
  avg_buy_price: num('Volume-weighted average price of the buy fills (0 without)'),
  avg_sell_price: num('Volume-weighted average price of the sell fills (0 without)'),
  fees_paid: num('Net fees (charged − refunded) in the window, USD'),
  fees_refunded: num('Deprecated: always 0 (refunds are netted into fees_paid)'),
};

export const WindowMetrics = Type.Object(windowFields);

export const AllTimeMetrics = Type.Object({
  ...windowFields,
  avg_hold_time_seconds: num('Mean time from opening to closing of the closed positions, seconds'),
  wallet_age_days: int('Whole days since the first trade'),
  total_positions: int('Token positions ever opened (YES and NO apart)'),
  active_positions: int('Positions holding shares now'),
  max_win_streak: int('Longest run of consecutive winning closes'),
  max_loss_streak: int('Longest run of consecutive losing closes'),
  best_position_realized_pnl: num('Best close result, USD (0 without closes)'),
  worst_position_realized_pnl: num('Worst close result, USD (0 without closes)'),
});

const flag = (description: string) => Type.Boolean({ description });

export const TradingStyles = Type.Object({
  is_whale: flag('Average trade ≥ $1,000'),
  is_market_maker: flag('Buy fills 40–60% of fills and ≥ 10 trades per position'),
  is_active_trader: flag('More than 4 trades per position'),
  is_buy_and_hold: flag('2 or fewer trades per position'),
  is_degen: flag('Win rate < 35% with ≥ 50 closed positions'),
  is_high_conviction: flag('Average buy price ≥ 0.80 (≥ $100 bought)'),
  is_contrarian: flag('Average buy price ≤ 0.25 (≥ $100 bought)'),
  is_value_hunter: flag('Average buy price 0.35–0.55 (≥ $100 bought)'),
  primary_style: StringEnum(PRIMARY_STYLES, {
    description:
      'First true of WHALE, MARKET_MAKER, DEGEN, ACTIVE_TRADER, BUY_AND_HOLD; else UNKNOWN (also below ' +
      '5 trades or 3 days of age, where every flag is false)',
  }),
});

const ts = (description: string) => Type.Union([Type.Integer(), Type.Null()], { description });

export const WalletProfile = Type.Object(
  {
    user: Type.String({ description: 'Wallet address, lowercase' }),
    metrics: Type.Object({
      one_day: WindowMetrics,
      seven_day: WindowMetrics,
      thirty_day: WindowMetrics,
      all_time: AllTimeMetrics,
    }),
    trading_styles: TradingStyles,
    entry_edge: num('all_time avg_sell_price − avg_buy_price (0 unless the wallet both bought and sold)'),
    unrealized_pnl: num('Shares held × (current price − avg entry price), USD'),
    total_pnl: num('Realized + unrealized − net fees, USD (all time)'),
    first_trade_at: ts('First fill, Unix seconds (null: no fill)'),
    last_trade_at: ts('Last fill, Unix seconds (null: no fill)'),
    computed_at: Type.Integer({ description: 'The “now” the profile was computed at, Unix seconds' }),
  },
  { title: 'Wallet profile' },
);
export type WalletProfile = Static<typeof WalletProfile>;

export const ProfilesResponse = Type.Array(WalletProfile, {
  description: 'Profiles in the order of the request; wallets without a profile are omitted',
});
export type ProfilesResponse = Static<typeof ProfilesResponse>;

export const profilesErrorResponses = {
  ...keyedErrorResponses,
  400: Type.Object(ErrorBody.properties, {
    description: `Bad Request: a malformed address (named), none, or more than ${MAX_PROFILE_ADDRESSES}`,
  }),
} as const;
