/**
 * A simulated world saved after its history and loaded again without running it: the chain as anvil's
 * state file (`anvil_dumpState`, served again with `--load-state`), the world state and the ledger as the
 * journal of the calls that built them (sim/world/journal.ts, replayed on fresh ones), the catalog and the
 * wallets generated again from the seed. A loaded world serves the same chain (blocks, hashes, logs), the
 * same replicas' answers and the same ledger as the one saved; it has no live trading and no chain control
 * (reorgs, mining), which need the runner's own state: a world that mines builds its own with startSim.
 *
 * Layout of a saved world's directory: `chain.json` (anvil's state), `world.json` (the options, the
 * history's figures and the journals).
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Anvil, startAnvil } from './chain/anvil.ts';
import {
  DEFAULT_START_TIME,
  type Sim,
  type SimJournal,
  type StartSimOptions,
  startSim,
  WALLETS_BY_SIZE,
} from './index.ts';
import { type Replicas, startReplicas } from './venues/index.ts';
import { generateCatalog } from './world/catalog.ts';
import { replay } from './world/journal.ts';
import { createLedger, exportLedger } from './world/ledger.ts';
import { createWorldState } from './world/state.ts';
import { createWallets } from './world/wallets.ts';

/** The options a saved world is built with: no live trading, no replicas (a loaded world starts its own). */
export type SavedSimOptions = Omit<
  StartSimOptions,
  'live' | 'ratePerSecond' | 'blockTime' | 'replicas' | 'log' | 'onBlock' | 'journal' | 'anvil'
>;

/** What a loaded world offers: a Sim without live trading and chain control. */
export type SavedSim = Pick<
  Sim,
  | 'rpcUrl'
  | 'chainId'
  | 'replicaUrls'
  | 'replicas'
  | 'anvil'
  | 'catalog'
  | 'state'
  | 'wallets'
  | 'ledger'
  | 'exportLedger'
  | 'stats'
  | 'firstBlock'
  | 'historyHead'
  | 'cutoverTime'
  | 'stop'
>;

interface WorldFile {
  options: SavedSimOptions;
  wallets: number;
  chainId: number;
  firstBlock: number;
  historyHead: number;
  cutoverTime: number;
  stats: Sim['stats'];
  journal: SimJournal;
}

const CHAIN_FILE = 'chain.json';
const WORLD_FILE = 'world.json';

/**
 * Builds the world's history (startSim with a journal) and saves it in `dir`; returns the running world
 * (with replicas when asked), which the caller stops.
 */
export async function buildAndSaveSim(
  options: SavedSimOptions,
  dir: string,
  o: { replicas?: boolean } = {},
): Promise<Sim> {
  const journal: SimJournal = { state: [], ledger: [] };
  const sim = await startSim({ ...options, replicas: o.replicas ?? false, journal });
  try {
    fs.mkdirSync(dir, { recursive: true });
    // The journal is taken as it stood at the end of the history (the replicas only read the state).
    const file: WorldFile = {
      options,
      wallets: sim.wallets.wallets.length,
      chainId: sim.chainId,
      firstBlock: sim.firstBlock,
      historyHead: sim.historyHead,
      cutoverTime: sim.cutoverTime,
      stats: { ...sim.stats },
      journal,
    };
    await sim.dumpState(path.join(dir, CHAIN_FILE));
    fs.writeFileSync(path.join(dir, WORLD_FILE), JSON.stringify(file));
    return sim;
  } catch (err) {
    await sim.stop();
    throw err;
  }
}

/** Serves a world saved by buildAndSaveSim again: its chain on a new anvil, its replicas when asked. */
export async function loadSim(dir: string, o: { replicas?: boolean } = {}): Promise<SavedSim> {
  const file = JSON.parse(fs.readFileSync(path.join(dir, WORLD_FILE), 'utf8')) as WorldFile;
  const opts = file.options;
  const seed = String(opts.seed);
  const catalog = generateCatalog({
    seed,
    size: opts.size,
    startTime: opts.startTime ?? DEFAULT_START_TIME,
    horizonDays: opts.horizonDays,
  });
  const state = createWorldState(catalog);
  replay(state, file.journal.state);
  const ledger = createLedger({ journalDepth: opts.journalDepth ?? 128 });
  replay(ledger, file.journal.ledger);
  const wallets = createWallets({ seed, count: opts.wallets ?? WALLETS_BY_SIZE[opts.size] });
  if (wallets.wallets.length !== file.wallets) throw new Error(`saved world ${dir}: wallet count differs`);
  const anvil: Anvil = await startAnvil({ loadState: path.join(dir, CHAIN_FILE), chainId: file.chainId });
  let replicas: Replicas | null = null;
  try {
    if (o.replicas) replicas = await startReplicas({ catalog, state });
  } catch (err) {
    await anvil.stop();
    throw err;
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
    stats: file.stats,
    firstBlock: file.firstBlock,
    historyHead: file.historyHead,
    cutoverTime: file.cutoverTime,
    async stop() {
      if (stopped) return;
      stopped = true;
      await replicas?.close();
      await anvil.stop();
    },
  };
}
