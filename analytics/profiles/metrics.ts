/**
 * The wallet profile's numbers from what the reads gathered (analytics/profiles/read.ts), one rule each
 * (docs/profiles.md): window sums of fills, fees and realized P&L; the closes' wins, losses, streaks,
 * best and worst; the change of unrealized P&L over a window; the trading styles of reference
 * products.md §1 on the served all_time metrics. Pure functions, no I/O.
 */
import type {
  PrimaryStyle,
  ProfileWindowName,
  StyleFlag,
  WindowField,
} from '../../schemas/tables/alpha-profiles.ts';

/** Sums of one window's change rows (base units; exitCost in base units × 1e6: shares × avg price). */
export interface WindowSums {
  trades: number;
  buyFills: number;
  volume: number;
  buyUsd: number;
  buyShares: number;
  sellUsd: number;
  sellShares: number;
  fees: number;
  realized: number;
  exitCost: bigint;
}

export const EMPTY_SUMS: WindowSums = {
  trades: 0,
  buyFills: 0,
  volume: 0,
  buyUsd: 0,
  buyShares: 0,
  sellUsd: 0,
  sellShares: 0,
  fees: 0,
  realized: 0,
  exitCost: 0n,
};

/** A position going back to 0 shares: when (Unix ms), its result (base units) and how long it was held. */
export interface Close {
  at: number;
  result: number;
  holdMs: number;
}

/** Everything the profile of one wallet is computed from. */
export interface WalletInputs {
  wallet: string;
  sums: Record<ProfileWindowName, WindowSums>;
  /** Every close up to now, in time order. */
  closes: Close[];
  /** First and last fill, Unix ms (null: no fill). */
  firstFill: number | null;
  lastFill: number | null;
  /** (wallet, token) positions that ever held shares, and those holding shares now. */
  totalPositions: number;
  activePositions: number;
  /** Unrealized P&L now and at the start of each bounded window, USD. */
  unrealizedNow: number;
  unrealizedAtStart: Record<Exclude<ProfileWindowName, 'all_time'>, number>;
}

export type WindowMetrics = Record<WindowField, number>;

export interface AllTimeExtras {
  avg_hold_time_seconds: number;
  wallet_age_days: number;
  total_positions: number;
  active_positions: number;
  max_win_streak: number;
  max_loss_streak: number;
  best_position_realized_pnl: number;
  worst_position_realized_pnl: number;
}

export interface Profile {
  wallet: string;
  windows: Record<ProfileWindowName, WindowMetrics>;
  allTime: AllTimeExtras;
  styles: Record<StyleFlag, boolean>;
  primaryStyle: PrimaryStyle;
  entryEdge: number;
  unrealizedPnl: number;
  totalPnl: number;
  firstTradeAt: number | null;
  lastTradeAt: number | null;
  computedAt: number;
}

/** profit_factor when there is no loss but a profit. */
export const PROFIT_FACTOR_CAP = 1000;

/** USD rounded to the base unit (6 decimals): no float noise in served sums. */
export const usd = (v: number) => Math.round(v * 1e6) / 1e6;

/** Close statistics over a list of closes (in time order). */
export function closeStats(closes: readonly Close[]) {
  let wins = 0;
  let losses = 0;
  let profit = 0;
  let loss = 0;
  let run = 0; // > 0: consecutive wins, < 0: consecutive losses
  let maxWin = 0;
  let maxLoss = 0;
  let best = closes.length > 0 ? Number.NEGATIVE_INFINITY : 0;
  let worst = closes.length > 0 ? Number.POSITIVE_INFINITY : 0;
  let hold = 0;
  for (const c of closes) {
    if (c.result > 0) {
      wins++;
      profit += c.result;
      run = run > 0 ? run + 1 : 1;
      maxWin = Math.max(maxWin, run);
    } else if (c.result < 0) {
      losses++;
      loss -= c.result;
      run = run < 0 ? run - 1 : -1;
      maxLoss = Math.max(maxLoss, -run);
    } else {
      run = 0; // a break-even close ends either streak
    }
    best = Math.max(best, c.result);
    worst = Math.min(worst, c.result);
    hold += c.holdMs;
  }
  const n = closes.length;
  return {
    closed: n,
    wins,
    losses,
    winRate: n > 0 ? wins / n : 0,
    profitFactor: loss > 0 ? profit / loss : profit > 0 ? PROFIT_FACTOR_CAP : 0,
    maxWin,
    maxLoss,
    best: best / 1e6,
    worst: worst / 1e6,
    avgHoldSeconds: n > 0 ? hold / n / 1000 : 0,
  };
}

