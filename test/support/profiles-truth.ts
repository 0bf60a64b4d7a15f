/**
 * Wallet profiles recomputed for tests from a list of position changes (a test's own ledger or the sim
 * ledger's truth, test/support/positions-truth.ts), by the definitions of docs/profiles.md, without the
 * profiles code: per window the fills, fees, realized P&L, exited cost basis and closes; all_time extras;
 * the trading styles of reference products.md §1 from a served profile's metrics.
 */
import type { WalletProfile } from '../../schemas/api/alpha-profiles.ts';

/** One change of a (wallet, token), in chain order, with the state after it. */
export interface ChangeFact {
  wallet: string;
  token: string;
  /** Unix seconds. */
  time: number;
  kind: string;
  fill: boolean;
  usd: bigint;
  amount: bigint;
  deltaShares: bigint;
  deltaRealized: bigint;
  deltaFees: bigint;
  sharesAfter: bigint;
  avgAfter: bigint;
  realizedAfter: bigint;
  /** Unix seconds when the holding opened, and the realized P&L then. */
  openedAt: number;
  openRealized: bigint;
}

export const DAY = 86_400;
export const WINDOWS = [
  ['one_day', 1],
  ['seven_day', 7],
  ['thirty_day', 30],
  ['all_time', null],
] as const;
const EXIT = new Set(['sell', 'merge', 'redeem', 'convert_out']);

type Price = (token: string) => number | null | undefined;

/**
 * Σ shares × (price − avg) over the holdings after the changes at or before `s`, USD, each holding rounded
 * to the base unit (no price: 0).
 */
export function unrealizedAt(changes: readonly ChangeFact[], s: number, price: Price): number {
  const last = new Map<string, ChangeFact>();
  for (const c of changes) if (c.time <= s) last.set(c.token, c);
  let u = 0;
  for (const [token, c] of last) {
    const p = price(token);
    if (c.sharesAfter > 0n && p !== null && p !== undefined) {
      u += Math.round(Number(c.sharesAfter) * p - (Number(c.sharesAfter) * Number(c.avgAfter)) / 1e6);
    }
  }
  return u / 1e6;
}

/** The tokens held (shares > 0) after the changes at or before `s`. */
export function heldAt(changes: readonly ChangeFact[], s: number): string[] {
  const last = new Map<string, ChangeFact>();
  for (const c of changes) if (c.time <= s) last.set(c.token, c);
  return [...last].filter(([, c]) => c.sharesAfter > 0n).map(([t]) => t);
}

/**
 * The expected profile of one wallet from its changes (chain order) at `now` (Unix s): prices now, and
 * at each bounded window's start (by window name).
 */
export function expectedProfile(
  wallet: string,
  changes: readonly ChangeFact[],
  now: number,
  priceNow: Price,
  priceAtStart: (window: string, token: string) => number | null | undefined,
) {
  const all = changes.filter((c) => c.time <= now);
  const uNow = unrealizedAt(all, now, priceNow);
  const closesOf = (rows: readonly ChangeFact[]) =>
    rows
      .filter((c) => c.sharesAfter === 0n && c.deltaShares < 0n)
      .map((c) => ({ c, result: Number(c.realizedAfter - c.openRealized) / 1e6 }));
  const metrics: Record<string, Record<string, number>> = {};
  for (const [name, days] of WINDOWS) {
    const start = days === null ? Number.NEGATIVE_INFINITY : now - days * DAY;
    const rows = all.filter((c) => c.time > start);
    const fills = rows.filter((c) => c.fill);
    const buys = fills.filter((c) => c.kind === 'buy');
    const sells = fills.filter((c) => c.kind === 'sell');
    const sumUsd = (xs: ChangeFact[]) => xs.reduce((s, c) => s + Number(c.usd), 0);
    const sumShares = (xs: ChangeFact[]) => xs.reduce((s, c) => s + Number(c.amount), 0);
    const realized = rows.reduce((s, c) => s + Number(c.deltaRealized), 0) / 1e6;
    const fees = rows.reduce((s, c) => s + Number(c.deltaFees), 0) / 1e6;
    // An exit leaves the average unchanged: the row's average is the one the shares left at.
    const cost = rows
      .filter((c) => EXIT.has(c.kind))
      .reduce((s, c) => s + (Number(-c.deltaShares) * Number(c.avgAfter)) / 1e12, 0);
    const closes = closesOf(rows);
    const wins = closes.filter((x) => x.result > 0);
    const losses = closes.filter((x) => x.result < 0);
    const profit = wins.reduce((s, x) => s + x.result, 0);
    const loss = -losses.reduce((s, x) => s + x.result, 0);
    const uStart = days === null ? 0 : unrealizedAt(all, start, (tk) => priceAtStart(name, tk));
    metrics[name] = {
      realized_pnl: realized,
      volume: sumUsd(fills) / 1e6,
      roi: cost > 0 ? realized / cost : 0,
      trades: fills.length,
      wins: wins.length,
      losses: losses.length,
      win_rate: closes.length > 0 ? wins.length / closes.length : 0,
      profit_factor: loss > 0 ? profit / loss : profit > 0 ? 1000 : 0,
      positions_closed: closes.length,
      total_pnl: realized + (uNow - uStart) - fees,
      avg_buy_price: buys.length > 0 ? sumUsd(buys) / sumShares(buys) : 0,
      avg_sell_price: sells.length > 0 ? sumUsd(sells) / sumShares(sells) : 0,
      fees_paid: fees,
      fees_refunded: 0,
    };
  }
  const closes = closesOf(all);
  let maxWin = 0;
  let maxLoss = 0;
  let w = 0;
  let l = 0;
  for (const x of closes) {
    w = x.result > 0 ? w + 1 : 0;
    l = x.result < 0 ? l + 1 : 0;
    maxWin = Math.max(maxWin, w);
    maxLoss = Math.max(maxLoss, l);
  }
  const fills = all.filter((c) => c.fill);
  const firstFill = fills.length > 0 ? Math.min(...fills.map((c) => c.time)) : null;
  const lastFill = fills.length > 0 ? Math.max(...fills.map((c) => c.time)) : null;
  const lastState = new Map<string, ChangeFact>();
  for (const c of all) lastState.set(c.token, c);
  const results = closes.map((x) => x.result);
  Object.assign(metrics.all_time!, {
    avg_hold_time_seconds:
      closes.length > 0 ? closes.reduce((s, x) => s + (x.c.time - x.c.openedAt), 0) / closes.length : 0,
    wallet_age_days: firstFill === null ? 0 : Math.floor((now - firstFill) / DAY),
    total_positions: new Set(all.filter((c) => c.deltaShares > 0n).map((c) => c.token)).size,
    active_positions: [...lastState.values()].filter((c) => c.sharesAfter > 0n).length,
    max_win_streak: maxWin,
    max_loss_streak: maxLoss,
    best_position_realized_pnl: results.length > 0 ? Math.max(...results) : 0,
    worst_position_realized_pnl: results.length > 0 ? Math.min(...results) : 0,
  });
  const a = metrics.all_time!;
  const buyFills = fills.filter((c) => c.kind === 'buy');
  const bothSides = buyFills.length > 0 && fills.some((c) => c.kind === 'sell');
  return {
    user: wallet,
    metrics,
    entry_edge: bothSides ? a.avg_sell_price! - a.avg_buy_price! : 0,
    unrealized_pnl: uNow,
    total_pnl: a.realized_pnl! + uNow - a.fees_paid!,
    first_trade_at: firstFill,
    last_trade_at: lastFill,
    computed_at: now,
    buyFills: buyFills.length,
    buyVolume: buyFills.reduce((s, c) => s + Number(c.usd), 0) / 1e6,
  };
}

