/**
 * Position rows for tests of the readers of the positions tables (P&L, profiles), written by a small
 * average-cost ledger of its own (not analytics/positions/): events per (wallet, token) in time order →
 * the alpha_position_changes rows (state after each event, with its deltas) and the alpha_positions
 * rows, plus each event's accounting for the tests' expected values. Shares ×1e6, prices ×1e6 (BigInt,
 * truncating division, as the accounting rules say).
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import { bytes32, chTime } from '../api-helpers.ts';

export type SeedKind =
  | 'buy'
  | 'sell'
  | 'split'
  | 'merge'
  | 'redeem'
  | 'convert_in'
  | 'convert_out'
  | 'transfer_in'
  | 'transfer_out'
  | 'fee_refund';

const ENTERS = new Set<SeedKind>(['buy', 'split', 'convert_in', 'transfer_in']);
const EXITS = new Set<SeedKind>(['sell', 'merge', 'redeem', 'convert_out']);

export interface SeedEvent {
  wallet: string;
  token: string;
  condition: string;
  outcome?: number;
  /** Unix seconds (may be fractional: ms precision). */
  t: number;
  kind: SeedKind;
  /** Shares, base units. */
  amount: bigint;
  /** ×1e6. */
  price: bigint;
  /** Fee of the event (base units; negative: a refund). */
  fee?: bigint;
}

/** What one event did to its position, as the ledger computed it. */
export interface Applied {
  e: SeedEvent;
  block: number;
  fill: boolean;
  usd: bigint;
  deltaShares: bigint;
  deltaRealized: bigint;
  /** Shares that left at the avg price (exits): their cost basis is moved × avgBefore. */
  moved: bigint;
  avgBefore: bigint;
  sharesAfter: bigint;
  avgAfter: bigint;
  realizedAfter: bigint;
  openedAt: number;
  openRealized: bigint;
  /** A close: shares back to 0 with shares removed. */
  close: boolean;
}

interface State {
  shares: bigint;
  avg: bigint;
  realized: bigint;
  totalBought: bigint;
  boughtUsd: bigint;
  fees: bigint;
  fills: number;
  firstFill: number | null;
  lastFill: number | null;
  openedAt: number;
  openRealized: bigint;
  first: Applied | null;
  last: Applied | null;
}

const newState = (): State => ({
  shares: 0n,
  avg: 0n,
  realized: 0n,
  totalBought: 0n,
  boughtUsd: 0n,
  fees: 0n,
  fills: 0,
  firstFill: null,
  lastFill: null,
  openedAt: 0,
  openRealized: 0n,
  first: null,
  last: null,
});

const least = (a: bigint, b: bigint) => (b < a ? b : a);

/** Applies the events in time order (ties: given order); block numbers follow that order from 1. */
export function ledger(events: readonly SeedEvent[]) {
  const sorted = events.map((e, i) => ({ e, i })).sort((a, b) => a.e.t - b.e.t || a.i - b.i);
  const states = new Map<string, State>();
  const applied: Applied[] = [];
  sorted.forEach(({ e }, i) => {
    const key = `${e.wallet}|${e.token}`;
    let s = states.get(key);
    if (!s) {
      s = newState();
      states.set(key, s);
    }
    const fill = e.kind === 'buy' || e.kind === 'sell';
    const usd = fill ? (e.amount * e.price) / 1_000_000n : 0n;
    const before = { shares: s.shares, avg: s.avg, realized: s.realized };
    let moved = 0n;
    if (ENTERS.has(e.kind)) {
      if (s.shares === 0n) {
        s.openedAt = Math.round(e.t * 1000);
        s.openRealized = s.realized;
      }
      s.avg = (s.avg * s.shares + e.price * e.amount) / (s.shares + e.amount);
      s.shares += e.amount;
      s.totalBought += e.amount;
      if (e.kind === 'buy') s.boughtUsd += usd;
      if (e.kind === 'split') s.boughtUsd += e.amount / 2n;
    } else if (EXITS.has(e.kind)) {
      moved = least(e.amount, s.shares);
      s.realized += (moved * (e.price - s.avg)) / 1_000_000n;
      s.shares -= moved;
    } else if (e.kind === 'transfer_out') {
      s.shares -= least(e.amount, s.shares);
    }
    s.fees += e.fee ?? 0n;
    if (fill) {
      s.fills++;
      const ms = Math.round(e.t * 1000);
      s.firstFill ??= ms;
      s.lastFill = ms;
    }
    const a: Applied = {
      e,
      block: i + 1,
      fill,
      usd,
      deltaShares: s.shares - before.shares,
      deltaRealized: s.realized - before.realized,
      moved,
      avgBefore: before.avg,
      sharesAfter: s.shares,
      avgAfter: s.avg,
      realizedAfter: s.realized,
      openedAt: s.openedAt,
      openRealized: s.openRealized,
      close: s.shares === 0n && s.shares < before.shares,
    };
    s.first ??= a;
    s.last = a;
    applied.push(a);
  });
  return { applied, states };
}

