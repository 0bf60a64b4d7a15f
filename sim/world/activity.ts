/**
 * The day-by-day script of the simulated alpha chain. From the catalog, the wallets and a seed it decides,
 * step by step (one block per step, at the step's timestamp), what happens on chain:
 * - markets appear when the catalog creates them (UMA initialize, neg-risk prepareMarket/prepareQuestion,
 *   V1 token registration), wallets are funded by bridge deposits (clusters through their funder);
 * - market makers split collateral into inventory and merge it back; traders of each behaviour take
 *   liquidity in matches of 1..n makers (COMPLEMENTARY, MINT and MERGE), on the V1 exchanges (some through
 *   the fee modules, with refunds) before the cutover and on the V2 exchanges (pUSD, fees, builder codes,
 *   metadata) after it, when every wallet wraps its USDC.e into pUSD;
 * - neg-risk holders convert NO positions; clusters move collateral among their members;
 * - some wallets hand part of an outcome-token position to another wallet with a plain CTF
 *   safeTransferFrom: mostly to a member of their own cluster, some to a stranger (an address that never
 *   trades);
 * - markets resolve through the UMA adapter and the optimistic oracle per the catalog's plan (one
 *   disputed, reset and re-proposed; neg-risk ones reported to and resolved by the NegRiskOperator), and
 *   holders redeem afterwards.
 * Everything goes through `flows`, which keeps the ledger in lockstep, and alpha's trades, UMA statuses
 * and resolutions are told to the world state the venue replicas read.
 */
import { type Address, type Hex, stringToHex, toHex } from 'viem';
import { ACTORS, ADDR } from '../chain/addresses.ts';
import type { V1Order, V2Order } from '../chain/orders.ts';
import { type ChainMarket, type Flows, v1Fee } from './activity-flows.ts';
import type { Catalog, CatalogEvent, CatalogMarket } from './catalog.ts';
import { ALPHA_MARKET_CREATOR } from './catalog.ts';
import { negRiskMarketId, umaAncillaryData } from './ids.ts';
import { createRng, type Rng } from './rng.ts';
import type { WorldState } from './state.ts';
import { type Behaviour, type SimWallet, type WalletSet, walletAddress } from './wallets.ts';

const USDC = 1_000_000n;
/** Shares are traded in hundredths: 10,000 base units (so collateral = shares × cents / 100 is exact). */
const SHARE_UNIT = 10_000n;
const UMA_REWARD = 5n * USDC;
const UMA_BOND = 100n * USDC;
export const UMA_LIVENESS_S = 7200;
/** NegRiskOperator.DELAY_PERIOD. */
const NEG_RISK_DELAY_S = 3600;
const YES_OR_NO = stringToHex('YES_OR_NO_QUERY', { size: 32 });
const ZERO32 = `0x${'0'.repeat(64)}` as Hex;

export interface WorldRunnerOptions {
  flows: Flows;
  catalog: Catalog;
  state: WorldState;
  wallets: WalletSet;
  seed: string;
  /** Seconds between blocks of the history (default 3600). */
  stepSeconds?: number;
  /** Mean matches per market and day while it trades (default 8). */
  matchesPerMarketDay?: number;
  /** Makers per match, inclusive range (default [1, 3]). */
  makersPerMatch?: [number, number];
  /**
   * Scale of the non-trading activity (refills, cluster transfers, wraps and cash-outs, conversions,
   * redemptions, inventory merges), 0..1 (default 1). Benchmark worlds turn it down to stay fill-dense.
   */
  housekeeping?: number;
  /** USDC a market maker splits into inventory at a time, inclusive range (default [1000, 3000]). */
  mmInventory?: [number, number];
  /**
   * Behaviours whose wallets only take (never fill another taker's match as a maker; default none): a
   * whale that takes only trades at its own size.
   */
  takersOnly?: readonly Behaviour[];
  /** Taker weights by behaviour replacing the defaults (TAKER_WEIGHT) for the behaviours named. */
  takerWeights?: Partial<Record<Behaviour, number>>;
  /**
   * Degen round trips (default none): the last `wallets` degen wallets each open about `perDay` small
   * positions a day (5–50 shares of a random outcome of an active market) on top of the matches of
   * `matchesPerMarketDay`, and sell a position whole at the first step its price is below their entry —
   * many short holds, mostly closed at a loss. Buy-and-hold wallets fill them; they draw from their own
   * stream, so the other flows keep their draws (not their outcomes: balances differ).
   */
  degenRoundTrips?: { wallets: number; perDay: number };
  /**
   * Mean wallet-to-wallet outcome-token transfers per trading market and day (default 3, scaled by
   * `housekeeping`); live blocks send about this many per `matchesPerMarketDay` matches.
   */
  transfersPerMarketDay?: number;
  /** V1 → V2 cutover, Unix s (default: 40 % into the horizon, on the hour). */
  cutoverTime?: number;
  /** Called after each mined block; `fills` is the running total. */
  onBlock?: (info: {
    number: number;
    timestamp: number;
    matches: number;
    logs: number;
    fills: number;
  }) => void;
}

export interface WorldStats {
  blocks: number;
  matches: number;
  fills: number;
  logs: number;
  transactions: number;
}

export interface WorldRunner {
  readonly cutoverTime: number;
  readonly stats: WorldStats;
  /** Deploy-time actors' funding and the markets that exist before the start (one block at `time`). */
  setup(time: number): Promise<void>;
  /** Steps from the catalog's start to its end (or to `until`, Unix s, or until `maxFills` fills). */
  runHistory(until?: number, maxFills?: number): Promise<void>;
  /** One block at `time` (s) with about `matches` matches over the markets still trading (live mode). */
  liveStep(time: number, matches: number): Promise<void>;
  /** Timestamp of the next history step. */
  nextStepTime(): number;
  /** Time (s) of the last block the runner mined. */
  lastBlockTime(): number;
  /** The runner's state before block `number` was built (kept for the last blocks), for rollbacks. */
  snapshotBefore(number: number): WorldSnapshot | undefined;
  /** Restores a snapshot (after the chain and the ledger were rolled back to just before its block). */
  restore(snapshot: WorldSnapshot): void;
  /** Mines a block with no world activity at `time` (s). */
  emptyBlock(time: number): Promise<void>;
}

