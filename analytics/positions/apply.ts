/**
 * The rules of docs/positions.md applied to a batch of chain events in chain order: each event becomes
 * the change rows of the positions it changes (accounting.ts does the arithmetic).
 * - fill: its maker buys or sells `shares` at usd·1e6/shares; a BUY adds usd to total_bought_usd; a fee
 *   in shares (V1 BUY) leaves without P&L and adds shares × price to net fees, a fee in collateral (V1
 *   SELL, V2) adds itself;
 * - fee refund of an order filled earlier in the same transaction: a share refund comes back without P&L
 *   and takes shares × the fill's price off net fees; a collateral refund takes itself off the fill's
 *   position's net fees;
 * - share fee received (V1 FeeCharged with a token, to a non-protocol receiver): bought at price 0;
 * - split / merge: both outcomes bought / sold at 0.50 (a split adds 0.50 × amount per outcome to
 *   total_bought_usd);
 * - redeem: both outcomes sold at their payout price, numerator·1e6/Σ numerators: the neg-risk adapter's
 *   per-outcome amounts, else (CTF, collateral adapters) the whole tracked amount;
 * - convert: each NO given up sold at its own average price; YES of every other question prepared
 *   before it bought at yesPrice = (noPrice·noCount − 1e6·(noCount − 1)) / (questionCount − noCount),
 *   noPrice the unweighted mean of the NO averages; then the fee amount·feeBips/10⁴ of each YES leaves
 *   without P&L; total_bought_usd and net fees value those shares at max(yesPrice, 0);
 * - plain transfer: the sender's shares leave without P&L, the receiver buys them at the sender's
 *   average price (total_bought grows, total_bought_usd does not).
 * Events the rules cannot place (an unknown condition, a redeem before its resolution, a refund without
 * its fill) change nothing and are counted in `stats`.
 */
import {
  before,
  buy,
  type ChangeKind,
  change,
  type EventRef,
  emptyPosition,
  enter,
  HALF,
  leave,
  ONE,
  type PositionChange,
  type PositionState,
  sell,
} from './accounting.ts';
import type { ActivityEvent, ChainEvent } from './events.ts';
import type { Reference } from './reference.ts';

/** The positions a batch works on, loaded before it runs. */
export interface PositionBook {
  get(wallet: string, tokenId: string): PositionState | undefined;
  set(p: PositionState): void;
}

export interface ApplyStats {
  events: number;
  changes: number;
  unknownCondition: number;
  unresolvedRedeem: number;
  unmatchedRefund: number;
}

export const emptyStats = (): ApplyStats => ({
  events: 0,
  changes: 0,
  unknownCondition: 0,
  unresolvedRedeem: 0,
  unmatchedRefund: 0,
});

const max0 = (v: bigint) => (v > 0n ? v : 0n);

/** The (wallet, token) keys a batch's events touch, for loading their state first. */
export function touchedKeys(
  events: readonly ChainEvent[],
  ref: Reference,
): { wallet: string; tokenId: string }[] {
  const out = new Map<string, { wallet: string; tokenId: string }>();
  const add = (wallet: string, tokenId: string) => out.set(`${wallet}|${tokenId}`, { wallet, tokenId });
  for (const e of events) {
    switch (e.type) {
      case 'fill':
        add(e.wallet, e.tokenId);
        break;
      case 'transfer':
        add(e.from, e.tokenId);
        add(e.to, e.tokenId);
        break;
      case 'refund':
      case 'fee_income':
        if (e.tokenId !== '0') add(e.wallet, e.tokenId);
        break;
      case 'activity':
        for (const t of activityTokens(e, ref)) add(e.wallet, t);
        break;
    }
  }
  return [...out.values()];
}

function activityTokens(e: ActivityEvent, ref: Reference): string[] {
  if (e.kind !== 'CONVERT') return e.conditionId ? (ref.tokensOf(e.conditionId) ?? []) : [];
  if (!e.negRiskMarketId) return [];
  return ref
    .questions(e.negRiskMarketId, e.ref.block, e.ref.logIndex)
    .flatMap((q) => ref.tokensOf(q.conditionId) ?? []);
}

