/**
 * `npm run bench -- sim-world [--fills N] [--seed S] [--makers a-b] [--matches-per-day N] [--verify full]
 *   [--txs-per-block N] [--batch-words N] [--dump]`
 *
 * Builds a benchmark-size simulated alpha chain (large catalog, the V2 era from the sixth hour, busy
 * markets: 80 matches per market-day with 6–10 makers each, non-trading activity scaled down to 5 %)
 * until it holds at least `--fills` (default 1,000,000) OrderFilled logs, counts them back from the chain
 * with eth_getLogs, and prints fills, logs, blocks, seconds and fills/s. `--verify full` reads every
 * receipt while building (slower) and stops at the first reverted transaction.
 *
 * Reuse by other benchmarks: `startBenchmarkChain()` builds the same chain (deterministic per seed and
 * knobs) and leaves anvil running for the caller; with `dumpTo` anvil also writes its state file on stop
 * (`--dump-state`, several GB at this size), which `startBenchmarkChain({ loadFrom })` or
 * `startAnvil({ loadState })` serves again without rebuilding.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hex } from 'viem';
import { ADDR } from '../sim/chain/addresses.ts';
import { type Anvil, startAnvil } from '../sim/chain/anvil.ts';
import { DEFAULT_START_TIME, startSim } from '../sim/index.ts';

const V1_ORDER_FILLED = '0xd0a08e8c493f9c94f29311604c9de1b4e8c8d4c06bd0c789af57f2d65bfec0f6';
const V2_ORDER_FILLED = '0xd543adfd945773f1a62f74f0ee55a5e3b9b1a28262980ba90b1a89f2ea84d8ee';

export const DEFAULT_CACHE_DIR = fileURLToPath(new URL('../.pmdata/cache/', import.meta.url));

export interface BenchmarkChainOptions {
  seed?: string;
  /** Stop the history once this many fills are on chain (default 1,000,000). */
  fills?: number;
  matchesPerMarketDay?: number;
  makersPerMatch?: [number, number];
  /** Transactions per block and calldata words per match batch (see StartSimOptions). */
  maxTxsPerBlock?: number;
  maxBatchWords?: number;
  /** Receipt checks per block (default 'light': only the transaction count; 'full' reads every receipt). */
  verify?: 'full' | 'light';
  /** anvil writes its state here when the chain is stopped. */
  dumpTo?: string;
  /** Serve a state file written before instead of building. */
  loadFrom?: string;
  onProgress?: (line: string) => void;
}

export interface BenchmarkChain {
  anvil: Anvil;
  rpcUrl: string;
  /** First and last block holding world activity. */
  firstBlock: number;
  head: number;
  /** OrderFilled logs the generator made (equal to the chain's count when `countLogs` checks it). */
  fills: number;
  matches: number;
  blocks: number;
  transactions: number;
  buildSeconds: number;
  stop(): Promise<void>;
}

/** Counts every log and the exchanges' OrderFilled logs of blocks [from, to], a block per request. */
export async function countLogs(
  anvil: Anvil,
  from: number,
  to: number,
): Promise<{ logs: number; fills: number; maxBlockLogs: number }> {
  const exchanges = new Set(
    [ADDR.ctfExchangeV1, ADDR.negRiskCtfExchangeV1, ADDR.ctfExchangeV2, ADDR.negRiskCtfExchangeV2].map((a) =>
      a.toLowerCase(),
    ),
  );
  let logs = 0;
  let fills = 0;
  let maxBlockLogs = 0;
  for (let b = from; b <= to; b++) {
    const end = b;
    const got = await anvil.rpc<{ address: string; topics: Hex[] }[]>('eth_getLogs', [
      { fromBlock: `0x${b.toString(16)}`, toBlock: `0x${end.toString(16)}` },
    ]);
    logs += got.length;
    maxBlockLogs = Math.max(maxBlockLogs, got.length);
    for (const l of got) {
      const t0 = l.topics[0];
      if ((t0 === V1_ORDER_FILLED || t0 === V2_ORDER_FILLED) && exchanges.has(l.address.toLowerCase()))
        fills++;
    }
  }
  return { logs, fills, maxBlockLogs };
}

