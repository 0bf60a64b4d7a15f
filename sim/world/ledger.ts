/**
 * Ground truth of the simulated alpha chain, kept by the generator as it sends transactions: every
 * token balance (ERC-20 per token, ERC-1155 per position id, for every holder including contracts and
 * vaults), every fill as its OrderFilled event carries it, every split / merge / redemption / conversion
 * attributed to the real user, resolutions, and collateral wraps and unwraps. Pipeline tests compare
 * what they ingested with `exportLedger()`; the sim's own test compares the balances with the chain.
 *
 * Invariants:
 * - Records are appended in chain order (block, then transaction, then event order); every record carries
 *   `seq`, its rank in that order across all record lists (fills, activity, transfers, ...), so the lists
 *   can be merged back into chain order (after a rollback, numbering resumes after the last record kept).
 * - Balances never go negative: a move that would is a driver bug and throws.
 * - Every balance change of the last `journalDepth` blocks is journaled, so a rollback of those blocks
 *   (reorg injection) restores the balances and drops the records exactly.
 * Addresses are lowercase 0x hex; token ids and amounts are decimal strings in exports.
 */
import type { Address, Hex } from 'viem';

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000' as Address;

export type FillRole = 'maker' | 'taker';
export type MatchType = 'complementary' | 'mint' | 'merge';

export interface LedgerFill {
  block: number;
  /** Unix seconds of the block. */
  time: number;
  txHash: Hex;
  /** Emitting exchange. */
  exchange: Address;
  version: 1 | 2;
  negRisk: boolean;
  orderHash: Hex;
  maker: Address;
  /** As in the event: the taker order's maker for maker fills, the exchange for the taker's aggregate. */
  taker: Address;
  role: FillRole;
  side: 'buy' | 'sell';
  tokenId: string;
  conditionId: Hex;
  /** 0 = Yes / first outcome, 1 = No. */
  outcomeIndex: 0 | 1;
  makerAmountFilled: bigint;
  takerAmountFilled: bigint;
  shares: bigint;
  /** Collateral notional (USDC.e in v1, pUSD in v2), base units. */
  usd: bigint;
  /** Fee as in the event (v1: shares for BUY, collateral for SELL; v2: collateral). */
  fee: bigint;
  /** v1 fee-module refund of that fee (0 when none). */
  feeRefund: bigint;
  /** v2 only (null in v1). bytes32 hex, the zero word when unset. */
  builder: Hex | null;
  metadata: Hex | null;
  /** How this maker's fill was settled; the taker's aggregate carries 'complementary' unless all makers minted/merged. */
  matchType: MatchType;
  /** Index of the match within the run (shared by its maker fills and aggregate). */
  matchId: number;
}

export type ActivityKind = 'split' | 'merge' | 'redeem' | 'convert';

export interface LedgerActivity {
  kind: ActivityKind;
  block: number;
  time: number;
  txHash: Hex;
  /** The real user (never an adapter). */
  user: Address;
  /** Contract the user called: the CTF, the NegRiskAdapter or a collateral adapter. */
  via: Address;
  conditionId: Hex | null;
  negRiskMarketId: Hex | null;
  /** Conversions: bit i set = NO of question i given up. */
  indexSet: bigint | null;
  /** Split / merge / convert amount (pre-fee for conversions). Redeem: shares burned (both outcomes). */
  amount: bigint;
  /** Redeem: collateral paid out; convert: collateral released to the user. */
  payout: bigint;
  /** Collateral the user gave or received: USDC.e, or pUSD through the collateral adapters. */
  collateral: Address;
}

/**
 * A plain wallet-to-wallet outcome-token transfer (CTF safeTransferFrom sent by the holder): neither side
 * is a protocol address. Exchange settlements, adapters and conversions move tokens too, but those are
 * recorded as fills and activity, not here.
 */