/** Mutable runner state before a block: enough to rebuild that block differently after a rollback. */
export interface WorldSnapshot {
  block: number;
  time: number;
  nextT: number;
  lastBlockTime: number;
  cutDone: boolean;
  preparedEvents: string[];
  /** Open degen round trips (WorldRunnerOptions.degenRoundTrips): wallet, market index, token, entry cents. */
  degenTrips: DegenTrip[];
  markets: Pick<
    LiveMarket,
    'created' | 'p' | 'prevP' | 'requestTs' | 'phase' | 'proposedAt' | 'reportedAt' | 'holders'
  >[];
}

const SNAPSHOTS_KEPT = 128;

interface DegenTrip {
  wallet: number;
  market: number;
  token: bigint;
  cents: number;
}

/** A match whose taker, side, token and size are given (degen round trips), drawing from `rng`. */
interface ForcedTrade {
  taker: SimWallet;
  sell: boolean;
  token: bigint;
  units: number;
  rng: Rng;
  /** The wallets that may fill it. */
  makers: SimWallet[];
}

type Phase = 'pending' | 'proposed' | 'disputed' | 'reproposed' | 'reported' | 'resolved';

interface LiveMarket {
  cm: CatalogMarket;
  event: CatalogEvent;
  chain: ChainMarket;
  createAt: number;
  endAt: number;
  created: boolean;
  p: number;
  prevP: number;
  activity: number;
  v1FeeRateBps: number;
  mms: SimWallet[];
  umaKey: 'umaCtfAdapter' | 'negRiskUmaCtfAdapter';
  ancillary: Hex;
  umaQuestionId: Hex;
  requestTs: number;
  phase: Phase;
  firstProposeAt: number;
  proposedAt: number;
  reportedAt: number;
  holders: SimWallet[] | null;
}

interface Era {
  v2: boolean;
  token: 'usdcE' | 'pUsd';
  tokenAddr: Address;
}

function poisson(rng: Rng, lambda: number): number {
  if (lambda <= 0) return 0;
  if (lambda > 30) return Math.max(0, Math.round(rng.normal(lambda, Math.sqrt(lambda))));
  const l = Math.exp(-lambda);
  let k = 0;
  let p = 1;
  do {
    k++;
    p *= rng.next();
  } while (p > l);
  return k - 1;
}

const TAKER_WEIGHT: Record<Behaviour, number> = {
  market_maker: 0.3,
  whale: 0.6,
  buy_and_hold: 1,
  active_trader: 3,
  degen: 2,
  contrarian: 1.5,
  value_hunter: 1.5,
};

const SELL_CHANCE: Record<Behaviour, number> = {
  market_maker: 0.5,
  whale: 0.35,
  buy_and_hold: 0.05,
  active_trader: 0.45,
  degen: 0.3,
  contrarian: 0.3,
  value_hunter: 0.25,
};

/** Desired trade size in hundredths of a share. */
function sizeUnits(rng: Rng, b: Behaviour): number {
  switch (b) {
    case 'whale':
      return rng.int(20_000, 500_000);
    case 'degen':
      return rng.int(2_000, 80_000);
    case 'market_maker':
      return rng.int(1_000, 20_000);
    default:
      return rng.int(500, 30_000);
  }
}