export type ExpectedProfile = ReturnType<typeof expectedProfile>;

/** The trading styles of reference products.md §1, from a served profile's all_time metrics. */
export function expectedStyles(p: WalletProfile, buyFills: number, buyVolume: number) {
  const m = p.metrics.all_time;
  const none = {
    is_whale: false,
    is_market_maker: false,
    is_active_trader: false,
    is_buy_and_hold: false,
    is_degen: false,
    is_high_conviction: false,
    is_contrarian: false,
    is_value_hunter: false,
    primary_style: 'UNKNOWN',
  };
  if (m.trades < 5 || m.wallet_age_days < 3) return none;
  const perPosition = m.trades / m.total_positions;
  const ratio = buyFills / m.trades;
  const entry = buyVolume >= 100;
  const s = {
    is_whale: m.volume / m.trades >= 1000,
    is_market_maker: ratio >= 0.4 && ratio <= 0.6 && perPosition >= 10,
    is_active_trader: perPosition > 4,
    is_buy_and_hold: perPosition <= 2,
    is_degen: m.win_rate < 0.35 && m.positions_closed >= 50,
    is_high_conviction: entry && m.avg_buy_price >= 0.8,
    is_contrarian: entry && m.avg_buy_price <= 0.25,
    is_value_hunter: entry && m.avg_buy_price >= 0.35 && m.avg_buy_price <= 0.55,
  };
  const order = [
    ['is_whale', 'WHALE'],
    ['is_market_maker', 'MARKET_MAKER'],
    ['is_degen', 'DEGEN'],
    ['is_active_trader', 'ACTIVE_TRADER'],
    ['is_buy_and_hold', 'BUY_AND_HOLD'],
  ] as const;
  return { ...s, primary_style: order.find(([f]) => s[f])?.[1] ?? 'UNKNOWN' };
}

/**
 * The differences between a served profile and the expected one: every window field (USD and prices to
 * 1e-6, ratios to 1e-9 relative), the top-level fields and the styles. Empty when they agree.
 */
export function profileDifferences(served: WalletProfile, e: ExpectedProfile): string[] {
  const out: string[] = [];
  const near = (a: number, b: number) => Math.abs(a - b) <= 1e-6 + 1e-9 * Math.abs(b);
  for (const [name] of WINDOWS) {
    const got = served.metrics[name] as unknown as Record<string, number>;
    const want = e.metrics[name]!;
    const keys = new Set([...Object.keys(got), ...Object.keys(want)]);
    for (const k of keys) {
      if (!(k in got) || !(k in want) || !near(got[k]!, want[k]!)) {
        out.push(`${served.user} ${name}.${k}: ${got[k]} expected ${want[k]}`);
      }
    }
  }
  for (const k of ['entry_edge', 'unrealized_pnl', 'total_pnl'] as const) {
    if (!near(served[k], e[k])) out.push(`${served.user} ${k}: ${served[k]} expected ${e[k]}`);
  }
  for (const k of ['first_trade_at', 'last_trade_at', 'computed_at'] as const) {
    if (served[k] !== e[k]) out.push(`${served.user} ${k}: ${served[k]} expected ${e[k]}`);
  }
  const styles: Record<string, unknown> = expectedStyles(served, e.buyFills, e.buyVolume);
  const got: Record<string, unknown> = served.trading_styles;
  for (const k of new Set([...Object.keys(got), ...Object.keys(styles)])) {
    if (got[k] !== styles[k]) out.push(`${served.user} trading_styles.${k}: ${got[k]} expected ${styles[k]}`);
  }
  return out;
}