export interface LedgerTransfer {
  block: number;
  time: number;
  txHash: Hex;
  tokenId: string;
  from: Address;
  to: Address;
  amount: bigint;
}

export interface LedgerResolution {
  block: number;
  time: number;
  txHash: Hex;
  conditionId: Hex;
  questionId: Hex;
  /** msg.sender of reportPayouts: the UMA adapter (standard) or the NegRiskAdapter. */
  oracle: Address;
  payouts: [number, number];
  winningIndex: number;
  disputed: boolean;
}

export interface LedgerCollateralEvent {
  kind: 'wrap' | 'unwrap' | 'transfer' | 'deposit';
  block: number;
  time: number;
  txHash: Hex;
  token: Address;
  /** wrap/unwrap: the ramp or adapter (event `caller`); transfer: sender; deposit: zero address. */
  from: Address;
  to: Address;
  amount: bigint;
  /**
   * wrap/unwrap: who transferred what is wrapped (USDC.e) or unwrapped (pUSD) into the pUSD contract
   * first: the user through a ramp or before an adapter split, the adapter after a merge or redemption.
   */
  funder?: Address;
}

export interface LedgerOracleEvent {
  kind: 'initialize' | 'propose' | 'dispute' | 'reset' | 'settle' | 'resolve' | 'report';
  block: number;
  time: number;
  txHash: Hex;
  conditionId: Hex;
  umaQuestionId: Hex;
  /** Proposed or settled price (1e18 scale) where the event has one. */
  price: bigint | null;
}

/** A record with its rank in chain order across every record list of the ledger. */
export type Sequenced<T> = T & { seq: number };

export interface BlockRef {
  number: number;
  time: number;
}

export interface Ledger {
  /** Sets the block the next records belong to. */
  setBlock(block: BlockRef): void;
  block(): BlockRef;
  balance20(token: Address, holder: Address): bigint;
  balance1155(id: bigint | string, holder: Address): bigint;
  /** ERC-20 move; from = zero address mints, to = zero address burns. */
  move20(token: Address, from: Address, to: Address, amount: bigint): void;
  move1155(id: bigint | string, from: Address, to: Address, amount: bigint): void;
  addFill(f: Omit<LedgerFill, 'block' | 'time'>): void;
  addActivity(a: Omit<LedgerActivity, 'block' | 'time'>): void;
  addResolution(r: Omit<LedgerResolution, 'block' | 'time'>): void;
  addCollateral(c: Omit<LedgerCollateralEvent, 'block' | 'time'>): void;
  addOracle(o: Omit<LedgerOracleEvent, 'block' | 'time'>): void;
  addTransfer(t: Omit<LedgerTransfer, 'block' | 'time'>): void;
  readonly fills: readonly Sequenced<LedgerFill>[];
  readonly activity: readonly Sequenced<LedgerActivity>[];
  readonly transfers: readonly Sequenced<LedgerTransfer>[];
  readonly resolutions: readonly Sequenced<LedgerResolution>[];
  readonly collateral: readonly Sequenced<LedgerCollateralEvent>[];
  readonly oracle: readonly Sequenced<LedgerOracleEvent>[];
  /** Every (token, holder) pair with its balance, zero balances included (they were touched). */
  erc20Balances(): { token: Address; holder: Address; amount: bigint }[];
  erc1155Balances(): { tokenId: string; holder: Address; amount: bigint }[];
  /** Undoes every change and record of blocks after `block` (must be within the journal depth). */
  rollbackTo(block: number): void;
  /** Oldest block that can still be rolled back to. */
  journalFloor(): number;
}

interface JournalEntry {
  block: number;
  kind: 20 | 1155;
  key: string;
  from: string;
  to: string;
  amount: bigint;
}

const lc = (a: string) => a.toLowerCase();

