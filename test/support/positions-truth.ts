/**
 * Ground truth of venue alpha's positions (issue 36 item 1; alpha-chain.md §6.5, §7.1, §8, §9), computed
 * from the sim ledger export and the sim's catalog only — never from ClickHouse or analytics/positions/.
 * Every (wallet, token) is replayed in ledger order (= chain order: records merged by `seq`). All figures
 * are BigInt base units (6 dp); prices are ×1e6; every division truncates toward zero (BigInt `/`).
 *
 * §7.1 primitives, per (wallet, token):
 * - buy(q, p), q > 0: avg ← (avg·shares + p·q) / (shares + q); shares += q; totalBought += q.
 * - sell(q, p): adj = min(q, shares); realized += adj·(p − avg) / 1e6; shares −= adj (avg unchanged).
 * - leave(q): shares −= q, nothing else (fees, transfers out). come back(q): shares += q, nothing else.
 *
 * Events:
 * - Fill (OrderFilled; maker fills and taker aggregates alike): credits the record's `maker` on its token.
 *   price = usd·1e6 / shares; fills += 1.
 *   BUY: buy(shares gross, price), totalBoughtUsd += usd; then the fee: V1 = shares, which leave
 *   (leave(fee), netFees += fee·price/1e6); V2 = collateral (netFees += fee).
 *   SELL: sell(shares, price); the fee is collateral in V1 and V2: netFees += fee.
 *   Order inside one fill: the gross shares are bought first, then the fee shares leave (the exchange
 *   pays the maker taking − fee and the fee receiver the fee, both out of the gross amount).
 * - Fee-module refund (FeeRefunded, same order and tx; the ledger's fill.feeRefund), right after its fill
 *   (the module refunds at the end of the same match, and a wallet has one fill per match): BUY (share
 *   fee): the shares come back (come back(refund)), netFees −= refund·price/1e6, change price = the
 *   fill's; SELL: netFees −= refund, change price 0 (no price applies to collateral).
 * - V1 share fees not going through a fee module (fee > 0 and no refund: a fee-module fill whose fee is
 *   above zero always refunds in the sim, since the operator keeps half) are received by the operator
 *   (ACTORS.operator): kind 'fee_income', buy(fee, 0). Through a fee module they stay at the module
 *   (a protocol address) apart from the refund.
 * - Split (user = the real user; CTF, NegRiskAdapter or collateral adapter): buy(amount, 500000) on both
 *   outcomes, totalBoughtUsd += amount·500000/1e6 on each. Merge: sell(amount, 500000) on both.
 * - Redeem: each outcome i sells the whole tracked shares at payouts[i]·1e6 / Σ payouts. For the CTF and
 *   the collateral adapters that is the rule; for the NegRiskAdapter the event's amounts[i] are the
 *   whole balances in the sim (sim/world/activity-flows.ts `redeem` passes [yes, no] balances), so the
 *   same rule holds. A position with no shares gets no change.
 * - Convert (NegRiskAdapter PositionsConverted: marketId, indexSet, amount): questionCount = the
 *   event's questions (all prepared when the event is created); for each NO of a question in indexSet,
 *   in index order: sell(amount, its own avg) (realized ~0), noPriceSum += that avg; noPrice =
 *   noPriceSum / noCount; when noCount < questionCount, yesPrice = (noPrice·noCount − 1e6·(noCount − 1))
 *   / (questionCount − noCount) (may be negative); each other question's YES: buy(amount, yesPrice),
 *   totalBoughtUsd += amount·max(yesPrice, 0)/1e6, then the conversion fee amount·feeBips/10000 leaves
 *   and netFees += fee·max(yesPrice, 0)/1e6. The total_bought_usd never decreases, so a
 *   negative yes price values those shares at 0 (docs/positions.md); the average follows yesPrice.
 * - Plain transfer (both sides non-protocol; the ledger's transfers): the sender's shares leave
 *   (transfer_out), the receiver buys them at the sender's avg (transfer_in: buy(amount, avg before);
 *   totalBought grows, totalBoughtUsd does not).
 *
 * Protocol addresses (never positions): every address of the alpha address sets and roles, the sim's
 * vaults (neg-risk vault, pUSD vault, NO-token burn) and the zero address (`isProtocolAddress`).
 */