/** The benchmark chain, built (or loaded from a state file) and left running for the caller. */
export async function startBenchmarkChain(options: BenchmarkChainOptions = {}): Promise<BenchmarkChain> {
  if (options.loadFrom) {
    const t0 = performance.now();
    const anvil = await startAnvil({ loadState: options.loadFrom, startTimeoutMs: 1_800_000 });
    const head = Number(await anvil.rpc<string>('eth_blockNumber'));
    return {
      anvil,
      rpcUrl: anvil.url,
      firstBlock: 1,
      head,
      fills: 0,
      matches: 0,
      blocks: head,
      transactions: 0,
      buildSeconds: (performance.now() - t0) / 1000,
      stop: () => anvil.stop(),
    };
  }
  const log = options.onProgress ?? (() => {});
  const t0 = performance.now();
  let lastReport = t0;
  const sim = await startSim({
    seed: options.seed ?? 'bench',
    size: 'large',
    replicas: false,
    verify: options.verify ?? 'light',
    recordFills: false,
    journalDepth: 0,
    matchesPerMarketDay: options.matchesPerMarketDay ?? 80,
    housekeeping: 0.05,
    makersPerMatch: options.makersPerMatch ?? [6, 10],
    mmInventory: [5_000, 15_000],
    cutoverTime: DEFAULT_START_TIME + 6 * 3600_000,
    historyFills: options.fills ?? 1_000_000,
    // At most 20 transactions per block (the default 200 puts a busy simulated hour in one block).
    maxTxsPerBlock: options.maxTxsPerBlock ?? 20,
    maxBatchWords: options.maxBatchWords,
    anvil: { pruneHistory: 2, ...(options.dumpTo ? { dumpStateOnExit: options.dumpTo } : {}) },
    onBlock: (b) => {
      const now = performance.now();
      if (now - lastReport > 20_000) {
        lastReport = now;
        log(
          `block ${b.number} (${new Date(b.timestamp * 1000).toISOString()}), ${b.fills.toLocaleString('en-US')} fills, ${Math.round((now - t0) / 1000)} s`,
        );
      }
    },
  });
  return {
    anvil: sim.anvil,
    rpcUrl: sim.rpcUrl,
    firstBlock: sim.firstBlock,
    head: sim.historyHead,
    fills: sim.stats.fills,
    matches: sim.stats.matches,
    blocks: sim.stats.blocks,
    transactions: sim.stats.transactions,
    buildSeconds: (performance.now() - t0) / 1000,
    stop: () => sim.stop(),
  };
}

function parseArgs(args: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (!a.startsWith('--')) continue;
    const [k, v] = a.slice(2).split('=');
    if (v !== undefined) out[k as string] = v;
    else if (args[i + 1] && !(args[i + 1] as string).startsWith('--')) out[k as string] = args[++i] as string;
    else out[k as string] = 'true';
  }
  return out;
}

export async function run(args: string[]): Promise<void> {
  const a = parseArgs(args);
  const makers = a.makers?.split('-').map(Number) as [number, number] | undefined;
  const dumpTo =
    a.dump === undefined
      ? undefined
      : a.dump === 'true'
        ? path.join(DEFAULT_CACHE_DIR, `sim-world-${a.seed ?? 'bench'}.state.json`)
        : path.resolve(a.dump);
  if (dumpTo) fs.mkdirSync(path.dirname(dumpTo), { recursive: true });
  const chain = await startBenchmarkChain({
    seed: a.seed,
    fills: a.fills ? Number(a.fills) : undefined,
    matchesPerMarketDay: a['matches-per-day'] ? Number(a['matches-per-day']) : undefined,
    makersPerMatch: makers,
    verify: a.verify === 'full' ? 'full' : 'light',
    maxTxsPerBlock: a['txs-per-block'] ? Number(a['txs-per-block']) : undefined,
    maxBatchWords: a['batch-words'] ? Number(a['batch-words']) : undefined,
    dumpTo,
    onProgress: (line) => process.stdout.write(`  ${line}\n`),
  });
  try {
    const t0 = performance.now();
    const counted = await countLogs(chain.anvil, chain.firstBlock, chain.head);
    const countSeconds = (performance.now() - t0) / 1000;
    const rows: [string, string][] = [
      ['fills (OrderFilled logs counted on chain)', counted.fills.toLocaleString('en-US')],
      ['fills made by the generator', chain.fills.toLocaleString('en-US')],
      ['matches', chain.matches.toLocaleString('en-US')],
      ['logs', counted.logs.toLocaleString('en-US')],
      ['blocks', chain.blocks.toLocaleString('en-US')],
      ['most logs in one block', counted.maxBlockLogs.toLocaleString('en-US')],
      ['transactions', chain.transactions.toLocaleString('en-US')],
      ['build seconds', chain.buildSeconds.toFixed(1)],
      ['fills/s', Math.round(chain.fills / chain.buildSeconds).toLocaleString('en-US')],
      ['eth_getLogs count-back seconds', countSeconds.toFixed(1)],
    ];
    process.stdout.write('sim-world (large)\n');
    for (const [k, v] of rows) process.stdout.write(`  ${k.padEnd(44)} ${v}\n`);
    if (counted.fills !== chain.fills) {
      throw new Error(`the chain holds ${counted.fills} OrderFilled logs, the generator made ${chain.fills}`);
    }
  } finally {
    await chain.stop();
  }
  if (dumpTo)
    process.stdout.write(`  state file: ${dumpTo} (${(fs.statSync(dumpTo).size / 1e9).toFixed(2)} GB)\n`);
}