export function createLedger(options: { journalDepth?: number } = {}): Ledger {
  const journalDepth = options.journalDepth ?? 128;
  const erc20 = new Map<string, Map<string, bigint>>();
  const erc1155 = new Map<string, Map<string, bigint>>();
  const fills: Sequenced<LedgerFill>[] = [];
  const activity: Sequenced<LedgerActivity>[] = [];
  const transfers: Sequenced<LedgerTransfer>[] = [];
  const resolutions: Sequenced<LedgerResolution>[] = [];
  const collateral: Sequenced<LedgerCollateralEvent>[] = [];
  const oracle: Sequenced<LedgerOracleEvent>[] = [];
  let seq = 0;
  let journal: JournalEntry[] = [];
  let current: BlockRef = { number: 0, time: 0 };
  let floor = 0;

  function apply(
    book: Map<string, Map<string, bigint>>,
    key: string,
    from: string,
    to: string,
    amount: bigint,
  ) {
    let holders = book.get(key);
    if (!holders) {
      holders = new Map();
      book.set(key, holders);
    }
    if (from !== ZERO_ADDRESS) {
      const bal = holders.get(from) ?? 0n;
      if (bal < amount) {
        throw new Error(
          `ledger: ${from} holds ${bal} of ${key}, cannot move ${amount} (block ${current.number})`,
        );
      }
      holders.set(from, bal - amount);
    }
    if (to !== ZERO_ADDRESS) holders.set(to, (holders.get(to) ?? 0n) + amount);
  }

  function trimJournal() {
    const keepFrom = current.number - journalDepth;
    if (journal.length > 0 && (journal[0] as JournalEntry).block < keepFrom) {
      let i = 0;
      while (i < journal.length && (journal[i] as JournalEntry).block < keepFrom) i++;
      journal = journal.slice(i);
    }
    floor = Math.max(floor, keepFrom);
  }

  function move(kind: 20 | 1155, key: string, from: string, to: string, amount: bigint) {
    if (amount < 0n) throw new Error(`ledger: negative amount ${amount}`);
    if (amount === 0n) return;
    apply(kind === 20 ? erc20 : erc1155, key, from, to, amount);
    if (journalDepth > 0) journal.push({ block: current.number, kind, key, from, to, amount });
  }

  const stamp = <T>(r: T) => ({ ...r, block: current.number, time: current.time, seq: seq++ });

  function popAfter<T extends { block: number }>(arr: T[], block: number) {
    while (arr.length > 0 && (arr[arr.length - 1] as T).block > block) arr.pop();
  }

  return {
    setBlock(block) {
      current = block;
      if (journalDepth > 0 && block.number % 64 === 0) trimJournal();
    },
    block: () => current,
    balance20: (token, holder) => erc20.get(lc(token))?.get(lc(holder)) ?? 0n,
    balance1155: (id, holder) => erc1155.get(String(id))?.get(lc(holder)) ?? 0n,
    move20(token, from, to, amount) {
      move(20, lc(token), lc(from), lc(to), amount);
    },
    move1155(id, from, to, amount) {
      move(1155, String(id), lc(from), lc(to), amount);
    },
    addFill: (f) => fills.push(stamp(f)),
    addActivity: (a) => activity.push(stamp(a)),
    addResolution: (r) => resolutions.push(stamp(r)),
    addCollateral: (c) => collateral.push(stamp(c)),
    addOracle: (o) => oracle.push(stamp(o)),
    addTransfer: (t) => transfers.push(stamp({ ...t, from: lc(t.from) as Address, to: lc(t.to) as Address })),
    fills,
    activity,
    transfers,
    resolutions,
    collateral,
    oracle,
    erc20Balances() {
      const out: { token: Address; holder: Address; amount: bigint }[] = [];
      for (const [token, holders] of erc20) {
        for (const [holder, amount] of holders)
          out.push({ token: token as Address, holder: holder as Address, amount });
      }
      return out;
    },
    erc1155Balances() {
      const out: { tokenId: string; holder: Address; amount: bigint }[] = [];
      for (const [tokenId, holders] of erc1155) {
        for (const [holder, amount] of holders) out.push({ tokenId, holder: holder as Address, amount });
      }
      return out;
    },
    rollbackTo(block) {
      if (journalDepth === 0) throw new Error('ledger: journaling is off, cannot roll back');
      if (block < floor) throw new Error(`ledger: cannot roll back below block ${floor}`);
      while (journal.length > 0 && (journal[journal.length - 1] as JournalEntry).block > block) {
        const e = journal.pop() as JournalEntry;
        // Reverse move: to -> from (mints become burns and back).
        apply(e.kind === 20 ? erc20 : erc1155, e.key, e.to, e.from, e.amount);
      }
      popAfter(fills, block);
      popAfter(activity, block);
      popAfter(transfers, block);
      popAfter(resolutions, block);
      popAfter(collateral, block);
      popAfter(oracle, block);
      seq = 0;
      for (const list of [fills, activity, transfers, resolutions, collateral, oracle]) {
        const last = list[list.length - 1];
        if (last && last.seq >= seq) seq = last.seq + 1;
      }
    },
    journalFloor: () => floor,
  };
}