import { ALPHA_ADDRESS_SETS, ALPHA_ROLES, allContracts } from '../../schemas/abi/alpha-addresses.ts';
import { ACTORS, VAULTS } from '../../sim/chain/addresses.ts';
import type { Catalog } from '../../sim/world/catalog.ts';
import type { LedgerExport } from '../../sim/world/ledger.ts';

const E6 = 1_000_000n;
const HALF = 500_000n;

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

export interface TruthState {
  shares: bigint;
  avgPrice: bigint;
  realizedPnl: bigint;
  totalBought: bigint;
  totalBoughtUsd: bigint;
  netFees: bigint;
  fills: bigint;
  /** Unix s (not ms) when the current holding opened from 0 shares (0 before any), and the realized P&L then. */
  openedAt: number;
  openRealizedPnl: bigint;
}

export interface TruthChange {
  wallet: string;
  tokenId: string;
  block: number;
  /** Unix s. */
  time: number;
  /** Ledger rank of the record (chain order across record kinds). */
  seq: number;
  txHash: string;
  kind: ChangeKind;
  /** 1 = a fill of this wallet (a trade). */
  fill: 0 | 1;
  /** Event price ×1e6. */
  price: bigint;
  /** Gross shares the event moved. */
  amount: bigint;
  /** Fill collateral notional (0 if not a fill). */
  usd: bigint;
  deltaShares: bigint;
  deltaRealized: bigint;
  deltaFees: bigint;
  deltaBoughtUsd: bigint;
  /** The state after the event. */
  after: TruthState;
}

export interface PositionsTruth {
  /** Keyed `${wallet}|${tokenId}` (wallet lowercase). */
  positions: Map<string, TruthState>;
  /** Every change in chain order. */
  changes: TruthChange[];
  /** Counts of what the replay saw, for tests to assert the flows were exercised. */
  stats: Record<ChangeKind | 'negativeYesPrice' | 'v1ShareFees' | 'shareRefunds', number>;
}

const lc = (s: unknown) => String(s).toLowerCase();

const PROTOCOL = new Set<string>([
  ...allContracts(ALPHA_ADDRESS_SETS).map((c) => lc(c.address)),
  ...Object.values(ALPHA_ROLES).map(lc),
  ...Object.values(VAULTS).map(lc),
  '0x0000000000000000000000000000000000000000',
]);

/** True for addresses that never hold positions (contracts, vaults, burn and zero addresses). */
export function isProtocolAddress(address: string): boolean {
  return PROTOCOL.has(lc(address));
}

/** The V1 fee receiver of matches sent without a fee module (it receives BUY fee shares). */
export const FEE_INCOME_ACCOUNT = lc(ACTORS.operator);

const emptyState = (): TruthState => ({
  shares: 0n,
  avgPrice: 0n,
  realizedPnl: 0n,
  totalBought: 0n,
  totalBoughtUsd: 0n,
  netFees: 0n,
  fills: 0n,
  openedAt: 0,
  openRealizedPnl: 0n,
});

interface Question {
  yes: string;
  no: string;
}

interface Rec {
  seq: number;
  block: number;
  time: number;
  txHash: string;
  apply: () => void;
}

