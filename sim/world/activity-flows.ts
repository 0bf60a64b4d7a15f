/**
 * Every on-chain action of the simulated world, done twice in lockstep: the transaction is queued on the
 * chain, and its token movements are applied to the ledger exactly as the contracts in sim/contracts make
 * them (same hops, same order, same integer arithmetic). The sim's balance test proves the two agree.
 *
 * Matches are batched: `matchV1`/`matchV2` append to the batch of one entry contract (an exchange or a fee
 * module) and apply the ledger at once; any other action, a match for another entry contract, or mining
 * flushes the batch first, so the chain executes everything in the order the ledger saw it.
 */
import type { Address, Hex } from 'viem';
import { ACTORS, ADDR, VAULTS } from '../chain/addresses.ts';
import type { Deployment } from '../chain/deploy.ts';
import type { ChainDriver, MinedBlock } from '../chain/driver.ts';
import {
  hashV1Order,
  hashV2Order,
  matchBatchCalldata,
  pushV1Match,
  pushV2Match,
  type V1Match,
  type V1Order,
  type V2Match,
  type V2Order,
} from '../chain/orders.ts';
import { type Ledger, type MatchType, ZERO_ADDRESS } from './ledger.ts';

export interface ChainMarket {
  conditionId: Hex;
  /** Position ids [yes, no]. */
  yes: bigint;
  no: bigint;
  negRisk: boolean;
}

export const ONE = 10n ** 18n;
const ZERO32 = `0x${'0'.repeat(64)}` as Hex;
/** Max words per batch transaction (~300 matches). */
const MAX_BATCH_WORDS = 12_000;
/**
 * Max transactions per block. anvil's block building slows down badly with thousands of transactions and
 * tens of thousands of logs in one block, so a busy step is spread over several blocks.
 */
export const MAX_TXS_PER_BLOCK = 200;

/** V1 CalculatorHelper.calculateFee, in integers exactly as the contract computes it. */
export function v1Fee(
  feeRateBps: number,
  outcomeTokens: bigint,
  makerAmount: bigint,
  takerAmount: bigint,
  side: 0 | 1,
) {
  if (feeRateBps === 0) return 0n;
  const price = side === 0 ? (makerAmount * ONE) / takerAmount : (takerAmount * ONE) / makerAmount;
  if (price === 0n || price > ONE) return 0n;
  const m = price < ONE - price ? price : ONE - price;
  const rate = BigInt(feeRateBps);
  return side === 0
    ? (rate * m * outcomeTokens) / (price * 10_000n)
    : (rate * m * outcomeTokens) / (10_000n * ONE);
}

export interface Flows {
  readonly ledger: Ledger;
  readonly driver: ChainDriver;
  /**
   * Mines everything queued (flushing batches). Returns every block mined since `beginBlock`: a step with
   * more than MAX_TXS_PER_BLOCK transactions is spread over blocks one second apart.
   */
  mine(): Promise<MinedBlock[]>;
  /** Starts a block at `timestamp` (s): the ledger records what follows under it. */
  beginBlock(timestamp: number): void;
  deposit(to: Address, amount: bigint): Promise<void>;
  transfer(token: 'usdcE' | 'pUsd', from: Address, to: Address, amount: bigint): Promise<void>;
  onrampWrap(user: Address, amount: bigint): Promise<void>;
  offrampUnwrap(user: Address, amount: bigint): Promise<void>;
  split(user: Address, m: ChainMarket, amount: bigint, via: 'direct' | 'adapter'): Promise<void>;
  merge(user: Address, m: ChainMarket, amount: bigint, via: 'direct' | 'adapter'): Promise<void>;
  redeem(user: Address, m: ChainMarket, via: 'direct' | 'adapter'): Promise<void>;
  convert(
    user: Address,
    marketId: Hex,
    questions: ChainMarket[],
    indexSet: bigint,
    amount: bigint,
    feeBips: number,
  ): Promise<void>;
  /**
   * A plain outcome-token transfer between two wallets: CTF safeTransferFrom sent by the holder
   * (TransferSingle with operator = from), recorded in the ledger's transfers.
   */
  transferPosition(from: Address, to: Address, tokenId: bigint, amount: bigint): Promise<void>;
  /** V1 match through an exchange, or its fee module when `viaFeeModule`. */
  matchV1(m: V1Match, market: ChainMarket, viaFeeModule: boolean, matchId: number): Promise<void>;
  matchV2(m: V2Match, market: ChainMarket, matchId: number): Promise<void>;
  /** Sends queued match batches now. */
  flush(): Promise<void>;
  /** Raw admin/actor call (UMA lifecycle, registrations); flushes batches first. */
  call(
    from: Address,
    key: keyof typeof ADDR,
    functionName: string,
    args: readonly unknown[],
    gas?: bigint,
  ): Promise<Hex>;
  /** Hash of the last transaction queued by this module. */
  lastTx(): Hex;
  /**
   * Timestamp (s) of the block the last transaction goes into: a busy step spills into blocks one second
   * apart, so contracts that read block.timestamp (UMA request times) may see a later time than the step's.
   */
  blockTime(): number;
  /** Tells the mirrors a condition's payouts ([yes, no]) once its ConditionResolution is queued. */
  setPayouts(conditionId: Hex, payouts: [bigint, bigint]): void;
}

