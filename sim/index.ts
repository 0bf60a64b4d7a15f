/**
 * startSim: the whole simulated world in one call. It generates the catalog and the wallets from the
 * seed, starts anvil (chain id 137), places and initializes the contracts at alpha's Polygon addresses,
 * runs the world's history block by block (keeping the ledger), starts the venue replicas on the same
 * world state, and optionally keeps trading live. Same seed and size → the same chain, log for log.
 *
 * Timeline (Unix s, `start` = the catalog's start): genesis at start − 3 h, contracts at start − 2 h,
 * funding and the markets that already exist at start − 1 h, then one block per step (1 h) until the
 * catalog's end; live blocks follow, `blockTime` apart.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../core/logger.ts';
import { type Anvil, type StartAnvilOptions, startAnvil } from './chain/anvil.ts';
import { type ChainControl, createChainControl } from './chain/control.ts';
import { deployContracts } from './chain/deploy.ts';
import { type ChainDriver, createChainDriver } from './chain/driver.ts';
import { type Replicas, type ReplicaUrls, startReplicas } from './venues/index.ts';
import {
  createWorldRunner,
  type WorldRunner,
  type WorldRunnerOptions,
  type WorldStats,
} from './world/activity.ts';
import { createFlows } from './world/activity-flows.ts';
import { type Catalog, type CatalogSize, generateCatalog } from './world/catalog.ts';
import { type JournalCall, journaled } from './world/journal.ts';
import { createLedger, exportLedger, type Ledger, type LedgerExport } from './world/ledger.ts';
import { createWorldState, type WorldState } from './world/state.ts';
import { type Behaviour, createWallets, type WalletSet } from './world/wallets.ts';

/** Default world start: two days before alpha's V1 → V2 cutover (2026-04-28). */
/** beta's WebSocket replica's URL on its HTTP replica's address (the demo's BETA_WS_URL). */
export { betaSocketUrl } from './venues/beta/socket.ts';
export const DEFAULT_START_TIME = Date.UTC(2026, 3, 26);
/** alpha's V1 → V2 cutover; used when it falls inside the world's horizon. */
export const REAL_CUTOVER_TIME = Date.UTC(2026, 3, 28) / 1000;

export const WALLETS_BY_SIZE: Record<CatalogSize, number> = { small: 40, medium: 160, large: 600 };

export interface StartSimOptions {
  seed: string | number;
  size: CatalogSize;
  /** Keep trading after the history. */
  live?: boolean;
  /** Live matches per wall-clock second (default 5). */
  ratePerSecond?: number;
  /** Live block interval in seconds (default 1). */
  blockTime?: number;
  /** World start, Unix ms (default DEFAULT_START_TIME). */
  startTime?: number;
  /** Days of world time (default the size's; see GenerateCatalogOptions.horizonDays). */
  horizonDays?: number;
  /** Start the venue replicas (default true). */
  replicas?: boolean;
  /** Number of wallets (default by size). */
  wallets?: number;
  /** Activity knobs (see WorldRunnerOptions). */
  matchesPerMarketDay?: number;
  makersPerMatch?: [number, number];
  stepSeconds?: number;
  /** Extra anvil options (port, pruneHistory, ...). */
  anvil?: Omit<StartAnvilOptions, 'genesisTimestamp' | 'noMining' | 'chainId'>;
  /** Receipt checks per block (see ChainDriverOptions.verify; default 'full'). */
  verify?: 'full' | 'light';
  /** Stop the history at this time (Unix ms) instead of the catalog's end. */
  historyUntil?: number;
  /**
   * With `live`: the live phase starts this many ms before the catalog's end (an empty block there)
   * instead of right after the history's last block (the demo's starts a few minutes before a UTC
   * midnight, so its first day of live data is final soon). Ignored when that time is not after the
   * history's last block.
   */
  liveStartsBeforeEnd?: number;
  /** Stop the history after the step in which the fills (OrderFilled logs) reach this count. */
  historyFills?: number;
  /** Scale of non-trading activity, 0..1 (default 1; see WorldRunnerOptions.housekeeping). */
  housekeeping?: number;
  /** USDC a market maker splits into inventory at a time (default [1000, 3000]). */
  mmInventory?: [number, number];
  /** Behaviours that never fill as makers (default none; see WorldRunnerOptions.takersOnly). */
  takersOnly?: readonly Behaviour[];
  /** Taker weights by behaviour replacing the defaults (see WorldRunnerOptions.takerWeights). */
  takerWeights?: Partial<Record<Behaviour, number>>;
  /** Degen round trips on top of the matches (default none; see WorldRunnerOptions.degenRoundTrips). */
  degenRoundTrips?: { wallets: number; perDay: number };
  /** Wallet-to-wallet outcome-token transfers per trading market and day (default 3; see WorldRunnerOptions). */
  transfersPerMarketDay?: number;
  /** V1 → V2 cutover, Unix ms (default: 2026-04-28 when inside the horizon, else 40 % into it). */
  cutoverTime?: number;
  /** Keep one ledger record per fill (default true; benchmark worlds turn it off to save time and memory). */
  recordFills?: boolean;
  /**
   * Transactions per block and calldata words per match-batch transaction (defaults 200 and 12,000):
   * smaller values spread a busy step over more, smaller blocks (benchmark worlds keep blocks near a few
   * thousand logs, like busy Polygon blocks, instead of tens of thousands).
   */
  maxTxsPerBlock?: number;
  maxBatchWords?: number;
  /** Ledger journal depth in blocks (reorgs deeper than this are refused; 0 turns journaling off). */
  journalDepth?: number;
  log?: Logger;
  onBlock?: WorldRunnerOptions['onBlock'];
  /**
   * Appends every call that changes the world state and the ledger here (sim/world/journal.ts), so the
   * world can be saved and loaded without running its history again (sim/saved.ts).
   */
  journal?: SimJournal;
}