/** A JSON-able snapshot of the ledger: bigints as decimal strings. */
export interface LedgerExport {
  fills: Record<string, unknown>[];
  activity: Record<string, unknown>[];
  /** Plain wallet-to-wallet outcome-token transfers. */
  transfers: Record<string, unknown>[];
  resolutions: Record<string, unknown>[];
  collateral: Record<string, unknown>[];
  oracle: Record<string, unknown>[];
  balances: {
    erc20: { token: string; holder: string; amount: string }[];
    erc1155: { tokenId: string; holder: string; amount: string }[];
  };
  /** Per market (conditionId): maker fills only, so each trade counts once. */
  markets: Record<string, { trades: number; shares: string; usd: string }>;
  /** Per wallet: fills as maker (its own maker fills) and as taker (its aggregates), volumes from both. */
  wallets: Record<string, { makerFills: number; takerFills: number; usd: string; shares: string }>;
}

function plain(o: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) out[k] = typeof v === 'bigint' ? v.toString() : v;
  return out;
}

export function exportLedger(ledger: Ledger): LedgerExport {
  const markets: Record<string, { trades: number; shares: bigint; usd: bigint }> = {};
  const wallets: Record<string, { makerFills: number; takerFills: number; usd: bigint; shares: bigint }> = {};
  for (const f of ledger.fills) {
    wallets[f.maker] ??= { makerFills: 0, takerFills: 0, usd: 0n, shares: 0n };
    const w = wallets[f.maker] as { makerFills: number; takerFills: number; usd: bigint; shares: bigint };
    w.usd += f.usd;
    w.shares += f.shares;
    if (f.role === 'maker') {
      w.makerFills++;
      markets[f.conditionId] ??= { trades: 0, shares: 0n, usd: 0n };
      const m = markets[f.conditionId] as { trades: number; shares: bigint; usd: bigint };
      m.trades++;
      m.shares += f.shares;
      m.usd += f.usd;
    } else {
      w.takerFills++;
    }
  }
  const str = <T extends Record<string, unknown>>(rec: Record<string, T>) =>
    Object.fromEntries(Object.entries(rec).map(([k, v]) => [k, plain(v)])) as never;
  return {
    fills: ledger.fills.map(plain),
    activity: ledger.activity.map(plain),
    transfers: ledger.transfers.map(plain),
    resolutions: ledger.resolutions.map(plain),
    collateral: ledger.collateral.map(plain),
    oracle: ledger.oracle.map(plain),
    balances: {
      erc20: ledger.erc20Balances().map((b) => ({ ...b, amount: b.amount.toString() })),
      erc1155: ledger.erc1155Balances().map((b) => ({ ...b, amount: b.amount.toString() })),
    },
    markets: str(markets),
    wallets: str(wallets),
  };
}