export function createFlows(deps: {
  driver: ChainDriver;
  ledger: Ledger;
  deployment: Deployment;
  /** Keep a record per OrderFilled in the ledger (default true; balances are kept either way). */
  recordFills?: boolean;
  /** Transactions per block (default MAX_TXS_PER_BLOCK). */
  maxTxsPerBlock?: number;
  /** Calldata words per match-batch transaction (default MAX_BATCH_WORDS, ~300 small matches). */
  maxBatchWords?: number;
}): Flows {
  const { driver, ledger, deployment } = deps;
  const recordFills = deps.recordFills ?? true;
  const maxTxsPerBlock = deps.maxTxsPerBlock ?? MAX_TXS_PER_BLOCK;
  const maxBatchWords = deps.maxBatchWords ?? MAX_BATCH_WORDS;
  const L = ledger;
  let batchTarget: Address | null = null;
  let batchWords: string[] = [];
  let batchMatches = 0;
  let lastHash: Hex = ZERO32;
  /** Fills of the open batch, written to the ledger once the batch transaction has a hash. */
  let batchFills: Parameters<Ledger['addFill']>[0][] = [];
  let batchCollateral: Parameters<Ledger['addCollateral']>[0][] = [];
  let inBatch = false;

  let blockTime = 0;
  let mined: MinedBlock[] = [];

  async function mineNow() {
    mined.push(await driver.mine(blockTime));
    blockTime += 1;
    L.setBlock({ number: driver.head() + 1, time: blockTime });
  }

  /** Before queuing a transaction (or opening a batch): starts a new block when this one is full. */
  async function beforeSend() {
    if (driver.pending() >= maxTxsPerBlock) await mineNow();
  }

  const usdc = ADDR.usdcE;
  const pusd = ADDR.pUsd;
  const wcol = ADDR.wcol;
  const CTF = ADDR.conditionalTokens;
  const NRA = ADDR.negRiskAdapter;

  // ------------------------------------------------------------------ ledger mirrors of contract internals

  function xfer(from: Address, to: Address, id: bigint, amount: bigint, collateral: Address) {
    if (id === 0n) L.move20(collateral, from, to, amount);
    else L.move1155(id, from, to, amount);
  }

  function ctfSplit(stakeholder: Address, collateral: Address, m: ChainMarket, amount: bigint) {
    L.move20(collateral, stakeholder, CTF, amount);
    L.move1155(m.yes, ZERO_ADDRESS, stakeholder, amount);
    L.move1155(m.no, ZERO_ADDRESS, stakeholder, amount);
  }

  function ctfMerge(stakeholder: Address, collateral: Address, m: ChainMarket, amount: bigint) {
    L.move1155(m.yes, stakeholder, ZERO_ADDRESS, amount);
    L.move1155(m.no, stakeholder, ZERO_ADDRESS, amount);
    L.move20(collateral, CTF, stakeholder, amount);
  }

  const payouts = new Map<string, [bigint, bigint]>();

  function ctfRedeem(redeemer: Address, collateral: Address, m: ChainMarket): bigint {
    const p = payouts.get(m.conditionId);
    if (!p) throw new Error(`ledger: redeem of unresolved condition ${m.conditionId}`);
    const den = p[0] + p[1];
    let total = 0n;
    const yes = L.balance1155(m.yes, redeemer);
    if (yes > 0n) {
      total += (yes * p[0]) / den;
      L.move1155(m.yes, redeemer, ZERO_ADDRESS, yes);
    }
    const no = L.balance1155(m.no, redeemer);
    if (no > 0n) {
      total += (no * p[1]) / den;
      L.move1155(m.no, redeemer, ZERO_ADDRESS, no);
    }
    if (total > 0n) L.move20(collateral, CTF, redeemer, total);
    return total;
  }

  function nraSplit(caller: Address, m: ChainMarket, amount: bigint) {
    L.move20(usdc, caller, NRA, amount);
    L.move20(usdc, NRA, wcol, amount);
    L.move20(wcol, ZERO_ADDRESS, NRA, amount);
    ctfSplit(NRA, wcol, m, amount);
    L.move1155(m.yes, NRA, caller, amount);
    L.move1155(m.no, NRA, caller, amount);
  }

  function nraMerge(caller: Address, m: ChainMarket, amount: bigint) {
    L.move1155(m.yes, caller, NRA, amount);
    L.move1155(m.no, caller, NRA, amount);
    ctfMerge(NRA, wcol, m, amount);
    L.move20(wcol, NRA, ZERO_ADDRESS, amount);
    L.move20(usdc, wcol, caller, amount);
  }

  function nraRedeem(caller: Address, m: ChainMarket, yesAmount: bigint, noAmount: bigint): bigint {
    L.move1155(m.yes, caller, NRA, yesAmount);
    L.move1155(m.no, caller, NRA, noAmount);
    ctfRedeem(NRA, wcol, m);
    const payout = L.balance20(wcol, NRA);
    if (payout > 0n) {
      L.move20(wcol, NRA, ZERO_ADDRESS, payout);
      L.move20(usdc, wcol, caller, payout);
    }
    return payout;
  }

  function collateralRecord(r: Parameters<Ledger['addCollateral']>[0]) {
    if (inBatch) batchCollateral.push(r);
    else L.addCollateral(r);
  }

  /** `funder` transferred the asset (wrap) or the pUSD (unwrap) into the pUSD contract before. */
  function pusdWrap(caller: Address, to: Address, amount: bigint, funder: Address) {
    L.move20(pusd, ZERO_ADDRESS, to, amount);
    L.move20(usdc, pusd, VAULTS.pUsdVault, amount);
    collateralRecord({ kind: 'wrap', txHash: lastHash, token: pusd, from: caller, to, amount, funder });
  }

  function pusdUnwrap(caller: Address, to: Address, amount: bigint, funder: Address) {
    L.move20(usdc, VAULTS.pUsdVault, to, amount);
    L.move20(pusd, pusd, ZERO_ADDRESS, amount);
    collateralRecord({ kind: 'unwrap', txHash: lastHash, token: pusd, from: caller, to, amount, funder });
  }

  const collateralAdapterOf = (m: ChainMarket) =>
    m.negRisk ? ADDR.negRiskCtfCollateralAdapter : ADDR.ctfCollateralAdapter;

  /** CtfCollateralAdapter / NegRiskCtfCollateralAdapter.splitPosition, called by `sender`. */
  function adapterSplit(sender: Address, m: ChainMarket, amount: bigint) {
    const A = collateralAdapterOf(m);
    L.move20(pusd, sender, pusd, amount);
    pusdUnwrap(A, A, amount, sender);
    if (m.negRisk) nraSplit(A, m, amount);
    else ctfSplit(A, usdc, m, amount);
    L.move1155(m.yes, A, sender, amount);
    L.move1155(m.no, A, sender, amount);
  }

  function adapterMerge(sender: Address, m: ChainMarket, amount: bigint) {
    const A = collateralAdapterOf(m);
    L.move1155(m.yes, sender, A, amount);
    L.move1155(m.no, sender, A, amount);
    if (m.negRisk) nraMerge(A, m, amount);
    else ctfMerge(A, usdc, m, amount);
    L.move20(usdc, A, pusd, amount);
    pusdWrap(A, sender, amount, A);
  }

  function adapterRedeem(sender: Address, m: ChainMarket): { burned: bigint; payout: bigint } {
    const A = collateralAdapterOf(m);
    const yes = L.balance1155(m.yes, sender);
    const no = L.balance1155(m.no, sender);
    L.move1155(m.yes, sender, A, yes);
    L.move1155(m.no, sender, A, no);
    if (m.negRisk) nraRedeem(A, m, L.balance1155(m.yes, A), L.balance1155(m.no, A));
    else ctfRedeem(A, usdc, m);
    const amount = L.balance20(usdc, A);
    L.move20(usdc, A, pusd, amount);
    pusdWrap(A, sender, amount, A);
    return { burned: yes + no, payout: amount };
  }

  // ------------------------------------------------------------------ transactions

  async function flush() {
    if (batchTarget && batchWords.length > 0) {
      const gas = 2_000_000n + 1_500_000n * BigInt(batchMatches);
      lastHash = await driver.send(ACTORS.operator, batchTarget, matchBatchCalldata(batchWords), gas);
      for (const f of batchFills) L.addFill({ ...f, txHash: lastHash });
      for (const c of batchCollateral) L.addCollateral({ ...c, txHash: lastHash });
    }
    batchTarget = null;
    batchWords = [];
    batchMatches = 0;
    batchFills = [];
    batchCollateral = [];
  }

  async function call(
    from: Address,
    key: keyof typeof ADDR,
    functionName: string,
    args: readonly unknown[],
    gas?: bigint,
  ): Promise<Hex> {
    await flush();
    await beforeSend();
    lastHash = await driver.call(
      from,
      ADDR[key],
      { abi: deployment.abi(key), functionName, args } as never,
      gas,
    );
    return lastHash;
  }

  async function openBatch(target: Address) {
    if (batchTarget !== target || batchWords.length > maxBatchWords) await flush();
    if (batchTarget === null) {
      // The batch's ledger moves are made now: its block must be the one it will be sent in.
      await beforeSend();
      batchTarget = target;
    }
  }

  /** Fill records are built only when kept (hashing every order is a real cost at benchmark size). */
  const addFillLater = (f: () => Omit<Parameters<Ledger['addFill']>[0], 'txHash'>) => {
    if (recordFills) batchFills.push({ ...f(), txHash: ZERO32 });
  };

  const partition = [1n, 2n] as const;

  return {
    ledger,
    driver,
    beginBlock(timestamp) {
      blockTime = timestamp;
      mined = [];
      L.setBlock({ number: driver.head() + 1, time: timestamp });
    },
    async mine() {
      await flush();
      mined.push(await driver.mine(blockTime));
      const out = mined;
      mined = [];
      return out;
    },
    async deposit(to, amount) {
      await call(ACTORS.bridge, 'usdcE', 'mint', [to, amount], 200_000n);
      L.move20(usdc, ZERO_ADDRESS, to, amount);
      L.addCollateral({ kind: 'deposit', txHash: lastHash, token: usdc, from: ZERO_ADDRESS, to, amount });
    },
    async transfer(token, from, to, amount) {
      await call(from, token, 'transfer', [to, amount], 200_000n);
      L.move20(ADDR[token], from, to, amount);
      L.addCollateral({ kind: 'transfer', txHash: lastHash, token: ADDR[token], from, to, amount });
    },
    async onrampWrap(user, amount) {
      await call(user, 'onramp', 'wrap', [usdc, user, amount], 500_000n);
      L.move20(usdc, user, pusd, amount);
      pusdWrap(ADDR.onramp, user, amount, user);
    },
    async offrampUnwrap(user, amount) {
      await call(user, 'offramp', 'unwrap', [usdc, user, amount], 500_000n);
      L.move20(pusd, user, pusd, amount);
      pusdUnwrap(ADDR.offramp, user, amount, user);
    },
    async split(user, m, amount, via) {
      if (via === 'adapter') {
        await call(
          user,
          m.negRisk ? 'negRiskCtfCollateralAdapter' : 'ctfCollateralAdapter',
          'splitPosition',
          [pusd, ZERO32, m.conditionId, partition, amount],
        );
        adapterSplit(user, m, amount);
      } else if (m.negRisk) {
        await call(user, 'negRiskAdapter', 'splitPosition', [m.conditionId, amount]);
        nraSplit(user, m, amount);
      } else {
        await call(user, 'conditionalTokens', 'splitPosition', [
          usdc,
          ZERO32,
          m.conditionId,
          partition,
          amount,
        ]);
        ctfSplit(user, usdc, m, amount);
      }
      L.addActivity({
        kind: 'split',
        txHash: lastHash,
        user,
        via: via === 'adapter' ? collateralAdapterOf(m) : m.negRisk ? NRA : CTF,
        conditionId: m.conditionId,
        negRiskMarketId: null,
        indexSet: null,
        amount,
        payout: 0n,
        collateral: via === 'adapter' ? pusd : usdc,
      });
    },
    async merge(user, m, amount, via) {
      if (via === 'adapter') {
        await call(
          user,
          m.negRisk ? 'negRiskCtfCollateralAdapter' : 'ctfCollateralAdapter',
          'mergePositions',
          [pusd, ZERO32, m.conditionId, partition, amount],
        );
        adapterMerge(user, m, amount);
      } else if (m.negRisk) {
        await call(user, 'negRiskAdapter', 'mergePositions', [m.conditionId, amount]);
        nraMerge(user, m, amount);
      } else {
        await call(user, 'conditionalTokens', 'mergePositions', [
          usdc,
          ZERO32,
          m.conditionId,
          partition,
          amount,
        ]);
        ctfMerge(user, usdc, m, amount);
      }
      L.addActivity({
        kind: 'merge',
        txHash: lastHash,
        user,
        via: via === 'adapter' ? collateralAdapterOf(m) : m.negRisk ? NRA : CTF,
        conditionId: m.conditionId,
        negRiskMarketId: null,
        indexSet: null,
        amount,
        payout: 0n,
        collateral: via === 'adapter' ? pusd : usdc,
      });
    },
    async redeem(user, m, via) {
      let burned: bigint;
      let payout: bigint;
      if (via === 'adapter') {
        await call(
          user,
          m.negRisk ? 'negRiskCtfCollateralAdapter' : 'ctfCollateralAdapter',
          'redeemPositions',
          [pusd, ZERO32, m.conditionId, partition],
        );
        ({ burned, payout } = adapterRedeem(user, m));
      } else if (m.negRisk) {
        const yes = L.balance1155(m.yes, user);
        const no = L.balance1155(m.no, user);
        await call(user, 'negRiskAdapter', 'redeemPositions', [m.conditionId, [yes, no]]);
        burned = yes + no;
        payout = nraRedeem(user, m, yes, no);
      } else {
        burned = L.balance1155(m.yes, user) + L.balance1155(m.no, user);
        await call(user, 'conditionalTokens', 'redeemPositions', [usdc, ZERO32, m.conditionId, partition]);
        payout = ctfRedeem(user, usdc, m);
      }
      L.addActivity({
        kind: 'redeem',
        txHash: lastHash,
        user,
        via: via === 'adapter' ? collateralAdapterOf(m) : m.negRisk ? NRA : CTF,
        conditionId: m.conditionId,
        negRiskMarketId: null,
        indexSet: null,
        amount: burned,
        payout,
        collateral: via === 'adapter' ? pusd : usdc,
      });
    },
    async convert(user, marketId, questions, indexSet, amount, feeBips) {
      await call(
        user,
        'negRiskAdapter',
        'convertPositions',
        [marketId, indexSet, amount],
        5_000_000n + 600_000n * BigInt(questions.length),
      );
      const inSet = (i: number) => (indexSet & (1n << BigInt(i))) !== 0n;
      const noQs = questions.filter((_, i) => inSet(i));
      const yesQs = questions.filter((_, i) => !inSet(i));
      L.move20(wcol, ZERO_ADDRESS, NRA, BigInt(yesQs.length) * amount);
      for (const q of yesQs) ctfSplit(NRA, wcol, q, amount);
      for (const q of noQs) L.move1155(q.no, user, VAULTS.noTokenBurn, amount);
      for (const q of yesQs) L.move1155(q.no, NRA, VAULTS.noTokenBurn, amount);
      const fee = (amount * BigInt(feeBips)) / 10_000n;
      const out = amount - fee;
      let released = 0n;
      if (noQs.length > 1) {
        const mult = BigInt(noQs.length - 1);
        if (fee > 0n) L.move20(usdc, wcol, VAULTS.negRiskVault, mult * fee);
        L.move20(usdc, wcol, user, mult * out);
        released = mult * out;
      }
      if (yesQs.length > 0) {
        if (fee > 0n) for (const q of yesQs) L.move1155(q.yes, NRA, VAULTS.negRiskVault, fee);
        for (const q of yesQs) L.move1155(q.yes, NRA, user, out);
      }
      L.addActivity({
        kind: 'convert',
        txHash: lastHash,
        user,
        via: NRA,
        conditionId: null,
        negRiskMarketId: marketId,
        indexSet,
        amount,
        payout: released,
        collateral: usdc,
      });
    },
    async transferPosition(from, to, tokenId, amount) {
      await call(from, 'conditionalTokens', 'safeTransferFrom', [from, to, tokenId, amount, '0x'], 200_000n);
      L.move1155(tokenId, from, to, amount);
      L.addTransfer({ txHash: lastHash, tokenId: tokenId.toString(), from, to, amount });
    },
    async matchV1(match, market, viaFeeModule, matchId) {
      const E = market.negRisk ? ADDR.negRiskCtfExchangeV1 : ADDR.ctfExchangeV1;
      const O = viaFeeModule ? (market.negRisk ? ADDR.negRiskFeeModule : ADDR.feeModule) : ACTORS.operator;
      await openBatch(viaFeeModule ? O : E);
      inBatch = true;
      const t = match.taker;
      const tMakerAsset = t.side === 0 ? 0n : t.tokenId;
      const tTakerAsset = t.side === 0 ? t.tokenId : 0n;
      const making = t.fill;
      const minTaking = (making * t.takerAmount) / t.makerAmount;
      const bal = (id: bigint) => (id === 0n ? L.balance20(usdc, E) : L.balance1155(id, E));
      xfer(t.maker, E, tMakerAsset, making, usdc);
      const refunds: { order: V1Order; fee: bigint; asset: bigint }[] = [];
      const kinds: MatchType[] = [];
      for (const m of match.makers) {
        const kind: MatchType = t.side === m.side ? (t.side === 0 ? 'mint' : 'merge') : 'complementary';
        kinds.push(kind);
        const mMaking = m.fill;
        const mTaking = (mMaking * m.takerAmount) / m.makerAmount;
        const fee = v1Fee(
          m.feeRateBps,
          m.side === 0 ? mTaking : mMaking,
          m.makerAmount,
          m.takerAmount,
          m.side,
        );
        const mMakerAsset = m.side === 0 ? 0n : m.tokenId;
        const mTakerAsset = m.side === 0 ? m.tokenId : 0n;
        xfer(m.maker, E, mMakerAsset, mMaking, usdc);
        if (kind === 'mint') {
          if (market.negRisk) nraSplit(E, market, mTaking);
          else ctfSplit(E, usdc, market, mTaking);
        } else if (kind === 'merge') {
          if (market.negRisk) nraMerge(E, market, mMaking);
          else ctfMerge(E, usdc, market, mMaking);
        }
        if (bal(mTakerAsset) < mTaking) throw new Error(`v1 match ${matchId}: too little tokens for a maker`);
        xfer(E, m.maker, mTakerAsset, mTaking - fee, usdc);
        xfer(E, O, mTakerAsset, fee, usdc);
        refunds.push({ order: m, fee, asset: mTakerAsset });
        addFillLater(() =>
          v1FillRecord(
            E,
            market,
            m,
            t.maker,
            'maker',
            mMaking,
            mTaking,
            fee,
            viaFeeModule,
            kind,
            matchId,
            hashV1Order(m),
          ),
        );
      }
      const taking = bal(tTakerAsset);
      if (taking < minTaking) throw new Error(`v1 match ${matchId}: taker receives ${taking} < ${minTaking}`);
      const tFee = v1Fee(t.feeRateBps, t.side === 0 ? taking : making, making, taking, t.side);
      xfer(E, t.maker, tTakerAsset, taking - tFee, usdc);
      xfer(E, O, tTakerAsset, tFee, usdc);
      const left = bal(tMakerAsset);
      if (left > 0n) xfer(E, t.maker, tMakerAsset, left, usdc);
      const aggKind = kinds.every((k) => k === kinds[0]) ? (kinds[0] as MatchType) : 'complementary';
      addFillLater(() =>
        v1FillRecord(
          E,
          market,
          t,
          E,
          'taker',
          making,
          taking,
          tFee,
          viaFeeModule,
          aggKind,
          matchId,
          hashV1Order(t),
        ),
      );
      if (viaFeeModule) {
        // FeeModule refunds, taker first, then makers (the order of the exchange's returned arrays).
        for (const r of [{ order: t, fee: tFee, asset: tTakerAsset }, ...refunds]) {
          if (r.fee > r.order.operatorFee) xfer(O, r.order.maker, r.asset, r.fee - r.order.operatorFee, usdc);
        }
      }
      inBatch = false;
      pushV1Match(match, batchWords);
      batchMatches++;
    },
    async matchV2(match, market, matchId) {
      const E = market.negRisk ? ADDR.negRiskCtfExchangeV2 : ADDR.ctfExchangeV2;
      await openBatch(E);
      inBatch = true;
      const t = match.taker;
      const FR = ACTORS.feeReceiver;
      const tMinTaking = (t.fill * t.takerAmount) / t.makerAmount;
      const tHash = recordFills ? hashV2Order(t) : ZERO32;
      const x = (from: Address, to: Address, id: bigint, amount: bigint) => xfer(from, to, id, amount, pusd);
      const chargeFee = (payer: Address, fee: bigint) => {
        if (fee > 0n) x(payer, FR, 0n, fee);
      };
      const allComplementary = match.makers.every((m) => m.side !== t.side);
      const takingOf = (o: V2Order) => (o.fill * o.takerAmount) / o.makerAmount;
      if (allComplementary) {
        let totalMakerFees = 0n;
        let receives = 0n;
        for (const m of match.makers) {
          const taking = takingOf(m);
          if (t.side === 0) {
            x(m.maker, t.maker, m.tokenId, m.fill);
            totalMakerFees += m.fee;
            x(t.maker, m.maker, 0n, taking - m.fee);
          } else {
            x(t.maker, m.maker, t.tokenId, taking);
            x(m.maker, E, 0n, m.fill);
            chargeFee(m.maker, m.fee);
          }
          receives += m.fill;
          addFillLater(() =>
            v2FillRecord(E, market, m, t.maker, 'maker', m.fill, taking, 'complementary', matchId),
          );
        }
        if (totalMakerFees > 0n) x(t.maker, FR, 0n, totalMakerFees);
        if (receives < tMinTaking) throw new Error(`v2 match ${matchId}: too little tokens received`);
        if (t.side === 0) chargeFee(t.maker, t.fee);
        else {
          if (t.fee > 0n) x(E, FR, 0n, t.fee);
          x(E, t.maker, 0n, receives - t.fee);
        }
        addFillLater(() =>
          v2FillRecord(E, market, t, E, 'taker', t.fill, receives, 'complementary', matchId, tHash),
        );
      } else {
        const tMakerAsset = t.side === 0 ? 0n : t.tokenId;
        const tTakerAsset = t.side === 0 ? t.tokenId : 0n;
        const bal = (id: bigint) => (id === 0n ? L.balance20(pusd, E) : L.balance1155(id, E));
        x(t.maker, E, tMakerAsset, t.fill);
        let totalMint = 0n;
        let totalMerge = 0n;
        const prepared: { m: V2Order; taking: bigint; kind: MatchType }[] = [];
        for (const m of match.makers) {
          const taking = takingOf(m);
          x(m.maker, E, m.side === 0 ? 0n : m.tokenId, m.fill);
          let kind: MatchType = 'complementary';
          if (m.side === t.side) {
            kind = m.side === 0 ? 'mint' : 'merge';
            if (m.side === 0) totalMint += taking;
            else totalMerge += m.fill;
          }
          prepared.push({ m, taking, kind });
        }
        if (totalMint > 0n) adapterSplit(E, market, totalMint);
        if (totalMerge > 0n) adapterMerge(E, market, totalMerge);
        let makerExchangeFees = 0n;
        for (const { m, taking, kind } of prepared) {
          let proceeds = taking;
          if (m.side === 1) {
            proceeds -= m.fee;
            makerExchangeFees += m.fee;
          }
          x(E, m.maker, m.side === 0 ? m.tokenId : 0n, proceeds);
          if (m.side === 0) chargeFee(m.maker, m.fee);
          addFillLater(() => v2FillRecord(E, market, m, t.maker, 'maker', m.fill, taking, kind, matchId));
        }
        if (makerExchangeFees > 0n) x(E, FR, 0n, makerExchangeFees);
        const taking = bal(tTakerAsset);
        if (taking < tMinTaking) throw new Error(`v2 match ${matchId}: too little tokens received`);
        x(E, t.maker, tTakerAsset, t.side === 1 ? taking - t.fee : taking);
        if (t.side === 0) chargeFee(t.maker, t.fee);
        const refund = bal(tMakerAsset);
        if (refund > 0n) x(E, t.maker, tMakerAsset, refund);
        const kinds = prepared.map((p) => p.kind);
        const aggKind = kinds.every((k) => k === kinds[0]) ? (kinds[0] as MatchType) : 'complementary';
        addFillLater(() => v2FillRecord(E, market, t, E, 'taker', t.fill, taking, aggKind, matchId, tHash));
        if (t.side === 1 && t.fee > 0n) x(E, FR, 0n, t.fee);
      }
      inBatch = false;
      pushV2Match(match, batchWords);
      batchMatches++;
    },
    flush,
    call,
    lastTx: () => lastHash,
    blockTime: () => blockTime,
    setPayouts(conditionId, p) {
      payouts.set(conditionId, p);
    },
  };

  // ------------------------------------------------------------------ fill records

  function outcomeOf(market: ChainMarket, tokenId: bigint): 0 | 1 {
    if (tokenId === market.yes) return 0;
    if (tokenId === market.no) return 1;
    throw new Error(`token ${tokenId} is not of market ${market.conditionId}`);
  }

  function v1FillRecord(
    E: Address,
    market: ChainMarket,
    o: V1Order,
    taker: Address,
    role: 'maker' | 'taker',
    making: bigint,
    taking: bigint,
    fee: bigint,
    viaFeeModule: boolean,
    matchType: MatchType,
    matchId: number,
    orderHash: Hex,
  ) {
    const buy = o.side === 0;
    return {
      exchange: E,
      version: 1 as const,
      negRisk: market.negRisk,
      orderHash,
      maker: o.maker,
      taker,
      role,
      side: buy ? ('buy' as const) : ('sell' as const),
      tokenId: o.tokenId.toString(),
      conditionId: market.conditionId,
      outcomeIndex: outcomeOf(market, o.tokenId),
      makerAmountFilled: making,
      takerAmountFilled: taking,
      shares: buy ? taking : making,
      usd: buy ? making : taking,
      fee,
      feeRefund: viaFeeModule && fee > o.operatorFee ? fee - o.operatorFee : 0n,
      builder: null,
      metadata: null,
      matchType,
      matchId,
    };
  }

  function v2FillRecord(
    E: Address,
    market: ChainMarket,
    o: V2Order,
    taker: Address,
    role: 'maker' | 'taker',
    making: bigint,
    taking: bigint,
    matchType: MatchType,
    matchId: number,
    orderHash: Hex = hashV2Order(o),
  ) {
    const buy = o.side === 0;
    return {
      exchange: E,
      version: 2 as const,
      negRisk: market.negRisk,
      orderHash,
      maker: o.maker,
      taker,
      role,
      side: buy ? ('buy' as const) : ('sell' as const),
      tokenId: o.tokenId.toString(),
      conditionId: market.conditionId,
      outcomeIndex: outcomeOf(market, o.tokenId),
      makerAmountFilled: making,
      takerAmountFilled: taking,
      shares: buy ? taking : making,
      usd: buy ? making : taking,
      fee: o.fee,
      feeRefund: 0n,
      builder: o.builder,
      metadata: o.metadata,
      matchType,
      matchId,
    };
  }
}