/** The calls that built a world's state and ledger (see StartSimOptions.journal). */
export interface SimJournal {
  state: JournalCall[];
  ledger: JournalCall[];
}

/** WorldState's methods that change it. */
export const STATE_CHANGES = [
  'recordTrade',
  'recordResolution',
  'setUmaStatus',
  'advanceTime',
  'tick',
] as const;
/** Ledger's methods that change it. */
export const LEDGER_CHANGES = [
  'setBlock',
  'move20',
  'move1155',
  'addFill',
  'addActivity',
  'addResolution',
  'addCollateral',
  'addOracle',
  'addTransfer',
  'rollbackTo',
] as const;

export interface Sim {
  rpcUrl: string;
  chainId: number;
  replicaUrls: ReplicaUrls | null;
  replicas: Replicas | null;
  anvil: Anvil;
  catalog: Catalog;
  state: WorldState;
  wallets: WalletSet;
  ledger: Ledger;
  /** The ground truth as plain JSON-able data. */
  exportLedger(): LedgerExport;
  control: ChainControl;
  runner: WorldRunner;
  stats: WorldStats;
  /** Wall-clock ms spent waiting on anvil (sending, mining). */
  nodeTimings: ChainDriver['timings'];
  /** First block with world activity after deployment (the deploy block is 1). */
  firstBlock: number;
  /** Last block of the history (before live blocks). */
  historyHead: number;
  cutoverTime: number;
  /** Writes the chain's state (blocks, logs, balances) to a file that `startAnvil({ loadState })` reads. */
  dumpState(file: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startSim(options: StartSimOptions): Promise<Sim> {
  const seed = String(options.seed);
  const startTime = options.startTime ?? DEFAULT_START_TIME;
  const catalog = generateCatalog({ seed, size: options.size, startTime, horizonDays: options.horizonDays });
  const state = createWorldState(catalog);
  const wallets = createWallets({ seed, count: options.wallets ?? WALLETS_BY_SIZE[options.size] });
  const start = Math.floor(catalog.startTime / 1000);
  const end = Math.floor(catalog.endTime / 1000);

  const anvil = await startAnvil({ ...options.anvil, genesisTimestamp: start - 3 * 3600 });
  let replicas: Replicas | null = null;
  try {
    const driver = await createChainDriver(anvil, { verify: options.verify });
    const deployment = await deployContracts(driver, start - 2 * 3600);
    const ledger = createLedger({ journalDepth: options.journalDepth ?? 128 });
    const journal = options.journal;
    const flows = createFlows({
      driver,
      ledger: journal ? journaled(ledger, LEDGER_CHANGES, journal.ledger) : ledger,
      deployment,
      recordFills: options.recordFills,
      maxTxsPerBlock: options.maxTxsPerBlock,
      maxBatchWords: options.maxBatchWords,
    });
    const runner = createWorldRunner({
      flows,
      catalog,
      state: journal ? journaled(state, STATE_CHANGES, journal.state) : state,
      wallets,
      seed,
      stepSeconds: options.stepSeconds,
      matchesPerMarketDay: options.matchesPerMarketDay,
      makersPerMatch: options.makersPerMatch,
      mmInventory: options.mmInventory,
      takersOnly: options.takersOnly,
      takerWeights: options.takerWeights,
      degenRoundTrips: options.degenRoundTrips,
      transfersPerMarketDay: options.transfersPerMarketDay,
      housekeeping: options.housekeeping,
      cutoverTime:
        options.cutoverTime !== undefined
          ? Math.floor(options.cutoverTime / 1000)
          : REAL_CUTOVER_TIME > start && REAL_CUTOVER_TIME < end
            ? REAL_CUTOVER_TIME
            : undefined,
      onBlock: options.onBlock,
    });
    await runner.setup(start - 3600);
    const firstBlock = driver.head();
    await runner.runHistory(
      options.historyUntil === undefined ? undefined : Math.floor(options.historyUntil / 1000),
      options.historyFills,
    );
    const historyHead = driver.head();
    options.log?.info(
      {
        blocks: runner.stats.blocks,
        matches: runner.stats.matches,
        fills: runner.stats.fills,
        head: historyHead,
      },
      'Built sim history',
    );
    if (options.replicas !== false) replicas = await startReplicas({ catalog, state });
    const control = createChainControl({
      driver,
      runner,
      ledger,
      onError: (err) => options.log?.error({ err }, 'Stopped live trading after an error'),
    });
    if (options.live) {
      if (options.liveStartsBeforeEnd !== undefined) {
        const at = Math.floor((catalog.endTime - options.liveStartsBeforeEnd) / 1000);
        if (at > runner.lastBlockTime()) await runner.emptyBlock(at);
      }
      control.startLive({ ratePerSecond: options.ratePerSecond, blockTime: options.blockTime });
    }

    let stopped = false;
    return {
      rpcUrl: anvil.url,
      chainId: anvil.chainId,
      replicaUrls: replicas?.urls ?? null,
      replicas,
      anvil,
      catalog,
      state,
      wallets,
      ledger,
      exportLedger: () => exportLedger(ledger),
      control,
      runner,
      stats: runner.stats,
      nodeTimings: driver.timings,
      firstBlock,
      historyHead,
      cutoverTime: runner.cutoverTime,
      async dumpState(file) {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        await anvil.dumpState(file);
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        await control.stopLive();
        await replicas?.close();
        await anvil.stop();
      },
    };
  } catch (err) {
    await replicas?.close();
    await anvil.stop();
    throw err;
  }
}