export function applyEvents(
  events: readonly ChainEvent[],
  book: PositionBook,
  ref: Reference,
  stats: ApplyStats,
  /** The NegRiskAdapter's address (lowercase): its redemptions sell their per-outcome amounts. */
  negRiskAdapter: string,
): PositionChange[] {
  const out: PositionChange[] = [];
  /** Fills of the batch by transaction and order (and by transaction and wallet): their refunds' prices. */
  const fillsByOrder = new Map<string, { price: bigint; tokenId: string }>();

  const position = (wallet: string, tokenId: string, conditionId?: string, outcomeIndex?: number) => {
    let p = book.get(wallet, tokenId);
    if (!p) {
      // What the event says, else what the reference knows ('' and -1 from a fill ingested before its
      // token's market was known are not knowledge).
      const info = ref.token(tokenId);
      p = emptyPosition(
        wallet,
        tokenId,
        conditionId || info?.conditionId || '',
        outcomeIndex !== undefined && outcomeIndex >= 0 ? outcomeIndex : (info?.outcomeIndex ?? -1),
      );
      book.set(p);
    }
    return p;
  };

  const record = (
    p: PositionState,
    r: EventRef,
    kind: ChangeKind,
    fn: () => void,
    e: { fill?: boolean; price: bigint; amount: bigint; usd?: bigint },
  ) => {
    const b = before(p);
    fn();
    out.push(
      change(p, b, r, { kind, fill: e.fill ?? false, price: e.price, amount: e.amount, usd: e.usd ?? 0n }),
    );
  };

  for (const e of events) {
    stats.events++;
    switch (e.type) {
      case 'fill': {
        const p = position(e.wallet, e.tokenId, e.conditionId, e.outcomeIndex);
        const price = e.shares > 0n ? (e.usd * ONE) / e.shares : 0n;
        const isBuy = e.side === 'BUY';
        record(
          p,
          e.ref,
          isBuy ? 'buy' : 'sell',
          () => {
            if (isBuy) {
              buy(p, e.shares, price);
              p.totalBoughtUsd += e.usd;
            } else {
              sell(p, e.shares, price);
            }
            if (e.fee > 0n) {
              if (e.feeAsset === 'shares') {
                leave(p, e.fee);
                p.netFees += (e.fee * price) / ONE;
              } else {
                p.netFees += e.fee;
              }
            }
          },
          { fill: true, price, amount: e.shares, usd: e.usd },
        );
        fillsByOrder.set(`${e.ref.txHash}|${e.orderHash}`, { price, tokenId: e.tokenId });
        fillsByOrder.set(`${e.ref.txHash}|w:${e.wallet}`, { price, tokenId: e.tokenId });
        break;
      }
      case 'refund': {
        const f =
          (e.orderHash ? fillsByOrder.get(`${e.ref.txHash}|${e.orderHash}`) : undefined) ??
          fillsByOrder.get(`${e.ref.txHash}|w:${e.wallet}`);
        if (!f) {
          stats.unmatchedRefund++;
          break;
        }
        if (e.tokenId !== '0') {
          const p = position(e.wallet, e.tokenId);
          record(
            p,
            e.ref,
            'fee_refund',
            () => {
              enter(p, e.amount);
              p.netFees -= (e.amount * f.price) / ONE;
            },
            { price: f.price, amount: e.amount },
          );
        } else {
          const p = position(e.wallet, f.tokenId);
          record(p, e.ref, 'fee_refund', () => (p.netFees -= e.amount), { price: 0n, amount: e.amount });
        }
        break;
      }
      case 'fee_income': {
        const p = position(e.wallet, e.tokenId);
        record(p, e.ref, 'fee_income', () => buy(p, e.amount, 0n), { price: 0n, amount: e.amount });
        break;
      }
      case 'transfer': {
        const s = position(e.from, e.tokenId);
        const avg = s.avgPrice;
        record(s, e.ref, 'transfer_out', () => leave(s, e.amount), { price: avg, amount: e.amount });
        const r = position(e.to, e.tokenId);
        record(r, e.ref, 'transfer_in', () => buy(r, e.amount, avg), { price: avg, amount: e.amount });
        break;
      }
      case 'activity':
        applyActivity(e);
        break;
    }
  }
  stats.changes += out.length;
  return out;

  function applyActivity(e: ActivityEvent) {
    if (e.kind === 'CONVERT') return applyConvert(e);
    const pair = e.conditionId ? ref.tokensOf(e.conditionId) : undefined;
    if (!pair || !e.conditionId) {
      stats.unknownCondition++;
      return;
    }
    const conditionId = e.conditionId;
    if (e.kind === 'SPLIT' || e.kind === 'MERGE') {
      pair.forEach((tokenId, i) => {
        const p = position(e.wallet, tokenId, conditionId, i);
        if (e.kind === 'SPLIT') {
          record(
            p,
            e.ref,
            'split',
            () => {
              buy(p, e.amount, HALF);
              p.totalBoughtUsd += (e.amount * HALF) / ONE;
            },
            { price: HALF, amount: e.amount },
          );
        } else {
          record(p, e.ref, 'merge', () => sell(p, e.amount, HALF), { price: HALF, amount: e.amount });
        }
      });
      return;
    }
    // REDEEM
    const nums = ref.payouts(conditionId);
    const sum = nums?.reduce((s, n) => s + n, 0n) ?? 0n;
    if (!nums || sum === 0n) {
      stats.unresolvedRedeem++;
      return;
    }
    const perOutcome = e.contract === negRiskAdapter && e.amounts.length >= 2;
    pair.forEach((tokenId, i) => {
      const held = book.get(e.wallet, tokenId);
      const amount = perOutcome ? (e.amounts[i] ?? 0n) : (held?.shares ?? 0n);
      if (amount === 0n && !held) return;
      if (amount === 0n && held?.shares === 0n) return;
      const p = position(e.wallet, tokenId, conditionId, i);
      const price = ((nums[i] ?? 0n) * ONE) / sum;
      record(p, e.ref, 'redeem', () => sell(p, amount, price), { price, amount });
    });
  }

  function applyConvert(e: ActivityEvent) {
    if (!e.negRiskMarketId || e.indexSet === null) {
      stats.unknownCondition++;
      return;
    }
    const questions = ref.questions(e.negRiskMarketId, e.ref.block, e.ref.logIndex);
    const questionCount = BigInt(questions.length);
    const given: string[] = [];
    const others: string[] = [];
    for (const q of questions) {
      const pair = ref.tokensOf(q.conditionId);
      if (!pair) continue;
      if ((e.indexSet >> BigInt(q.index)) & 1n) given.push(pair[1]);
      else others.push(pair[0]);
    }
    const noCount = BigInt(given.length);
    if (noCount === 0n) {
      stats.unknownCondition++;
      return;
    }
    let noPriceSum = 0n;
    for (const tokenId of given) {
      const p = position(e.wallet, tokenId);
      const avg = p.avgPrice;
      noPriceSum += avg;
      record(p, e.ref, 'convert_out', () => sell(p, e.amount, avg), { price: avg, amount: e.amount });
    }
    if (noCount >= questionCount) return;
    const noPrice = noPriceSum / noCount;
    const yesPrice = (noPrice * noCount - ONE * (noCount - 1n)) / (questionCount - noCount);
    const fee = (e.amount * ref.feeBips(e.negRiskMarketId)) / 10_000n;
    for (const tokenId of others) {
      const p = position(e.wallet, tokenId);
      record(
        p,
        e.ref,
        'convert_in',
        () => {
          buy(p, e.amount, yesPrice);
          p.totalBoughtUsd += (e.amount * max0(yesPrice)) / ONE;
          if (fee > 0n) {
            leave(p, fee);
            p.netFees += (fee * max0(yesPrice)) / ONE;
          }
        },
        { price: yesPrice, amount: e.amount },
      );
    }
  }
}
