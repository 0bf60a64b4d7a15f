/**
 * Venue alpha's wallet profiles (schemas/clickhouse/032_alpha_wallet_profiles.sql; docs/profiles.md): one
 * row per wallet with a position, every field of SPEC's "Wallet profile", rewritten whole by each run of
 * the `alpha.profiles` job (analytics/profiles/) and read by `GET /v2/alpha/wallets/profiles`. The windows'
 * columns are flat, prefixed per window (`d1_`, `d7_`, `d30_`, `all_`), so a leaderboard can sort and
 * filter on them. Money in USD (rounded to 6 decimals), prices 0–1, ratios as decimals, times Unix ms.
 * Checked against `DESCRIBE TABLE` by test/table-descriptions.test.ts.
 */
import { type Column, c, defineTable } from '../../core/clickhouse/table.ts';

/** The profile's windows: their names in the API, their column prefixes and lengths (null: all time). */
export const PROFILE_WINDOWS = [
  { name: 'one_day', prefix: 'd1_', ms: 86_400_000 },
  { name: 'seven_day', prefix: 'd7_', ms: 7 * 86_400_000 },
  { name: 'thirty_day', prefix: 'd30_', ms: 30 * 86_400_000 },
  { name: 'all_time', prefix: 'all_', ms: null },
] as const;
export type ProfileWindowName = (typeof PROFILE_WINDOWS)[number]['name'];

/** Fields of every window, in column order (fees_refunded is always 0: not stored). */
export const WINDOW_FIELDS = {
  realized_pnl: c.f64,
  volume: c.f64,
  roi: c.f64,
  trades: c.u32,
  wins: c.u32,
  losses: c.u32,
  win_rate: c.f64,
  profit_factor: c.f64,
  positions_closed: c.u32,
  total_pnl: c.f64,
  avg_buy_price: c.f64,
  avg_sell_price: c.f64,
  fees_paid: c.f64,
} as const;
export type WindowField = keyof typeof WINDOW_FIELDS;

/** Fields only the all_time window carries. */
export const ALL_TIME_FIELDS = {
  avg_hold_time_seconds: c.f64,
  wallet_age_days: c.u32,
  total_positions: c.u32,
  active_positions: c.u32,
  max_win_streak: c.u32,
  max_loss_streak: c.u32,
  best_position_realized_pnl: c.f64,
  worst_position_realized_pnl: c.f64,
} as const;
export type AllTimeField = keyof typeof ALL_TIME_FIELDS;

/** The trading-style flags, in column order. */
export const STYLE_FLAGS = [
  'is_whale',
  'is_market_maker',
  'is_active_trader',
  'is_buy_and_hold',
  'is_degen',
  'is_high_conviction',
  'is_contrarian',
  'is_value_hunter',
] as const;
export type StyleFlag = (typeof STYLE_FLAGS)[number];

export const PRIMARY_STYLES = [
  'WHALE',
  'MARKET_MAKER',
  'DEGEN',
  'ACTIVE_TRADER',
  'BUY_AND_HOLD',
  'UNKNOWN',
] as const;
export type PrimaryStyle = (typeof PRIMARY_STYLES)[number];

/** `fields` under `prefix`: `d1_realized_pnl` of each prefix and field, typed as the field. */
type Prefixed<P extends string, F> = { [K in keyof F as `${P}${K & string}`]: F[K] };

/** The windows' columns: every window's fields, then (all time) its own, each under the window's prefix. */
type WindowColumns = Prefixed<(typeof PROFILE_WINDOWS)[number]['prefix'], typeof WINDOW_FIELDS> &
  Prefixed<'all_', typeof ALL_TIME_FIELDS>;

function windowColumns(): WindowColumns {
  const out: Record<string, Column> = {};
  for (const w of PROFILE_WINDOWS) {
    for (const [field, kind] of Object.entries(WINDOW_FIELDS)) out[`${w.prefix}${field}`] = kind;
    if (w.name === 'all_time') {
      for (const [field, kind] of Object.entries(ALL_TIME_FIELDS)) out[`${w.prefix}${field}`] = kind;
    }
  }
  return out as WindowColumns;
}

export const ALPHA_WALLET_PROFILES = defineTable('alpha_wallet_profiles', {
  wallet: c.hex(),
  ...windowColumns(),
  ...(Object.fromEntries(STYLE_FLAGS.map((f) => [f, c.bool])) as Record<StyleFlag, typeof c.bool>),
  primary_style: c.lowText<PrimaryStyle>(),
  entry_edge: c.f64,
  unrealized_pnl: c.f64,
  total_pnl: c.f64,
  first_trade_at: c.nullableTime,
  last_trade_at: c.nullableTime,
  computed_at: c.time,
  version: c.u64,
  deleted: c.u8<0 | 1>(),
});

/** The profiles table, by name. */
export const ALPHA_PROFILE_TABLES = { alpha_wallet_profiles: ALPHA_WALLET_PROFILES } as const;
