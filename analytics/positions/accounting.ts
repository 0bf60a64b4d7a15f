/**
 * The accounting of one (wallet, token) position (docs/positions.md; alpha-chain.md §7.1): BigInt
 * throughout, shares and USD in 6-decimal base units, prices ×1e6, truncating division.
 * - buy(amount, price): avg ← (avg·shares + price·amount) / (shares + amount); shares += amount;
 *   total_bought += amount (only when amount > 0).
 * - sell(amount, price): adj = min(amount, shares) (shares obtained outside tracked flows earn nothing);
 *   realized += adj·(price − avg)/1e6; shares −= adj; avg unchanged.
 * - leave(amount): shares leave without P&L (fees paid in shares, transfers out): shares −= min(amount,
 *   shares), avg unchanged.
 * - enter(amount): shares come back without P&L (a refunded share fee): shares += amount, avg unchanged.
 * Fees never touch avg or realized: they add to net_fees only. Each event that changes a position yields
 * one change row (the state after it, with its deltas), made by `change`.
 */

export const ONE = 1_000_000n;
export const HALF = 500_000n;

export interface PositionState {
  wallet: string;
  tokenId: string;
  conditionId: string;
  outcomeIndex: number;
  shares: bigint;
  avgPrice: bigint;
  realizedPnl: bigint;
  totalBought: bigint;
  totalBoughtUsd: bigint;
  netFees: bigint;
  fills: number;
  /** Unix ms of the first and last fill, null before the first. */
  firstFillAt: number | null;
  lastFillAt: number | null;
  /** Unix ms when the current holding opened (shares went from 0 to more), and the realized P&L then. */
  openedAt: number;
  openRealizedPnl: bigint;
  firstBlock: number;
  firstAt: number;
  lastBlock: number;
  lastLogIndex: number;
  lastBatchIndex: number;
  lastBlockHash: string;
  lastAt: number;
}

export function emptyPosition(
  wallet: string,
  tokenId: string,
  conditionId: string,
  outcomeIndex: number,
): PositionState {
  return {
    wallet,
    tokenId,
    conditionId,
    outcomeIndex,
    shares: 0n,
    avgPrice: 0n,
    realizedPnl: 0n,
    totalBought: 0n,
    totalBoughtUsd: 0n,
    netFees: 0n,
    fills: 0,
    firstFillAt: null,
    lastFillAt: null,
    openedAt: 0,
    openRealizedPnl: 0n,
    firstBlock: -1,
    firstAt: 0,
    lastBlock: -1,
    lastLogIndex: 0,
    lastBatchIndex: 0,
    lastBlockHash: '',
    lastAt: 0,
  };
}

export function buy(p: PositionState, amount: bigint, price: bigint): void {
  if (amount <= 0n) return;
  p.avgPrice = (p.avgPrice * p.shares + price * amount) / (p.shares + amount);
  p.shares += amount;
  p.totalBought += amount;
}

/** Returns the realized P&L of the sale. */
export function sell(p: PositionState, amount: bigint, price: bigint): bigint {
  const adj = amount < p.shares ? amount : p.shares;
  if (adj <= 0n) return 0n;
  const realized = (adj * (price - p.avgPrice)) / ONE;
  p.realizedPnl += realized;
  p.shares -= adj;
  return realized;
}

/** Shares leave without P&L; returns how many left. */
export function leave(p: PositionState, amount: bigint): bigint {
  const adj = amount < p.shares ? amount : p.shares;
  if (adj <= 0n) return 0n;
  p.shares -= adj;
  return adj;
}

export function enter(p: PositionState, amount: bigint): void {
  if (amount > 0n) p.shares += amount;
}

export type ChangeKind =
  | 'buy'
  | 'sell'
  | 'split'
  | 'merge'
  | 'redeem'
  | 'convert_in'
  | 'convert_out'
  | 'transfer_in'
  | 'transfer_out'
  | 'fee_refund'
  | 'fee_income';

/** Where an event sits on the chain. */
export interface EventRef {
  block: number;
  blockHash: string;
  /** Unix ms. */
  time: number;
  txHash: string;
  logIndex: number;
  batchIndex: number;
}

/** One change row: the event, its deltas and the position's state after it. */
export interface PositionChange {
  ref: EventRef;
  state: PositionState;
  kind: ChangeKind;
  fill: boolean;
  price: bigint;
  amount: bigint;
  usd: bigint;
  deltaShares: bigint;
  deltaRealized: bigint;
  deltaFees: bigint;
  deltaBoughtUsd: bigint;
}

/** A snapshot of the figures an event changes, taken before it. */
export interface Before {
  shares: bigint;
  realized: bigint;
  fees: bigint;
  boughtUsd: bigint;
}

export const before = (p: PositionState): Before => ({
  shares: p.shares,
  realized: p.realizedPnl,
  fees: p.netFees,
  boughtUsd: p.totalBoughtUsd,
});

/**
 * Closes an event on a position: stamps its place, the fill counters and the open holding, and returns
 * the change row (a copy of the state after it).
 */
export function change(
  p: PositionState,
  b: Before,
  ref: EventRef,
  e: { kind: ChangeKind; fill: boolean; price: bigint; amount: bigint; usd: bigint },
): PositionChange {
  if (e.fill) {
    p.fills++;
    if (p.firstFillAt === null) p.firstFillAt = ref.time;
    p.lastFillAt = ref.time;
  }
  if (b.shares === 0n && p.shares > 0n) {
    p.openedAt = ref.time;
    p.openRealizedPnl = b.realized;
  }
  if (p.firstBlock < 0) {
    p.firstBlock = ref.block;
    p.firstAt = ref.time;
  }
  p.lastBlock = ref.block;
  p.lastLogIndex = ref.logIndex;
  p.lastBatchIndex = ref.batchIndex;
  p.lastBlockHash = ref.blockHash;
  p.lastAt = ref.time;
  return {
    ref,
    state: { ...p },
    kind: e.kind,
    fill: e.fill,
    price: e.price,
    amount: e.amount,
    usd: e.usd,
    deltaShares: p.shares - b.shares,
    deltaRealized: p.realizedPnl - b.realized,
    deltaFees: p.netFees - b.fees,
    deltaBoughtUsd: p.totalBoughtUsd - b.boughtUsd,
  };
}