function windowMetrics(s: WindowSums, closes: readonly Close[], unrealizedChange: number): WindowMetrics {
  const c = closeStats(closes);
  const realized = s.realized / 1e6;
  const fees = s.fees / 1e6;
  const exitCost = Number(s.exitCost) / 1e12;
  return {
    realized_pnl: realized,
    volume: s.volume / 1e6,
    roi: exitCost > 0 ? realized / exitCost : 0,
    trades: s.trades,
    wins: c.wins,
    losses: c.losses,
    win_rate: c.winRate,
    profit_factor: c.profitFactor,
    positions_closed: c.closed,
    total_pnl: usd(realized + unrealizedChange - fees),
    avg_buy_price: s.buyShares > 0 ? s.buyUsd / s.buyShares : 0,
    avg_sell_price: s.sellShares > 0 ? s.sellUsd / s.sellShares : 0,
    fees_paid: fees,
  };
}

/** Trading styles of reference products.md §1, on the served all_time metrics. */
export function tradingStyles(
  all: WindowMetrics,
  extras: AllTimeExtras,
  buyFills: number,
  buyVolume: number,
): { flags: Record<StyleFlag, boolean>; primary: PrimaryStyle } {
  const flags: Record<StyleFlag, boolean> = {
    is_whale: false,
    is_market_maker: false,
    is_active_trader: false,
    is_buy_and_hold: false,
    is_degen: false,
    is_high_conviction: false,
    is_contrarian: false,
    is_value_hunter: false,
  };
  if (all.trades < 5 || extras.wallet_age_days < 3) return { flags, primary: 'UNKNOWN' };
  const avgTrade = all.volume / all.trades;
  const buyRatio = buyFills / all.trades;
  const perPosition = extras.total_positions > 0 ? all.trades / extras.total_positions : 0;
  flags.is_whale = avgTrade >= 1000;
  flags.is_market_maker = buyRatio >= 0.4 && buyRatio <= 0.6 && perPosition >= 10;
  flags.is_active_trader = perPosition > 4;
  flags.is_buy_and_hold = perPosition <= 2;
  flags.is_degen = all.positions_closed >= 50 && all.win_rate < 0.35;
  if (buyVolume >= 100) {
    flags.is_high_conviction = all.avg_buy_price >= 0.8;
    flags.is_contrarian = all.avg_buy_price <= 0.25;
    flags.is_value_hunter = all.avg_buy_price >= 0.35 && all.avg_buy_price <= 0.55;
  }
  const order: [StyleFlag, PrimaryStyle][] = [
    ['is_whale', 'WHALE'],
    ['is_market_maker', 'MARKET_MAKER'],
    ['is_degen', 'DEGEN'],
    ['is_active_trader', 'ACTIVE_TRADER'],
    ['is_buy_and_hold', 'BUY_AND_HOLD'],
  ];
  const primary = order.find(([f]) => flags[f])?.[1] ?? 'UNKNOWN';
  return { flags, primary };
}

/**
 * The profile of one wallet at `now` (Unix ms). Window W holds the change rows with block time in
 * (now − W, now]; all_time every row up to now.
 */
export function computeProfile(
  x: WalletInputs,
  windowStarts: Record<ProfileWindowName, number | null>,
  now: number,
): Profile {
  const closesIn = (start: number | null) =>
    start === null ? x.closes : x.closes.filter((c) => c.at > start);
  const change = (w: ProfileWindowName) =>
    w === 'all_time' ? x.unrealizedNow : x.unrealizedNow - x.unrealizedAtStart[w];
  const windows = Object.fromEntries(
    (Object.keys(windowStarts) as ProfileWindowName[]).map((w) => [
      w,
      windowMetrics(x.sums[w], closesIn(windowStarts[w]), change(w)),
    ]),
  ) as Record<ProfileWindowName, WindowMetrics>;
  const all = windows.all_time;
  const c = closeStats(x.closes);
  const allTime: AllTimeExtras = {
    avg_hold_time_seconds: c.avgHoldSeconds,
    wallet_age_days: x.firstFill === null ? 0 : Math.max(0, Math.floor((now - x.firstFill) / 86_400_000)),
    total_positions: x.totalPositions,
    active_positions: x.activePositions,
    max_win_streak: c.maxWin,
    max_loss_streak: c.maxLoss,
    best_position_realized_pnl: c.best,
    worst_position_realized_pnl: c.worst,
  };
  const { flags, primary } = tradingStyles(
    all,
    allTime,
    x.sums.all_time.buyFills,
    x.sums.all_time.buyUsd / 1e6,
  );
  const hasBoth = x.sums.all_time.buyShares > 0 && x.sums.all_time.sellShares > 0;
  const unrealized = usd(x.unrealizedNow);
  return {
    wallet: x.wallet,
    windows,
    allTime,
    styles: flags,
    primaryStyle: primary,
    entryEdge: hasBoth ? all.avg_sell_price - all.avg_buy_price : 0,
    unrealizedPnl: unrealized,
    totalPnl: all.total_pnl,
    firstTradeAt: x.firstFill,
    lastTradeAt: x.lastFill,
    computedAt: now,
  };
}