const n = (v: bigint) => Number(v);

/** The rows of both tables. */
export function positionRows(events: readonly SeedEvent[]) {
  const { applied, states } = ledger(events);
  const running = new Map<string, State>();
  const changes = applied.map((a) => {
    const key = `${a.e.wallet}|${a.e.token}`;
    let r = running.get(key);
    if (!r) {
      r = newState();
      running.set(key, r);
    }
    r.totalBought += ENTERS.has(a.e.kind) ? a.e.amount : 0n;
    const deltaBoughtUsd = a.e.kind === 'buy' ? a.usd : a.e.kind === 'split' ? a.e.amount / 2n : 0n;
    r.boughtUsd += deltaBoughtUsd;
    r.fees += a.e.fee ?? 0n;
    if (a.fill) r.fills++;
    return {
      chain_id: 137,
      wallet: a.e.wallet,
      token_id: a.e.token,
      condition_id: a.e.condition,
      outcome_index: a.e.outcome ?? 0,
      block_number: a.block,
      block_hash: bytes32(a.block + 9_000_000),
      block_time: chTime(a.e.t),
      tx_hash: bytes32(a.block * 1000 + 3),
      log_index: 0,
      batch_index: 0,
      kind: a.e.kind,
      fill: a.fill ? 1 : 0,
      price: n(a.e.price),
      amount: n(a.e.amount),
      usd: n(a.usd),
      delta_shares: n(a.deltaShares),
      delta_realized_pnl: n(a.deltaRealized),
      delta_fees: n(a.e.fee ?? 0n),
      delta_bought_usd: n(deltaBoughtUsd),
      shares: n(a.sharesAfter),
      avg_price: n(a.avgAfter),
      realized_pnl: n(a.realizedAfter),
      total_bought: n(r.totalBought),
      total_bought_usd: n(r.boughtUsd),
      net_fees: n(r.fees),
      fills: r.fills,
      opened_at: chTime(a.openedAt / 1000),
      open_realized_pnl: n(a.openRealized),
    };
  });
  const positions = [...states.values()].map((s) => {
    const first = s.first!;
    const last = s.last!;
    return {
      chain_id: 137,
      wallet: first.e.wallet,
      token_id: first.e.token,
      condition_id: first.e.condition,
      outcome_index: first.e.outcome ?? 0,
      shares: n(s.shares),
      avg_price: n(s.avg),
      realized_pnl: n(s.realized),
      total_bought: n(s.totalBought),
      total_bought_usd: n(s.boughtUsd),
      net_fees: n(s.fees),
      fills: s.fills,
      first_fill_at: s.firstFill === null ? null : chTime(s.firstFill / 1000),
      last_fill_at: s.lastFill === null ? null : chTime(s.lastFill / 1000),
      opened_at: chTime(s.openedAt / 1000),
      open_realized_pnl: n(s.openRealized),
      first_block: first.block,
      first_at: chTime(first.e.t),
      last_block: last.block,
      last_log_index: 0,
      last_batch_index: 0,
      last_block_hash: bytes32(last.block + 9_000_000),
      last_at: chTime(last.e.t),
      version: 1,
      deleted: 0,
    };
  });
  return { changes, positions, applied };
}

/** Inserts the rows of `events` into alpha_position_changes and alpha_positions. */
export async function seedPositions(ch: ClickHouse, events: readonly SeedEvent[]) {
  const rows = positionRows(events);
  await ch.insert('test.seed.changes', 'alpha_position_changes', rows.changes);
  await ch.insert('test.seed.positions', 'alpha_positions', rows.positions);
  return rows;
}

/** Current prices of tokens (alpha_token_prices; null: no price). */
export async function seedTokenPrices(
  ch: ClickHouse,
  prices: Record<string, number | null>,
  pricedAt: number,
) {
  await ch.insert(
    'test.seed.prices',
    'alpha_token_prices',
    Object.entries(prices).map(([token, price]) => ({
      token_id: token,
      condition_id: '',
      price,
      source: price === null ? 'none' : 'fill',
      priced_at: chTime(pricedAt),
      version: 1,
    })),
  );
}