export function createWorldRunner(options: WorldRunnerOptions): WorldRunner {
  const { flows, catalog, state, wallets } = options;
  const L = flows.ledger;
  const rng = createRng(`activity:${options.seed}`);
  const stepS = options.stepSeconds ?? 3600;
  const perDay = options.matchesPerMarketDay ?? 8;
  const [minMakers, maxMakers] = options.makersPerMatch ?? [1, 3];
  const [invLo, invHi] = options.mmInventory ?? [1_000, 3_000];
  const inventory = () => BigInt(rng.int(invLo, invHi)) * USDC;
  const hk = options.housekeeping ?? 1;
  const takersOnly = new Set(options.takersOnly ?? []);
  const roundTrips = options.degenRoundTrips;
  if (
    roundTrips &&
    !(Number.isInteger(roundTrips.wallets) && roundTrips.wallets >= 0 && roundTrips.perDay >= 0)
  )
    throw new Error(
      `degenRoundTrips needs a whole number of wallets and perDay ≥ 0, got ${JSON.stringify(roundTrips)}`,
    );
  /** Degen round trips draw from their own stream. */
  const drng = rng.fork('degen-round-trips');
  let degenTrips: DegenTrip[] = [];
  const transfersPerDay = options.transfersPerMarketDay ?? 3;
  /** Transfers draw from their own stream, so the other flows keep their draws. */
  const trng = rng.fork('transfers');
  const start = Math.floor(catalog.startTime / 1000);
  const end = Math.floor(catalog.endTime / 1000);
  const cutoverTime = options.cutoverTime ?? start + Math.floor(((end - start) * 0.4) / 3600) * 3600;
  const stats: WorldStats = { blocks: 0, matches: 0, fills: 0, logs: 0, transactions: 0 };
  let nextT = start;
  let lastBlockTime = 0;
  let matchSeq = 0;
  let cutDone = false;

  const events = new Map(catalog.venues.alpha.events.map((e) => [e.key, e]));
  const mms = wallets.byBehaviour.market_maker;
  const traders = wallets.wallets;
  const takerWeights = traders.map((w) => options.takerWeights?.[w.behaviour] ?? TAKER_WEIGHT[w.behaviour]);

  const markets: LiveMarket[] = catalog.venues.alpha.markets.map((cm) => {
    const a = cm.alpha;
    if (!a) throw new Error(`alpha market ${cm.key} has no chain info`);
    const event = events.get(cm.eventKey);
    if (!event) throw new Error(`alpha market ${cm.key} has no event`);
    const mr = rng.fork(`market:${cm.key}`);
    const umaKey = a.negRisk ? ('negRiskUmaCtfAdapter' as const) : ('umaCtfAdapter' as const);
    const lm: LiveMarket = {
      cm,
      event,
      chain: {
        conditionId: a.conditionId,
        yes: BigInt(cm.tokenIds[0]),
        no: BigInt(cm.tokenIds[1]),
        negRisk: a.negRisk,
      },
      createAt: Math.floor(cm.createdAt / 1000),
      endAt: Math.floor(cm.endTime / 1000),
      created: false,
      p: cm.initialPrice,
      prevP: cm.initialPrice,
      activity: Math.exp(mr.normal(0, 0.6)),
      v1FeeRateBps: mr.pick([0, 0, 0, 100, 200]),
      mms: mr.shuffle(mms).slice(0, Math.min(mms.length, mr.int(2, 3))),
      umaKey,
      ancillary: umaAncillaryData(a.ancillaryData, a.umaInitializer),
      umaQuestionId: a.umaQuestionId,
      requestTs: 0,
      phase: 'pending',
      firstProposeAt: Number.POSITIVE_INFINITY,
      proposedAt: 0,
      reportedAt: 0,
      holders: null,
    };
    if (cm.resolution) {
      const finalAt = Math.floor(cm.resolution.time / 1000);
      const lead =
        UMA_LIVENESS_S + (a.negRisk ? NEG_RISK_DELAY_S : 0) + (cm.resolution.disputed ? 2 * stepS : 0);
      lm.firstProposeAt = finalAt - lead - 60;
    }
    return lm;
  });
  const byEvent = new Map<string, LiveMarket[]>();
  for (const m of markets) {
    const list = byEvent.get(m.event.key) ?? [];
    list.push(m);
    byEvent.set(m.event.key, list);
  }
  const preparedEvents = new Set<string>();

  const era = (t: number): Era =>
    t >= cutoverTime && cutDone
      ? { v2: true, token: 'pUsd', tokenAddr: ADDR.pUsd }
      : { v2: false, token: 'usdcE', tokenAddr: ADDR.usdcE };

  const roundUnits = (x: bigint) => (x / SHARE_UNIT) * SHARE_UNIT;

  // ---------------------------------------------------------------- funding

  async function fund(w: SimWallet, amount: bigint, e: Era) {
    if (w.funder) {
      await flows.deposit(w.funder, amount);
      await flows.transfer('usdcE', w.funder, w.address, amount);
    } else {
      await flows.deposit(w.address, amount);
    }
    if (e.v2) await flows.onrampWrap(w.address, amount);
  }

  async function setup(time: number) {
    flows.beginBlock(time);
    const standard = markets.filter((m) => !m.chain.negRisk).length;
    const negRisk = markets.length - standard;
    await flows.deposit(ALPHA_MARKET_CREATOR, UMA_REWARD * BigInt(standard + 10));
    await flows.deposit(ADDR.negRiskOperator, UMA_REWARD * BigInt(negRisk + 10));
    await flows.deposit(ACTORS.proposer, UMA_BOND * BigInt(markets.length + 10));
    await flows.deposit(ACTORS.disputer, UMA_BOND * 20n);
    // Clusters: the funder receives the group's bankroll and hands it out.
    for (const c of wallets.clusters) {
      const members = c.members.map((a) => wallets.byAddress.get(a.toLowerCase()) as SimWallet);
      const total = members.reduce((s, m) => s + m.bankroll, 0n);
      await flows.deposit(c.funder, total);
      for (const m of members) await flows.transfer('usdcE', c.funder, m.address, m.bankroll);
    }
    for (const w of traders) if (!w.cluster) await flows.deposit(w.address, w.bankroll);
    lastBlockTime = count(await flows.mine(), 0);
  }

  /** Counts mined blocks (a step's matches go to its last block); returns the last block's time. */
  function count(
    blocks: { number: number; timestamp: number; logCount: number; txCount: number }[],
    matches: number,
  ): number {
    blocks.forEach((info, i) => {
      const m = i === blocks.length - 1 ? matches : 0;
      stats.blocks++;
      stats.logs += info.logCount;
      stats.transactions += info.txCount;
      stats.matches += m;
      options.onBlock?.({
        number: info.number,
        timestamp: info.timestamp,
        matches: m,
        logs: info.logCount,
        fills: stats.fills,
      });
    });
    return (blocks[blocks.length - 1] as { timestamp: number }).timestamp;
  }

  // ---------------------------------------------------------------- market lifecycle

  async function createMarket(m: LiveMarket, e: Era) {
    const a = m.cm.alpha as NonNullable<CatalogMarket['alpha']>;
    if (a.negRisk) {
      const ev = m.event;
      if (!preparedEvents.has(ev.key)) {
        // The catalog derives the market id from this metadata (it does not export the bytes themselves).
        const metadata = toHex(`pmdata-sim:${ev.topicId}:${ev.slug}`);
        const expected = negRiskMarketId(ADDR.negRiskOperator, ev.negRiskFeeBips ?? 0, metadata);
        if (expected !== ev.negRiskMarketId) {
          throw new Error(
            `neg-risk event ${ev.key}: metadata does not give the catalog's market id ${ev.negRiskMarketId}`,
          );
        }
        await flows.call(ACTORS.admin, 'negRiskOperator', 'prepareMarket', [
          BigInt(ev.negRiskFeeBips ?? 0),
          metadata,
        ]);
        preparedEvents.add(ev.key);
        // All questions of the event in index order, so question ids match the catalog's.
        for (const q of byEvent.get(ev.key) ?? []) {
          const qa = q.cm.alpha as NonNullable<CatalogMarket['alpha']>;
          await flows.call(ACTORS.admin, 'negRiskOperator', 'initializeQuestion', [
            ADDR.negRiskUmaCtfAdapter,
            qa.ancillaryData,
            ADDR.usdcE,
            UMA_REWARD,
            UMA_BOND,
            BigInt(UMA_LIVENESS_S),
          ]);
          // The request's timestamp is its block's: read it before later calls may start a new block.
          q.requestTs = flows.blockTime();
          L.move20(ADDR.usdcE, ADDR.negRiskOperator, ADDR.negRiskUmaCtfAdapter, UMA_REWARD);
          L.move20(ADDR.usdcE, ADDR.negRiskUmaCtfAdapter, ADDR.optimisticOracleV2, UMA_REWARD);
          L.addOracle({
            kind: 'initialize',
            txHash: flows.lastTx(),
            conditionId: qa.conditionId,
            umaQuestionId: qa.umaQuestionId,
            price: null,
          });
          await flows.call(ACTORS.admin, 'negRiskOperator', 'prepareQuestion', [
            ev.negRiskMarketId,
            qa.ancillaryData,
            qa.negRiskRequestId,
          ]);
          await flows.call(ACTORS.admin, 'negRiskCtfExchangeV1', 'registerToken', [
            q.chain.yes,
            q.chain.no,
            q.chain.conditionId,
          ]);
          q.created = true;
        }
      }
    } else {
      await flows.call(ALPHA_MARKET_CREATOR, 'umaCtfAdapter', 'initialize', [
        a.ancillaryData,
        ADDR.usdcE,
        UMA_REWARD,
        UMA_BOND,
        BigInt(UMA_LIVENESS_S),
      ]);
      m.requestTs = flows.blockTime();
      L.move20(ADDR.usdcE, ALPHA_MARKET_CREATOR, ADDR.umaCtfAdapter, UMA_REWARD);
      L.move20(ADDR.usdcE, ADDR.umaCtfAdapter, ADDR.optimisticOracleV2, UMA_REWARD);
      L.addOracle({
        kind: 'initialize',
        txHash: flows.lastTx(),
        conditionId: a.conditionId,
        umaQuestionId: a.umaQuestionId,
        price: null,
      });
      await flows.call(ACTORS.admin, 'ctfExchangeV1', 'registerToken', [
        m.chain.yes,
        m.chain.no,
        m.chain.conditionId,
      ]);
      m.created = true;
    }
    // Market makers take inventory.
    for (const q of a.negRisk ? (byEvent.get(m.event.key) ?? []) : [m]) {
      for (const mm of q.mms) await mmSplit(mm, q, e, inventory());
    }
  }

  async function mmSplit(mm: SimWallet, m: LiveMarket, e: Era, amount: bigint) {
    if (L.balance20(e.tokenAddr, mm.address) < amount) await fund(mm, amount * 3n, e);
    await flows.split(mm.address, m.chain, amount, e.v2 ? 'adapter' : 'direct');
  }

  const tradable = (m: LiveMarket, t: number, live: boolean) =>
    m.created && m.phase === 'pending' && t < m.firstProposeAt && (live || t < m.endAt);

  async function propose(m: LiveMarket, price: bigint, t: number) {
    const adapter = ADDR[m.umaKey];
    await flows.call(ACTORS.proposer, 'optimisticOracleV2', 'proposePrice', [
      adapter,
      YES_OR_NO,
      BigInt(m.requestTs),
      m.ancillary,
      price,
    ]);
    L.move20(ADDR.usdcE, ACTORS.proposer, ADDR.optimisticOracleV2, UMA_BOND);
    L.addOracle({
      kind: 'propose',
      txHash: flows.lastTx(),
      conditionId: m.chain.conditionId,
      umaQuestionId: m.umaQuestionId,
      price,
    });
    state.setUmaStatus(m.chain.conditionId, 'proposed', t * 1000);
    m.proposedAt = flows.blockTime();
  }

  async function advanceResolution(m: LiveMarket, t: number) {
    const plan = m.cm.resolution;
    if (!plan || !m.created || m.phase === 'resolved' || t < m.firstProposeAt) return;
    const right = plan.winningIndex === 0 ? 10n ** 18n : 0n;
    const wrong = plan.winningIndex === 0 ? 0n : 10n ** 18n;
    const adapter = ADDR[m.umaKey];
    switch (m.phase) {
      case 'pending':
        await propose(m, plan.disputed ? wrong : right, t);
        m.phase = plan.disputed ? 'disputed' : 'reproposed';
        return;
      case 'disputed': {
        await flows.call(ACTORS.disputer, 'optimisticOracleV2', 'disputePrice', [
          adapter,
          YES_OR_NO,
          BigInt(m.requestTs),
          m.ancillary,
        ]);
        // Dispute bond in; the reward goes back to the adapter, which pays it into the new request.
        L.move20(ADDR.usdcE, ACTORS.disputer, ADDR.optimisticOracleV2, UMA_BOND);
        L.move20(ADDR.usdcE, ADDR.optimisticOracleV2, adapter, UMA_REWARD);
        L.move20(ADDR.usdcE, adapter, ADDR.optimisticOracleV2, UMA_REWARD);
        const tx = flows.lastTx();
        L.addOracle({
          kind: 'dispute',
          txHash: tx,
          conditionId: m.chain.conditionId,
          umaQuestionId: m.umaQuestionId,
          price: null,
        });
        L.addOracle({
          kind: 'reset',
          txHash: tx,
          conditionId: m.chain.conditionId,
          umaQuestionId: m.umaQuestionId,
          price: null,
        });
        state.setUmaStatus(m.chain.conditionId, 'disputed', t * 1000);
        m.requestTs = flows.blockTime();
        m.phase = 'proposed';
        return;
      }
      case 'proposed':
        await propose(m, right, t);
        m.phase = 'reproposed';
        return;
      case 'reproposed': {
        if (t < m.proposedAt + UMA_LIVENESS_S) return;
        await flows.call(ACTORS.proposer, m.umaKey, 'resolve', [m.umaQuestionId]);
        L.move20(ADDR.usdcE, ADDR.optimisticOracleV2, ACTORS.proposer, UMA_BOND + UMA_REWARD);
        L.addOracle({
          kind: 'settle',
          txHash: flows.lastTx(),
          conditionId: m.chain.conditionId,
          umaQuestionId: m.umaQuestionId,
          price: right,
        });
        if (m.chain.negRisk) {
          L.addOracle({
            kind: 'report',
            txHash: flows.lastTx(),
            conditionId: m.chain.conditionId,
            umaQuestionId: m.umaQuestionId,
            price: right,
          });
          m.reportedAt = flows.blockTime();
          m.phase = 'reported';
        } else {
          finishResolution(m, t, adapter);
        }
        return;
      }
      case 'reported': {
        if (t < m.reportedAt + NEG_RISK_DELAY_S) return;
        const a = m.cm.alpha as NonNullable<CatalogMarket['alpha']>;
        await flows.call(ACTORS.admin, 'negRiskOperator', 'resolveQuestion', [a.questionId]);
        finishResolution(m, t, ADDR.negRiskAdapter);
        return;
      }
    }
  }

  function finishResolution(m: LiveMarket, t: number, oracle: Address) {
    const plan = m.cm.resolution as NonNullable<CatalogMarket['resolution']>;
    const payouts: [bigint, bigint] = plan.winningIndex === 0 ? [1n, 0n] : [0n, 1n];
    flows.setPayouts(m.chain.conditionId, payouts);
    const a = m.cm.alpha as NonNullable<CatalogMarket['alpha']>;
    L.addResolution({
      txHash: flows.lastTx(),
      conditionId: m.chain.conditionId,
      questionId: a.questionId,
      oracle,
      payouts: [Number(payouts[0]), Number(payouts[1])],
      winningIndex: plan.winningIndex,
      disputed: plan.disputed,
    });
    L.addOracle({
      kind: 'resolve',
      txHash: flows.lastTx(),
      conditionId: m.chain.conditionId,
      umaQuestionId: m.umaQuestionId,
      price: null,
    });
    state.recordResolution({
      conditionId: m.chain.conditionId,
      winningIndex: plan.winningIndex,
      time: t * 1000,
    });
    m.phase = 'resolved';
    m.holders = traders.filter(
      (w) => L.balance1155(m.chain.yes, w.address) > 0n || L.balance1155(m.chain.no, w.address) > 0n,
    );
  }

  async function redeemSome(m: LiveMarket, e: Era) {
    if (!m.holders || m.holders.length === 0) return;
    const keep: SimWallet[] = [];
    for (const w of m.holders) {
      if (rng.chance((w.behaviour === 'buy_and_hold' ? 0.9 : 0.4) * hk)) {
        await flows.redeem(w.address, m.chain, e.v2 && rng.chance(0.7) ? 'adapter' : 'direct');
      } else keep.push(w);
    }
    m.holders = keep;
  }

  // ---------------------------------------------------------------- wallet housekeeping

  async function housekeeping(t: number, e: Era, active: LiveMarket[]) {
    // Refills: market makers whenever low; others now and then.
    for (const w of traders) {
      const bal = L.balance20(e.tokenAddr, w.address);
      if (bal < w.bankroll / 10n && (w.behaviour === 'market_maker' || rng.chance(0.04))) {
        await fund(w, w.bankroll / 2n, e);
      }
    }
    // Clusters that circulate collateral.
    for (const c of wallets.clusters) {
      if (!c.circulates || !rng.chance(0.25 * hk)) continue;
      const [a, b] = rng.shuffle(c.members);
      if (!a || !b) continue;
      const amount = roundUnits((L.balance20(e.tokenAddr, a) * BigInt(rng.int(5, 20))) / 100n);
      if (amount > 0n) await flows.transfer(e.token, a, b, amount);
    }
    if (e.v2) {
      // Stray USDC.e (direct redemptions, conversions) is wrapped; a few cash out through the offramp.
      for (let i = 0; i < Math.round(4 * hk); i++) {
        const w = rng.pick(traders);
        const usdc = L.balance20(ADDR.usdcE, w.address);
        if (usdc >= 10n * USDC) await flows.onrampWrap(w.address, usdc);
      }
      if (rng.chance(0.5 * hk)) {
        const w = rng.pick(traders);
        const amount = roundUnits(L.balance20(ADDR.pUsd, w.address) / 20n);
        if (amount >= USDC) await flows.offrampUnwrap(w.address, amount);
      }
    }
    // Market makers keep inventory: split when short, merge some surplus back.
    for (const m of active) {
      for (const mm of m.mms) {
        const yes = L.balance1155(m.chain.yes, mm.address);
        const no = L.balance1155(m.chain.no, mm.address);
        const low = yes < no ? yes : no; // bigint: Math.min does not apply
        if (low < BigInt(invLo / 4) * USDC && rng.chance(0.6)) {
          await mmSplit(mm, m, e, inventory());
        } else if (low > BigInt(invLo * 2) * USDC && rng.chance(0.1 * hk)) {
          await flows.merge(mm.address, m.chain, roundUnits(low / 3n), e.v2 ? 'adapter' : 'direct');
        }
      }
    }
    // Conversions of NO positions in neg-risk events with no question resolved yet.
    if (rng.chance(0.5 * hk)) {
      const nrEvents = [...byEvent.values()].filter(
        (qs) => qs.length > 2 && qs[0]?.chain.negRisk && qs.every((q) => q.created && q.phase === 'pending'),
      );
      if (nrEvents.length > 0) {
        const qs = rng.pick(nrEvents);
        for (const w of rng.shuffle(traders).slice(0, 12)) {
          const held = qs.map((q) => L.balance1155(q.chain.no, w.address));
          const idx = held.map((h, i) => (h >= 2n * USDC ? i : -1)).filter((i) => i >= 0);
          if (idx.length < 2) continue;
          let indexSet = 0n;
          let min = held[idx[0] as number] as bigint;
          for (const i of idx) {
            indexSet |= 1n << BigInt(i);
            const h = held[i] as bigint;
            if (h < min) min = h;
          }
          const amount = roundUnits(min / 2n);
          if (amount === 0n) continue;
          const ev = (qs[0] as LiveMarket).event;
          await flows.convert(
            w.address,
            ev.negRiskMarketId as Hex,
            qs.map((q) => q.chain),
            indexSet,
            amount,
            ev.negRiskFeeBips ?? 0,
          );
          break;
        }
      }
    }
    void t;
  }

  // ---------------------------------------------------------------- position transfers

  const clusterOf = new Map(wallets.clusters.map((c) => [c.id, c]));
  /** Strangers: addresses derived from a label that never trade, a small pool so some receive twice. */
  const strangerCount = Math.max(4, Math.round(traders.length / 10));
  const stranger = () => walletAddress(options.seed, `stranger-${trng.int(0, strangerCount - 1)}`);

  /**
   * Wallet-to-wallet transfers of outcome tokens of the markets still trading: about
   * `transfersPerMarketDay` per market and day in the history, in proportion to the matches live. A
   * sender gives 10–60 % of one position (whole hundredths of a share); a clustered sender mostly gives
   * to a member of its cluster, anyone else to a stranger.
   */
  async function transferSome(active: LiveMarket[], budget: number | null) {
    if (active.length === 0 || transfersPerDay <= 0 || hk <= 0) return;
    const n =
      budget === null
        ? poisson(trng, (transfersPerDay * hk * active.length * stepS) / 86_400)
        : poisson(trng, (budget * transfersPerDay * hk) / perDay);
    for (let i = 0; i < n; i++) {
      const m = trng.pick(active);
      const holders: { w: SimWallet; token: bigint; held: bigint }[] = [];
      for (const w of traders) {
        if (w.behaviour === 'market_maker') continue;
        for (const token of [m.chain.yes, m.chain.no]) {
          const held = L.balance1155(token, w.address);
          if (held >= 2n * SHARE_UNIT) holders.push({ w, token, held });
        }
      }
      if (holders.length === 0) continue;
      const clustered = holders.filter((h) => h.w.cluster !== null);
      const toMate = clustered.length > 0 && trng.chance(0.75);
      const h = trng.pick(toMate ? clustered : holders);
      let to: Address;
      if (toMate) {
        const mates = (clusterOf.get(h.w.cluster as string)?.members ?? []).filter((a) => a !== h.w.address);
        if (mates.length === 0) continue;
        to = trng.pick(mates);
      } else to = stranger();
      const amount = roundUnits((h.held * BigInt(trng.int(10, 60))) / 100n);
      if (amount === 0n) continue;
      await flows.transferPosition(h.w.address, to, h.token, amount);
    }
  }

  // ---------------------------------------------------------------- trading

  function pickTaker(): SimWallet {
    return traders[rng.weightedIndex(takerWeights)] as SimWallet;
  }

  /** Builds and sends one match on market `m`; returns the number of fills or 0 when none was possible. */
  async function trade(
    m: LiveMarket,
    t: number,
    e: Era,
    viaFeeModule: boolean,
    forced?: ForcedTrade,
  ): Promise<number> {
    const r = forced?.rng ?? rng;
    const taker = forced?.taker ?? pickTaker();
    const b = taker.behaviour;
    const yes = m.chain.yes;
    const no = m.chain.no;
    // Which token and which side.
    let sell = forced ? forced.sell : r.chance(SELL_CHANCE[b]);
    let token: bigint = forced?.token ?? yes;
    if (forced) {
      // taker, side and token given
    } else if (sell) {
      const hy = L.balance1155(yes, taker.address);
      const hn = L.balance1155(no, taker.address);
      if (hy < USDC && hn < USDC) sell = false;
      token = hy >= hn ? yes : no;
    } else token = yes;
    if (!sell && !forced) {
      switch (b) {
        case 'buy_and_hold':
          token = m.p >= 0.5 ? yes : no;
          break;
        case 'contrarian':
          token = m.p < m.prevP ? yes : no;
          break;
        case 'value_hunter':
          token = m.p < 0.5 ? yes : no;
          break;
        case 'degen':
          token = r.chance(0.5) ? (m.p < 0.5 ? yes : no) : r.chance(0.5) ? yes : no;
          break;
        default:
          token = r.chance(m.p) ? yes : no;
      }
    }
    const complement = token === yes ? no : yes;
    const pT = token === yes ? m.p : 1 - m.p;
    const cents = Math.min(99, Math.max(1, Math.round(pT * 100)));
    let wantUnits = sizeUnits(rng, b);
    if (sell) {
      const held = L.balance1155(token, taker.address) / SHARE_UNIT;
      wantUnits = Math.min(wantUnits, Number(held));
      if (wantUnits < 1) return 0;
    }

    // Makers.
    const nMakers = r.int(minMakers, maxMakers);
    const pool = forced ? forced.makers : r.chance(0.8) ? m.mms : [];
    const extra = [];
    if (!forced) for (let i = 0; i < nMakers + 4; i++) extra.push(r.pick(traders));
    const candidates = [...r.shuffle(pool), ...extra].filter(
      (w, i, arr) =>
        w.address !== taker.address &&
        !takersOnly.has(w.behaviour) &&
        arr.findIndex((x) => x.address === w.address) === i,
    );
    const makers: { w: SimWallet; side: 0 | 1; tokenId: bigint; shares: bigint; c: number }[] = [];
    let remaining = wantUnits;
    const v2 = e.v2;
    const takerCollateral = L.balance20(e.tokenAddr, taker.address);
    let takerCost = 0n;
    const fee2 = (shares: bigint, c: number) => (shares * BigInt(c) * BigInt(100 - c) * 4n) / 1_000_000n;
    for (const w of candidates) {
      if (makers.length >= nMakers || remaining < 1) break;
      const units =
        makers.length === nMakers - 1
          ? remaining
          : Math.max(1, Math.floor(remaining / (nMakers - makers.length)));
      const c = Math.min(99, Math.max(1, cents + (r.chance(0.2) ? r.int(-1, 1) : 0)));
      const shares = BigInt(units) * SHARE_UNIT;
      const coll = (shares * BigInt(c)) / 100n;
      const complementColl = shares - coll;
      // Taker's cost for this maker (BUY): coll (+ v2 fee on it).
      if (!sell && takerCost + coll + (v2 ? fee2(shares, c) : 0n) > takerCollateral) break;
      const mColl = L.balance20(e.tokenAddr, w.address);
      let side: 0 | 1 | null = null;
      let tokenId = token;
      if (!sell) {
        const canComplementary = L.balance1155(token, w.address) >= shares;
        const canMint = mColl >= complementColl;
        if (canComplementary && (r.chance(0.65) || !canMint)) side = 1;
        else if (canMint) {
          side = 0;
          tokenId = complement;
        }
      } else {
        const canComplementary = mColl >= coll;
        const canMerge = L.balance1155(complement, w.address) >= shares;
        if (canComplementary && (r.chance(0.65) || !canMerge)) side = 0;
        else if (canMerge) {
          side = 1;
          tokenId = complement;
        }
      }
      if (side === null) continue;
      makers.push({ w, side, tokenId, shares, c: tokenId === token ? c : 100 - c });
      if (!sell) takerCost += coll + (v2 ? fee2(shares, c) : 0n);
      remaining -= units;
    }
    if (makers.length === 0) return 0;

    // Amounts. Every maker's leg moves shares × c / 100 of collateral for the taker (c = taker-token cents).
    const matchId = matchSeq++;
    let takerMaking = 0n;
    let takerTaking = 0n;
    let takerFee2 = 0n;
    const makerOrders: { making: bigint; taking: bigint; side: 0 | 1; tokenId: bigint; w: SimWallet }[] = [];
    for (const mk of makers) {
      const cTaker = mk.tokenId === token ? mk.c : 100 - mk.c;
      const coll = (mk.shares * BigInt(cTaker)) / 100n;
      const mine = mk.tokenId !== token;
      let making: bigint;
      let taking: bigint;
      if (!sell) {
        // maker SELL token (complementary) or BUY complement (mint)
        making = mine ? mk.shares - coll : mk.shares;
        taking = mine ? mk.shares : coll;
        takerMaking += coll;
        takerTaking += mk.shares;
      } else {
        // maker BUY token (complementary) or SELL complement (merge)
        making = mine ? mk.shares : coll;
        taking = mine ? mk.shares - coll : mk.shares;
        takerMaking += mk.shares;
        takerTaking += coll;
      }
      if (v2) takerFee2 += fee2(mk.shares, cTaker);
      makerOrders.push({ making, taking, side: mk.side, tokenId: mk.tokenId, w: mk.w });
    }
    const salt = (i: number) => (BigInt(matchId) << 40n) | (BigInt(i) << 32n) | BigInt(r.int(0, 0x7fffffff));
    const k = () => BigInt(r.int(1, 3));
    const takerSide: 0 | 1 = sell ? 1 : 0;
    const sharesTotal = sell ? takerMaking : takerTaking;
    const usdTotal = sell ? takerTaking : takerMaking;

    if (!v2) {
      const tFee = v1Fee(
        m.v1FeeRateBps,
        sell ? takerMaking : takerTaking,
        takerMaking,
        takerTaking,
        takerSide,
      );
      const takerOrder: V1Order = {
        salt: salt(0),
        maker: taker.address,
        tokenId: token,
        makerAmount: takerMaking,
        takerAmount: takerTaking,
        side: takerSide,
        feeRateBps: m.v1FeeRateBps,
        fill: takerMaking,
        operatorFee: tFee / 2n,
      };
      const orders: V1Order[] = makerOrders.map((o, i) => {
        const mult = k();
        return {
          salt: salt(i + 1),
          maker: o.w.address,
          tokenId: o.tokenId,
          makerAmount: o.making * mult,
          takerAmount: o.taking * mult,
          side: o.side,
          feeRateBps: 0,
          fill: o.making,
          operatorFee: 0n,
        };
      });
      await flows.matchV1({ taker: takerOrder, makers: orders }, m.chain, viaFeeModule, matchId);
    } else {
      const meta = () => (r.chance(0.3) ? r.hex32() : ZERO32);
      const takerOrder: V2Order = {
        salt: salt(0),
        maker: taker.address,
        tokenId: token,
        makerAmount: takerMaking,
        takerAmount: takerTaking,
        side: takerSide,
        fill: takerMaking,
        fee: takerFee2,
        builder: taker.builder ?? ZERO32,
        metadata: meta(),
      };
      const orders: V2Order[] = makerOrders.map((o, i) => {
        const mult = k();
        return {
          salt: salt(i + 1),
          maker: o.w.address,
          tokenId: o.tokenId,
          makerAmount: o.making * mult,
          takerAmount: o.taking * mult,
          side: o.side,
          fill: o.making,
          fee: 0n,
          builder: o.w.builder ?? ZERO32,
          metadata: meta(),
        };
      });
      await flows.matchV2(
        { conditionId: m.chain.conditionId, taker: takerOrder, makers: orders },
        m.chain,
        matchId,
      );
    }
    state.recordTrade({
      venue: 'alpha',
      marketKey: m.chain.conditionId,
      tokenId: token.toString(),
      side: sell ? 'sell' : 'buy',
      price: Number((usdTotal * 1_000_000n) / sharesTotal) / 1_000_000,
      shares: Number(sharesTotal) / 1e6,
      time: t * 1000,
      id: `${m.chain.conditionId.slice(0, 10)}-${matchId}`,
    });
    stats.fills += makers.length + 1;
    return makers.length + 1;
  }

  /** Cents of `token` on market `m` now. */
  const centsOf = (m: LiveMarket, token: bigint) =>
    Math.min(99, Math.max(1, Math.round((token === m.chain.yes ? m.p : 1 - m.p) * 100)));

  /** One step of degen round trips (WorldRunnerOptions.degenRoundTrips); returns the matches sent. */
  async function degenStep(active: LiveMarket[], t: number, e: Era): Promise<number> {
    if (!roundTrips || roundTrips.wallets === 0) return 0;
    const flippers = wallets.byBehaviour.degen.slice(-roundTrips.wallets);
    // Their counterparties are the buy-and-hold wallets: market makers' inventories and fills stay as
    // they are (their buy/sell mix decides MARKET_MAKER against ACTIVE_TRADER).
    const makers = wallets.byBehaviour.buy_and_hold;
    let matches = 0;
    const kept: DegenTrip[] = [];
    // Sell whole every open trip whose price is below its entry; drop trips whose market stopped trading.
    for (const trip of degenTrips) {
      const m = markets[trip.market] as LiveMarket;
      const w = flippers[trip.wallet] as SimWallet;
      if (!active.includes(m)) continue;
      if (centsOf(m, trip.token) < trip.cents) {
        const units = Number(L.balance1155(trip.token, w.address) / SHARE_UNIT);
        if (
          units >= 1 &&
          (await trade(m, t, e, false, {
            taker: w,
            sell: true,
            token: trip.token,
            units,
            rng: drng,
            makers,
          })) > 0
        )
          matches++;
        if (L.balance1155(trip.token, w.address) >= SHARE_UNIT) kept.push(trip);
      } else kept.push(trip);
    }
    degenTrips = kept;
    // Open new ones: fee-free markets only before the cutover (a V1 fee is paid in shares and would leave
    // a remainder the whole sale cannot sell).
    const open = active.filter((m) => e.v2 || m.v1FeeRateBps === 0);
    if (open.length === 0) return matches;
    const chance = Math.min(1, (roundTrips.perDay * stepS) / 86_400);
    for (let i = 0; i < flippers.length; i++) {
      if (!drng.chance(chance)) continue;
      const w = flippers[i] as SimWallet;
      const m = drng.pick(open);
      const token = drng.chance(0.5) ? m.chain.yes : m.chain.no;
      if (degenTrips.some((d) => d.wallet === i && d.token === token)) continue;
      const cents = centsOf(m, token);
      const units = drng.int(500, 5_000);
      if ((await trade(m, t, e, false, { taker: w, sell: false, token, units, rng: drng, makers })) === 0)
        continue;
      matches++;
      degenTrips.push({ wallet: i, market: markets.indexOf(m), token, cents });
    }
    return matches;
  }

  function movePrices(active: LiveMarket[], t: number) {
    const hours = stepS / 3600;
    for (const m of active) {
      m.prevP = m.p;
      let p = m.p + rng.normal(0, 0.02 * Math.sqrt(hours));
      const plan = m.cm.resolution;
      if (plan && m.firstProposeAt - t < 86_400) {
        const target = plan.winningIndex === 0 ? 0.97 : 0.03;
        p += (target - p) * 0.15 * hours;
      }
      m.p = Math.min(0.97, Math.max(0.03, p));
    }
  }

  async function tradeAll(active: LiveMarket[], t: number, e: Era, budget: number | null): Promise<number> {
    // Group by entry contract so batches stay long: V1 [std, std via fee module, nr, nr via fee module].
    const buckets: { m: LiveMarket; fm: boolean; n: number }[][] = [[], [], [], []];
    if (budget === null) {
      for (const m of active) {
        const n = poisson(rng, (perDay * m.activity * stepS) / 86_400);
        if (n === 0) continue;
        const fm = !e.v2 && rng.chance(0.3);
        (buckets[(m.chain.negRisk ? 2 : 0) + (fm ? 1 : 0)] as (typeof buckets)[number]).push({ m, fm, n });
      }
    } else if (active.length > 0) {
      const counts = new Map<LiveMarket, number>();
      for (let i = 0; i < budget; i++) {
        const m = rng.pick(active);
        counts.set(m, (counts.get(m) ?? 0) + 1);
      }
      for (const [m, n] of counts) {
        const fm = !e.v2 && rng.chance(0.3);
        (buckets[(m.chain.negRisk ? 2 : 0) + (fm ? 1 : 0)] as (typeof buckets)[number]).push({ m, fm, n });
      }
    }
    let matches = 0;
    for (const bucket of buckets) {
      for (const { m, fm, n } of bucket) {
        for (let i = 0; i < n; i++) if ((await trade(m, t, e, fm)) > 0) matches++;
      }
    }
    return matches;
  }

  // ---------------------------------------------------------------- steps

  const snapshots = new Map<number, WorldSnapshot>();

  function takeSnapshot(t: number) {
    const block = flows.driver.head() + 1;
    snapshots.set(block, {
      block,
      time: t,
      nextT,
      lastBlockTime,
      cutDone,
      preparedEvents: [...preparedEvents],
      degenTrips: degenTrips.map((d) => ({ ...d })),
      markets: markets.map((m) => ({
        created: m.created,
        p: m.p,
        prevP: m.prevP,
        requestTs: m.requestTs,
        phase: m.phase,
        proposedAt: m.proposedAt,
        reportedAt: m.reportedAt,
        holders: m.holders,
      })),
    });
    snapshots.delete(block - SNAPSHOTS_KEPT);
  }

  async function step(t: number, budget: number | null) {
    takeSnapshot(t);
    flows.beginBlock(t);
    state.tick(t * 1000);
    if (!cutDone && t >= cutoverTime) {
      cutDone = true;
      // Every wallet moves its USDC.e to pUSD at the cutover.
      for (const w of traders) {
        const bal = roundUnits((L.balance20(ADDR.usdcE, w.address) * 95n) / 100n);
        if (bal > 0n) await flows.onrampWrap(w.address, bal);
      }
    }
    const e = era(t);
    for (const m of markets) {
      if (!m.created && m.createAt <= t) await createMarket(m, e);
    }
    for (const m of markets) await advanceResolution(m, t);
    for (const m of markets) if (m.phase === 'resolved' && m.holders?.length) await redeemSome(m, e);
    const live = budget !== null;
    const active = markets.filter((m) => tradable(m, t, live));
    await housekeeping(t, e, active);
    movePrices(active, t);
    const matches = (await tradeAll(active, t, e, budget)) + (await degenStep(active, t, e));
    await transferSome(active, budget);
    lastBlockTime = count(await flows.mine(), matches);
  }

  return {
    cutoverTime,
    stats,
    setup,
    async runHistory(until, maxFills) {
      const stop = Math.min(end, until ?? end);
      while (nextT < stop && stats.fills < (maxFills ?? Number.POSITIVE_INFINITY)) {
        await step(nextT, null);
        nextT += stepS;
      }
    },
    async liveStep(time, matches) {
      const t = Math.max(time, lastBlockTime + 1);
      await step(t, matches);
      nextT = t + stepS;
    },
    nextStepTime: () => nextT,
    lastBlockTime: () => lastBlockTime,
    snapshotBefore: (n) => snapshots.get(n),
    restore(snap) {
      nextT = snap.nextT;
      lastBlockTime = snap.lastBlockTime;
      cutDone = snap.cutDone;
      preparedEvents.clear();
      degenTrips = snap.degenTrips.map((d) => ({ ...d }));
      for (const k of snap.preparedEvents) preparedEvents.add(k);
      snap.markets.forEach((s, i) => {
        Object.assign(markets[i] as LiveMarket, s);
      });
      for (const n of [...snapshots.keys()]) if (n >= snap.block) snapshots.delete(n);
    },
    async emptyBlock(time) {
      const t = Math.max(time, lastBlockTime + 1);
      takeSnapshot(t);
      flows.beginBlock(t);
      lastBlockTime = count(await flows.mine(), 0);
    },
  };
}