export function positionsTruth(ledger: LedgerExport, catalog: Catalog): PositionsTruth {
  const alpha = catalog.venues.alpha;
  const tokensOf = new Map<string, Question>();
  for (const m of alpha.markets)
    tokensOf.set(lc(m.alpha?.conditionId ?? m.key), { yes: m.tokenIds[0], no: m.tokenIds[1] });
  /** Neg-risk market id → questions by index, fee. */
  const negRisk = new Map<string, { questions: Question[]; feeBips: bigint }>();
  const marketsByKey = new Map(alpha.markets.map((m) => [m.key, m]));
  for (const ev of alpha.events) {
    if (!ev.negRisk || !ev.negRiskMarketId) continue;
    const questions: Question[] = [];
    for (const key of ev.marketKeys) {
      const m = marketsByKey.get(key);
      if (!m?.alpha) continue;
      const index = m.alpha.negRiskIndex ?? Number.parseInt(m.alpha.questionId.slice(-2), 16);
      questions[index] = { yes: m.tokenIds[0], no: m.tokenIds[1] };
    }
    negRisk.set(lc(ev.negRiskMarketId), { questions, feeBips: BigInt(ev.negRiskFeeBips ?? 0) });
  }
  const payouts = new Map<string, [bigint, bigint]>();
  for (const r of ledger.resolutions) {
    const p = r.payouts as [number, number];
    payouts.set(lc(r.conditionId), [BigInt(p[0]), BigInt(p[1])]);
  }

  const positions = new Map<string, TruthState>();
  const changes: TruthChange[] = [];
  const stats = {
    buy: 0,
    sell: 0,
    split: 0,
    merge: 0,
    redeem: 0,
    convert_in: 0,
    convert_out: 0,
    transfer_in: 0,
    transfer_out: 0,
    fee_refund: 0,
    fee_income: 0,
    negativeYesPrice: 0,
    v1ShareFees: 0,
    shareRefunds: 0,
  };
  const get = (wallet: string, token: string): TruthState => {
    const key = `${wallet}|${token}`;
    let s = positions.get(key);
    if (!s) {
      s = emptyState();
      positions.set(key, s);
    }
    return s;
  };

  let current: Rec = { seq: 0, block: 0, time: 0, txHash: '', apply: () => {} };

  /** One change of one position: `fn` mutates the state with the §7.1 primitives below. */
  function change(
    walletRaw: string,
    token: string,
    kind: ChangeKind,
    meta: { fill?: 0 | 1; price: bigint; amount: bigint; usd?: bigint },
    fn: (s: TruthState) => void,
  ): void {
    const wallet = lc(walletRaw);
    if (isProtocolAddress(wallet)) throw new Error(`truth: protocol address ${wallet} would get a position`);
    const s = get(wallet, token);
    const before = { ...s };
    fn(s);
    if (before.shares === 0n && s.shares > 0n) {
      s.openedAt = current.time;
      s.openRealizedPnl = before.realizedPnl;
    }
    stats[kind]++;
    changes.push({
      wallet,
      tokenId: token,
      block: current.block,
      time: current.time,
      seq: current.seq,
      txHash: current.txHash,
      kind,
      fill: meta.fill ?? 0,
      price: meta.price,
      amount: meta.amount,
      usd: meta.usd ?? 0n,
      deltaShares: s.shares - before.shares,
      deltaRealized: s.realizedPnl - before.realizedPnl,
      deltaFees: s.netFees - before.netFees,
      deltaBoughtUsd: s.totalBoughtUsd - before.totalBoughtUsd,
      after: { ...s },
    });
  }

  function buy(s: TruthState, q: bigint, p: bigint): void {
    if (q <= 0n) return;
    s.avgPrice = (s.avgPrice * s.shares + p * q) / (s.shares + q);
    s.shares += q;
    s.totalBought += q;
  }
  function sell(s: TruthState, q: bigint, p: bigint): void {
    const adj = q < s.shares ? q : s.shares;
    s.realizedPnl += (adj * (p - s.avgPrice)) / E6;
    s.shares -= adj;
  }
  function leave(s: TruthState, q: bigint): void {
    if (q > s.shares) throw new Error(`truth: ${q} shares leave a position of ${s.shares}`);
    s.shares -= q;
  }

  const recs: Rec[] = [];
  const at = (r: Record<string, unknown>, apply: () => void) =>
    recs.push({
      seq: Number(r.seq),
      block: Number(r.block),
      time: Number(r.time),
      txHash: lc(r.txHash),
      apply,
    });

  for (const f of ledger.fills) {
    at(f, () => {
      const token = String(f.tokenId);
      const shares = BigInt(f.shares as string);
      const usd = BigInt(f.usd as string);
      const fee = BigInt(f.fee as string);
      const refund = BigInt(f.feeRefund as string);
      const v1 = Number(f.version) === 1;
      const isBuy = f.side === 'buy';
      const price = (usd * E6) / shares;
      change(
        f.maker as string,
        token,
        isBuy ? 'buy' : 'sell',
        { fill: 1, price, amount: shares, usd },
        (s) => {
          s.fills += 1n;
          if (isBuy) {
            buy(s, shares, price);
            s.totalBoughtUsd += usd;
            if (v1) {
              leave(s, fee);
              s.netFees += (fee * price) / E6;
            } else s.netFees += fee;
          } else {
            sell(s, shares, price);
            s.netFees += fee;
          }
        },
      );
      if (v1 && isBuy && fee > 0n) stats.v1ShareFees++;
      if (refund > 0n) {
        if (isBuy && v1) stats.shareRefunds++;
        // The change's price: the fill's for shares coming back; none (0) for collateral.
        const refundPrice = isBuy && v1 ? price : 0n;
        change(f.maker as string, token, 'fee_refund', { price: refundPrice, amount: refund }, (s) => {
          if (isBuy && v1) {
            s.shares += refund;
            s.netFees -= (refund * price) / E6;
          } else s.netFees -= refund;
        });
      }
      if (v1 && isBuy && fee > 0n && refund === 0n) {
        change(FEE_INCOME_ACCOUNT, token, 'fee_income', { price: 0n, amount: fee }, (s) => buy(s, fee, 0n));
      }
    });
  }

  for (const a of ledger.activity) {
    at(a, () => {
      const user = a.user as string;
      const amount = BigInt(a.amount as string);
      if (a.kind === 'split' || a.kind === 'merge') {
        const q = tokensOf.get(lc(a.conditionId));
        if (!q) throw new Error(`truth: unknown condition ${a.conditionId}`);
        for (const token of [q.yes, q.no]) {
          change(user, token, a.kind, { price: HALF, amount }, (s) => {
            if (a.kind === 'split') {
              buy(s, amount, HALF);
              s.totalBoughtUsd += (amount * HALF) / E6;
            } else sell(s, amount, HALF);
          });
        }
      } else if (a.kind === 'redeem') {
        const cond = lc(a.conditionId);
        const q = tokensOf.get(cond);
        const p = payouts.get(cond);
        if (!q || !p) throw new Error(`truth: redeem of unknown or unresolved condition ${cond}`);
        const den = p[0] + p[1];
        [q.yes, q.no].forEach((token, i) => {
          const held = positions.get(`${lc(user)}|${token}`)?.shares ?? 0n;
          if (held === 0n) return;
          const price = ((p[i] as bigint) * E6) / den;
          change(user, token, 'redeem', { price, amount: held }, (s) => sell(s, held, price));
        });
      } else if (a.kind === 'convert') {
        const market = negRisk.get(lc(a.negRiskMarketId));
        if (!market) throw new Error(`truth: unknown neg-risk market ${a.negRiskMarketId}`);
        const indexSet = BigInt(a.indexSet as string);
        const questionCount = BigInt(market.questions.length);
        const inSet = (i: number) => ((indexSet >> BigInt(i)) & 1n) === 1n;
        let noPriceSum = 0n;
        let noCount = 0n;
        market.questions.forEach((q, i) => {
          if (!inSet(i)) return;
          const avg = get(lc(user), q.no).avgPrice;
          change(user, q.no, 'convert_out', { price: avg, amount }, (s) => sell(s, amount, avg));
          noPriceSum += avg;
          noCount++;
        });
        if (noCount === 0n || noCount === questionCount) return;
        const noPrice = noPriceSum / noCount;
        const yesPrice = (noPrice * noCount - E6 * (noCount - 1n)) / (questionCount - noCount);
        if (yesPrice < 0n) stats.negativeYesPrice++;
        const fee = (amount * market.feeBips) / 10_000n;
        market.questions.forEach((q, i) => {
          if (inSet(i)) return;
          change(user, q.yes, 'convert_in', { price: yesPrice, amount }, (s) => {
            const valued = yesPrice > 0n ? yesPrice : 0n;
            buy(s, amount, yesPrice);
            s.totalBoughtUsd += (amount * valued) / E6;
            leave(s, fee);
            s.netFees += (fee * valued) / E6;
          });
        });
      }
    });
  }

  for (const t of ledger.transfers) {
    at(t, () => {
      const token = String(t.tokenId);
      const amount = BigInt(t.amount as string);
      const from = lc(t.from);
      const to = lc(t.to);
      if (isProtocolAddress(from) || isProtocolAddress(to)) {
        throw new Error(`truth: the ledger's plain transfers are between wallets (${from} → ${to})`);
      }
      const avg = get(from, token).avgPrice;
      change(from, token, 'transfer_out', { price: avg, amount }, (s) => leave(s, amount));
      change(to, token, 'transfer_in', { price: avg, amount }, (s) => buy(s, amount, avg));
    });
  }

  recs.sort((x, y) => x.seq - y.seq);
  for (const r of recs) {
    current = r;
    r.apply();
  }
  return { positions, changes, stats };
}
