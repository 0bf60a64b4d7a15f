/**
 * `npm run bench -- ingest-alpha [--fills N] [--source synthetic|sim] [--memory-events N]
 *                                [--rpc URL [--position-ids ctf|simplified]] [--batch-rows N]`
 *
 * Figures, on one node, after one uncounted raw pass (a node reads a range it has not served yet more
 * slowly: anvil took ≈ 35 s of CPU for the first pass over a freshly built world and ≈ 27 s for the next
 * ones), so both measured passes find the node in the same state:
 *   1. raw eth_getLogs: events/s of fetching every log of the chain (same adaptive pages, same
 *      concurrency as the pipeline, nothing else);
 *   2. full pipeline: events/s of the backfill (fetch + headers + decode + map + write to ClickHouse),
 *      and its ratio to (1); for (1) and (2), a timeline of 1 s samples (overlapped, waiting on the
 *      node, node idle) and the CPU floor, (this process's CPU + the node's) / cores;
 *   3. decode + write: events/s of mapping and writing log pages already in memory (three passes over a
 *      sample, after one uncounted pass);
 *   4. peak RSS of the process during (2) (the kernel's high-water mark, reset at the phase's start;
 *      also sampled, split into JS heap, external buffers and the engine's tracked allocations, with its
 *      largest background merge), and the process's max RSS with each phase's peak.
 *
 * Chain: `synthetic` (default) places a raw log emitter at alpha's addresses on a fresh anvil and mines
 * blocks of hot events (OrderFilled 70 %, TransferSingle 20 %, pUSD Transfer 10 %; 4,000 logs per
 * block) until N fills exist; `sim` is the benchmark-size simulated world of bench/sim-world.ts (the real
 * event mix, ~5 logs per fill, in blocks of up to ~220,000 logs, which the log source reads as streams
 * in parts of about a page's target); `--rpc` uses a chain that already runs (contracts at alpha's
 * addresses).
 * ClickHouse is the embedded engine in a fresh temporary directory. The measured process is a child
 * started with the ingestion settings of core/launch.ts (the ones `pmdata backfill` starts its process
 * with) unless the parent already runs with V8 heap flags; the chain is built by the parent (its
 * generator's memory is not the pipeline's) and handed to the child with `--rpc`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createClickHouse } from '../core/clickhouse/index.ts';
import { loadConfig } from '../core/config.ts';
import { hasHeapFlags, INGESTION_NODE_FLAGS, ingestionEnv } from '../core/launch.ts';
import { createLogger } from '../core/logger.ts';
import { migrate } from '../core/migrations.ts';
import type { PackedLogs } from '../ingest/chain/packed-logs.ts';
import { emitLogsCalldata, installRawEmitter, type RawLogSpec } from '../ingest/chain/raw-emitter.ts';
import { logPages } from '../ingest/chain/source.ts';
import type { BlockHeader } from '../ingest/chain/types.ts';
import { createAlphaChain, createAlphaChainParts } from '../ingest/venues/alpha/chain/ingestor.ts';
import { EVENT_TABLES } from '../ingest/venues/alpha/chain/rows.ts';
import { alphaChainSettings } from '../ingest/venues/alpha/chain/settings.ts';
import { CONFIG_SECTIONS } from '../jobs/config.ts';
import { ALPHA_ADDRESS_SETS, allContracts } from '../schemas/abi/alpha-addresses.ts';
import { ALPHA_EVENT_TOPICS } from '../schemas/abi/alpha-events.ts';
import { type Anvil, startAnvil } from '../sim/chain/anvil.ts';

const V1 = '0x4bfb41d5b3570defd03c39a9a4d8de6bd8b8982e';
const V2 = '0xe111180000d2663c0091e4f400237545b87b996b';
const CTF = '0x4d97dcd97ec945f40cf65f87097ace5ea0476045';
const PUSD = '0xc011a7e12a19f7b1f670d46f03b03f3342e82dfb';

const w = (n: number | bigint) => n.toString(16).padStart(64, '0');
const topicAddr = (n: number) => `0x${w(n)}` as `0x${string}`;

/** One synthetic transaction's logs: `count` events, 70 % fills, 20 % 1155 transfers, 10 % pUSD transfers. */
export function syntheticLogsForProfile(seed: number, count: number, v2: boolean) {
  return syntheticLogs(seed, count, v2);
}

function syntheticLogs(seed: number, count: number, v2: boolean): { address: string; logs: RawLogSpec[] }[] {
  const fills: RawLogSpec[] = [];
  const transfers: RawLogSpec[] = [];
  const pusd: RawLogSpec[] = [];
  for (let i = 0; i < count; i++) {
    const k = seed * count + i;
    const r = i % 10;
    const token = 1_000_000n + BigInt(k % 500);
    if (r < 7) {
      const role = i % 4 === 3 ? (v2 ? V2 : V1) : topicAddr(0x1000 + (k % 997));
      const topics = [
        v2 ? ALPHA_EVENT_TOPICS.orderFilledV2 : ALPHA_EVENT_TOPICS.orderFilledV1,
        `0x${w(k + 1)}`,
        topicAddr(0x2000 + (k % 1499)),
        role.length === 42 ? `0x${w(BigInt(role))}` : role,
      ] as `0x${string}`[];
      const shares = 1_000_000 + (k % 1000) * 1000;
      const usd = Math.floor(shares * (0.05 + (k % 90) / 100));
      const buy = k % 2 === 0;
      const data = v2
        ? `0x${w(buy ? 0 : 1)}${w(token)}${w(buy ? usd : shares)}${w(buy ? shares : usd)}${w(k % 100)}${w(k % 7 === 0 ? 0xb1 : 0)}${w(0)}`
        : `0x${w(buy ? 0 : token)}${w(buy ? token : 0)}${w(buy ? usd : shares)}${w(buy ? shares : usd)}${w(k % 100)}`;
      fills.push({ topics, data: data as `0x${string}` });
    } else if (r < 9) {
      transfers.push({
        topics: [
          ALPHA_EVENT_TOPICS.transferSingle,
          topicAddr(7),
          topicAddr(0x3000 + (k % 100)),
          topicAddr(0x4000 + (k % 100)),
        ],
        data: `0x${w(token)}${w(1000 + k)}`,
      });
    } else {
      pusd.push({
        topics: [ALPHA_EVENT_TOPICS.transfer, topicAddr(0x3000 + (k % 100)), topicAddr(0x4000 + (k % 100))],
        data: `0x${w(1000 + k)}`,
      });
    }
  }
  return [
    { address: v2 ? V2 : V1, logs: fills },
    { address: CTF, logs: transfers },
    { address: PUSD, logs: pusd },
  ];
}

export async function buildSyntheticChain(fills: number, log: (s: string) => void): Promise<Anvil> {
  const anvil = await startAnvil({
    noMining: true,
    pruneHistory: 1,
    maxResponseBodySize: 1024 * 1024 * 1024,
  });
  await installRawEmitter(
    anvil.rpc,
    allContracts(ALPHA_ADDRESS_SETS).map((c) => c.address),
  );
  const perTx = 1000;
  const txPerBlock = 4;
  const blocks = Math.ceil(fills / (perTx * 0.7 * txPerBlock));
  const started = performance.now();
  let seed = 0;
  for (let b = 0; b < blocks; b++) {
    for (let t = 0; t < txPerBlock; t++) {
      for (const g of syntheticLogs(seed++, perTx, b % 2 === 1)) {
        await anvil.rpc('eth_sendTransaction', [
          {
            from: '0x00000000000000000000000000000000000a11ce',
            to: g.address,
            data: emitLogsCalldata(g.logs),
            gas: '0x5f5e100',
            gasPrice: '0x0',
          },
        ]);
      }
    }
    await anvil.rpc('evm_mine', []);
    if (b % 50 === 49)
      log(`  built ${b + 1}/${blocks} blocks (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  return anvil;
}

/**
 * CPU seconds used so far by the local node serving `rpcUrl` (an anvil on this machine, found by its
 * port), or undefined when it is not a local process we can see. Linux /proc, clock ticks of 1/100 s.
 */
function nodeCpuReader(rpcUrl: string): (() => number) | undefined {
  const port = new URL(rpcUrl).port;
  let pid: string | undefined;
  try {
    for (const d of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      let cmd = '';
      try {
        cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8');
      } catch {
        continue;
      }
      const args = cmd.split('\0');
      if (args[0]?.endsWith('anvil') && args[args.indexOf('--port') + 1] === port) pid = d;
    }
  } catch {
    return undefined;
  }
  if (!pid) return undefined;
  return () => {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
}

/** Milliseconds of V8 garbage collection (all kinds) since the process started observing. */
let gcMs = 0;
function observeGc(): void {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcMs += e.duration;
  }).observe({ entryTypes: ['gc'] });
}

/**
 * Where a run's seconds went, sampled once a second: the JS thread's busy share (event-loop
 * utilization), this process's CPU and the node's. A second is "waiting on the node" when the JS
 * thread is mostly idle while the node works, "node idle" when the node does next to nothing while
 * this process works, "overlapped" otherwise. With the floor, (this process's CPU + the node's) / cores,
 * it tells a run bound by the node apart from one bound by this process's own CPU.
 */
function overlapTimeline(nodeCpu: (() => number) | undefined): () => string {
  const seconds = { overlapped: 0, waiting: 0, nodeIdle: 0 };
  let elu = performance.eventLoopUtilization();
  let cpu = process.cpuUsage();
  let node = nodeCpu?.() ?? 0;
  let last = performance.now();
  const sample = () => {
    const now = performance.now();
    const wall = (now - last) / 1000;
    if (wall <= 0) return;
    const busy = performance.eventLoopUtilization(elu).utilization;
    const c = process.cpuUsage(cpu);
    const n = nodeCpu ? nodeCpu() - node : 0;
    const self = (c.user + c.system) / 1e6 / wall;
    const nodeCores = n / wall;
    if (busy < 0.5 && nodeCores > 0.5) seconds.waiting += wall;
    else if (nodeCores < 0.2 && self > 0.5) seconds.nodeIdle += wall;
    else seconds.overlapped += wall;
    elu = performance.eventLoopUtilization();
    cpu = process.cpuUsage();
    node = nodeCpu?.() ?? 0;
    last = now;
  };
  const timer = setInterval(sample, 1000);
  return () => {
    clearInterval(timer);
    sample();
    if (!nodeCpu) return 'timeline: no local node to sample';
    return `timeline (1 s samples): ${seconds.overlapped.toFixed(0)} s overlapped, ${seconds.waiting.toFixed(0)} s waiting on the node (JS thread < 50 % busy, node > 0.5 cores), ${seconds.nodeIdle.toFixed(0)} s node idle (< 0.2 cores) while this process works`;
  };
}

/** CPU seconds of this process and of the node between two calls, and the GC pause time. */
function cpuMeter(nodeCpu: (() => number) | undefined): () => string {
  const g0 = gcMs;
  const p0 = process.cpuUsage();
  const n0 = nodeCpu?.() ?? 0;
  const t0 = performance.now();
  const elu0 = performance.eventLoopUtilization();
  return () => {
    const p = process.cpuUsage(p0);
    const wall = (performance.now() - t0) / 1000;
    const self = (p.user + p.system) / 1e6;
    const node = nodeCpu ? nodeCpu() - n0 : undefined;
    // The JS thread's busy share (event-loop utilization): near 100 % means it, not the node, is the bound.
    const jsBusy = performance.eventLoopUtilization(elu0).utilization;
    // The floor: the shortest the phase could be if this process and the node overlapped perfectly.
    const cores = os.cpus().length;
    const floor =
      node === undefined
        ? ''
        : `; floor (this process + node) / cores ${((self + node) / cores).toFixed(1)} s, ${((100 * (self + node)) / cores / wall).toFixed(0)} % of the phase`;
    return `CPU: this process ${self.toFixed(1)} s (${(self / wall).toFixed(2)} cores; JS thread busy ${(100 * jsBusy).toFixed(0)} %; GC pauses ${((gcMs - g0) / 1000).toFixed(1)} s)${node === undefined ? '' : `, node ${node.toFixed(1)} s (${(node / wall).toFixed(2)} cores)`} of ${cores} cores${floor}`;
  };
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/**
 * The kernel's peak RSS of this process (VmHWM) over a phase: `start` resets the high-water mark to the
 * current RSS (`5` written to /proc/self/clear_refs), `read` returns the peak since then in bytes. Exact
 * where a sampler can miss a short spike. The reset also resets what getrusage reports as the process's
 * max RSS, so `max` keeps the process's peak across phases. Undefined where the kernel does not offer it.
 */
function phasePeakRss(): { start(): void; read(): number | undefined; max(): number | undefined } {
  let available = true;
  let max = 0;
  const read = (): number | undefined => {
    if (!available) return undefined;
    try {
      const kb = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1];
      if (kb === undefined) return undefined;
      const bytes = Number(kb) * 1024;
      max = Math.max(max, bytes);
      return bytes;
    } catch {
      return undefined;
    }
  };
  return {
    start() {
      if (read() === undefined) available = false;
      if (!available) return;
      try {
        fs.writeFileSync('/proc/self/clear_refs', '5');
      } catch {
        available = false;
      }
    },
    read,
    max() {
      read();
      return available ? max : undefined;
    },
  };
}

/**
 * The measured process runs with the settings `pmdata backfill` and `pmdata follow` start their process
 * with (core/launch.ts): V8 flags that keep the heap near its live set with a 32 MB young generation,
 * and the embedded engine's allocator setting.
 */

/** A background merge of the embedded engine, as system.merges shows it. */
interface EngineMerge {
  table: string;
  parts: number;
  algorithm: string;
  memory: number;
}

/** True when this process already runs with V8 heap flags (it is the measured one). */
function isWorkerProcess(): boolean {
  return hasHeapFlags(process.execArgv, process.env);
}

/** Runs the measured part in a child process with the ingestion settings (core/launch.ts). */
async function runWorkerProcess(args: string[]): Promise<void> {
  const { spawn } = await import('node:child_process');
  const entry = path.resolve(import.meta.dirname, '../bin/bench.js');
  const child = spawn(process.execPath, [...INGESTION_NODE_FLAGS, entry, 'ingest-alpha', ...args], {
    stdio: 'inherit',
    env: ingestionEnv(process.env),
  });
  const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
  if (code !== 0) throw new Error(`ingest-alpha benchmark process exited with ${code}`);
}

/**
 * Parent side: builds the chain (unless another one is named) and runs the measured child on it, so the
 * generator's memory is not the pipeline's.
 */
async function runParent(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: OPTIONS, strict: true });
  if (values.rpc) return runWorkerProcess(args);
  const fills = Number(values.fills);
  if (values.source === 'synthetic') {
    process.stdout.write(`Building synthetic chain with ${fmt(fills)} fills...\n`);
    const anvil = await buildSyntheticChain(fills, (line) => process.stdout.write(`${line}\n`));
    try {
      return await runWorkerProcess([...args, '--rpc', anvil.url, '--position-ids', 'simplified']);
    } finally {
      await anvil.stop();
    }
  }
  if (values.source !== 'sim') throw new Error(`--source ${values.source}: expected synthetic or sim`);
  const { startBenchmarkChain } = await import('./sim-world.ts');
  process.stdout.write(`Building the benchmark sim chain (${fmt(fills)} fills)...\n`);
  const chain = await startBenchmarkChain({
    fills,
    onProgress: (line) => process.stdout.write(`  ${line}\n`),
  });
  try {
    process.stdout.write(
      `  sim chain: ${fmt(chain.fills)} fills, ${fmt(chain.blocks)} blocks, built in ${chain.buildSeconds.toFixed(0)} s\n`,
    );
    await runWorkerProcess([...args, '--rpc', chain.rpcUrl, '--position-ids', 'simplified']);
  } finally {
    await chain.stop();
  }
}

const OPTIONS = {
  fills: { type: 'string', default: '1000000' },
  source: { type: 'string', default: 'synthetic' },
  'memory-events': { type: 'string', default: '100000' },
  'batch-rows': { type: 'string' },
  rpc: { type: 'string' },
  'position-ids': { type: 'string' },
} as const;

export async function run(args: string[]): Promise<void> {
  if (!isWorkerProcess()) return runParent(args);
  const { values } = parseArgs({ args, options: OPTIONS, strict: true });
  const say = (s: string) => process.stdout.write(`${s}\n`);
  const log = createLogger({ level: 'warn', name: 'bench' });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pmdata-bench-alpha-'));
  let stop: () => Promise<void> = async () => {};
  let rpcUrl = values.rpc;
  let positionIds: 'ctf' | 'simplified' = 'simplified';
  if (!rpcUrl) {
    if (values.source !== 'synthetic')
      throw new Error(`--source ${values.source}: the parent builds sim chains`);
    say(`Building synthetic chain with ${fmt(Number(values.fills))} fills...`);
    const anvil = await buildSyntheticChain(Number(values.fills), say);
    rpcUrl = anvil.url;
    stop = () => anvil.stop();
  } else positionIds = values['position-ids'] === 'simplified' ? 'simplified' : 'ctf';

  const config = loadConfig(
    { PMDATA_DATA_DIR: dataDir, CLICKHOUSE_DATABASE: 'bench', LOG_LEVEL: 'warn' },
    CONFIG_SECTIONS,
  );
  const clickhouse = await createClickHouse({ config, log });
  await migrate({ clickhouse, log });
  const settings = alphaChainSettings(config, {
    rpcUrls: [rpcUrl],
    positionIds,
    finalityDepth: 0,
    // anvil reads whole blocks for every eth_getLogs (topic filters included) and never refuses a big
    // result: wide ranges over this dense chain (≈ 10,000 logs per block) made it build multi-GB
    // responses and get OOM-killed. The range is capped as ALPHA_LOG_RANGE_MAX would be for such a node.
    logRange: 16,
    logRangeMax: 16,
    ...(values['batch-rows'] ? { batchRows: Number(values['batch-rows']) } : {}),
  });
  // The pipeline is measured through the ingestor; raw reads and decode + write through its parts.
  const parts = createAlphaChainParts({ clickhouse, log }, settings);
  const chain = createAlphaChain({ clickhouse, log }, settings, parts);
  const head = await chain.head();
  const nodeCpu = nodeCpuReader(rpcUrl);
  observeGc();
  /**
   * What the embedded engine's allocator tracks right now (its MemoryTracking metric), and its largest
   * running background merge (table, parts, algorithm, memory).
   */
  const engineMemory = async (): Promise<{ tracked: number; merge?: EngineMerge }> => {
    const rows = await clickhouse.query<{ tracked: string; merge: [string, string, string, string] }>(
      'bench.engine_memory',
      `SELECT (SELECT value FROM system.metrics WHERE metric = 'MemoryTracking') AS tracked,
              (SELECT argMax((table, toString(num_parts), toString(merge_algorithm), toString(memory_usage)), memory_usage)
                 FROM system.merges) AS merge`,
    );
    const [table, parts, algorithm, memory] = rows[0]?.merge ?? ['', '0', '', '0'];
    const merge = table ? { table, parts: Number(parts), algorithm, memory: Number(memory) } : undefined;
    return { tracked: Number(rows[0]?.tracked ?? 0), merge };
  };
  /** Every log of the chain read as the pipeline reads them (same pages, same concurrency), nothing else. */
  const rawPass = async (): Promise<{ events: number; seconds: number }> => {
    const t = performance.now();
    let events = 0;
    for await (const page of logPages(parts.source, 0, head, {
      addresses: parts.decoders.logAddresses,
      initialRange: settings.logRange,
      maxRange: settings.logRangeMax,
      concurrency: settings.logConcurrency,
      targetLogsPerPage: settings.targetLogsPerPage,
    })) {
      events += page.logs.length;
      // Done with the page, as the pipeline is once it mapped one: its slab takes the next pages.
      page.logs.release();
    }
    return { events, seconds: (performance.now() - t) / 1000 };
  };
  const baselineRss = process.memoryUsage().rss;
  say(
    `baseline RSS:         ${fmt(baselineRss / 2 ** 20)} MiB (process with the embedded engine open, before ingesting)`,
  );

  // The kernel's peak RSS of each phase (the process's maximum is the largest of them).
  const hwm = phasePeakRss();
  const phasePeaks: string[] = [];
  const endPhase = (name: string): number | undefined => {
    const peak = hwm.read();
    if (peak !== undefined) phasePeaks.push(`${name} ${fmt(peak / 2 ** 20)}`);
    return peak;
  };
  try {
    // 0. The node's first read of the chain, not counted (see the header).
    const warmCpu = cpuMeter(nodeCpu);
    hwm.start();
    const warm = await rawPass();
    endPhase('warm-up');
    say(
      `node warm-up:         ${fmt(warm.events)} events in ${warm.seconds.toFixed(2)} s (raw eth_getLogs, not counted: both measured passes find the node in the same state)`,
    );
    say(`  ${warmCpu()}`);

    // 1. Full pipeline (reference pass + range job), RSS sampled, in a fresh process.
    let peakRss = process.memoryUsage().rss;
    let peakHeap = 0;
    let peakExternal = 0;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peakRss = Math.max(peakRss, m.rss);
      peakHeap = Math.max(peakHeap, m.heapUsed);
      peakExternal = Math.max(peakExternal, m.external);
    }, 50);
    // The engine's own tracked allocations, sampled less often (a query each time).
    let peakEngine = 0;
    let peakMerge: EngineMerge | undefined;
    let engineSampling = false;
    let engineSampleFailures = 0;
    const engineSampler = setInterval(() => {
      if (engineSampling) return;
      engineSampling = true;
      engineMemory()
        .then(({ tracked, merge }) => {
          peakEngine = Math.max(peakEngine, tracked);
          if (merge && merge.memory > (peakMerge?.memory ?? 0)) peakMerge = merge;
        })
        .catch(() => {
          engineSampleFailures++;
        })
        .finally(() => {
          engineSampling = false;
        });
    }, 250);
    hwm.start();
    const t0 = performance.now();
    const tokens = await chain.referencePass(0, head);
    const tokenSeconds = (performance.now() - t0) / 1000;
    const t1 = performance.now();
    const pipeCpu = cpuMeter(nodeCpu);
    const pipeTimeline = overlapTimeline(nodeCpu);
    const result = await chain.ingestRange({ from: 0, to: head }, { head });
    const pipeSeconds = (performance.now() - t1) / 1000;
    const pipePeak = endPhase('pipeline');
    clearInterval(sampler);
    clearInterval(engineSampler);
    const pipeRate = result.logs / pipeSeconds;
    const fills = await clickhouse.query<{ n: string }>(
      'bench.count',
      'SELECT count() AS n FROM alpha_fills',
    );
    say(
      `full pipeline:        ${fmt(result.logs)} events (${fmt(Number(fills[0]?.n))} fills, ${fmt(result.rows)} rows) in ${pipeSeconds.toFixed(2)} s = ${fmt(pipeRate)} events/s` +
        ` (reference pass ${tokenSeconds.toFixed(2)} s, ${fmt(tokens.tokens)} tokens)`,
    );
    say(`  ${pipeCpu()}`);
    say(`  ${pipeTimeline()}`);
    say(
      `  waits: log pages ${fmt(result.waits?.fetchMs ?? 0)} ms, headers ${fmt(result.waits?.headersMs ?? 0)} ms, insert slots ${fmt(result.waits?.insertMs ?? 0)} ms`,
    );
    say(
      `peak RSS (pipeline):  ${fmt((pipePeak ?? peakRss) / 2 ** 20)} MiB (${pipePeak === undefined ? 'sampled every 50 ms' : `the kernel's high-water mark over the reference pass and the backfill; sampled every 50 ms: ${fmt(peakRss / 2 ** 20)} MiB`}; JS heap ${fmt(peakHeap / 2 ** 20)} MiB, external ${fmt(peakExternal / 2 ** 20)} MiB, engine allocations ${fmt(peakEngine / 2 ** 20)} MiB: peaks of each, sampled${engineSampleFailures > 0 ? `; ${engineSampleFailures} engine samples failed` : ''})`,
    );
    if (peakMerge) {
      say(
        `  largest merge:      ${peakMerge.table}, ${peakMerge.parts} parts, ${peakMerge.algorithm}, ${fmt(peakMerge.memory / 2 ** 20)} MiB of the engine's allocations`,
      );
    }
    const after = await engineMemory();
    const fillParts = await clickhouse.query<{ parts: string }>(
      'bench.fill_parts',
      `SELECT count() AS parts FROM system.parts WHERE active AND database = currentDatabase() AND table = 'alpha_fills'`,
    );
    say(
      `engine after it:      ${fmt(after.tracked / 2 ** 20)} MiB tracked by the engine's allocator, ${fillParts[0]?.parts} active alpha_fills parts (inserts of ${fmt(settings.batchRows)} rows)`,
    );

    // 2. Raw eth_getLogs (after the pipeline, so its memory does not count in the pipeline's RSS).
    const rawCpu = cpuMeter(nodeCpu);
    const rawTimeline = overlapTimeline(nodeCpu);
    hwm.start();
    const raw = await rawPass();
    endPhase('raw');
    const rawEvents = raw.events;
    const rawSeconds = raw.seconds;
    const rawRate = rawEvents / rawSeconds;
    say(
      `raw eth_getLogs:      ${fmt(rawEvents)} events in ${rawSeconds.toFixed(2)} s = ${fmt(rawRate)} events/s`,
    );

    say(`  ${rawCpu()}`);
    say(`  ${rawTimeline()}`);
    say(`pipeline / raw:       ${((100 * pipeRate) / rawRate).toFixed(1)} %`);

    // 3. Decode + write from pages in memory: a sample from the middle of the chain (its first blocks are
    //    setup: funding, market creation), written ROUNDS times into emptied tables.
    const limit = Number(values['memory-events']);
    hwm.start();
    const pages: { logs: PackedLogs; headers: Map<number, BlockHeader> }[] = [];
    let inMemory = 0;
    const sampleFrom = Math.floor(head / 2);
    for await (const page of logPages(parts.source, sampleFrom, head, {
      addresses: parts.decoders.logAddresses,
      initialRange: settings.logRange,
      maxRange: settings.logRangeMax,
      concurrency: settings.logConcurrency,
      targetLogsPerPage: settings.targetLogsPerPage,
    })) {
      if (page.logs.length === 0) continue;
      const blocks = [...page.logs.blocks()];
      pages.push({ logs: page.logs, headers: await parts.source.getHeaders(blocks) });
      inMemory += page.logs.length;
      if (inMemory >= limit) break;
    }
    const mix = new Map<string, number>();
    for (const p of pages) {
      for (const l of p.logs) {
        const r = parts.decoders.decode(l);
        const k = r.status === 'quarantine' ? 'quarantined' : r.name;
        mix.set(k, (mix.get(k) ?? 0) + 1);
      }
    }
    const mixText = [...mix.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 6)
      .map(([k, n]) => `${k} ${((100 * n) / inMemory).toFixed(0)} %`)
      .join(', ');
    // One pass first, not counted: it empties tables holding the pipeline's 5M rows, whose parts the
    // engine then removes in the background (thousands of files), and it warms this sample's caches.
    const writePass = async (): Promise<number> => {
      for (const t of [...EVENT_TABLES, 'alpha_blocks', 'alpha_fill_hashes'])
        await clickhouse.command('bench.truncate', `TRUNCATE TABLE ${t}`);
      const started = performance.now();
      for (const p of pages) {
        await parts.pipeline.writeLogs(p.logs, p.headers, { statusOf: () => 'confirmed' });
      }
      await parts.writer.flush();
      return (performance.now() - started) / 1000;
    };
    const warmSeconds = await writePass();
    const ROUNDS = 3;
    let memSeconds = 0;
    const rates: string[] = [];
    const memCpu = cpuMeter(undefined);
    for (let round = 0; round < ROUNDS; round++) {
      const s = await writePass();
      memSeconds += s;
      rates.push(fmt(inMemory / s));
    }
    say(
      `decode + write:       ${fmt(inMemory * ROUNDS)} events in ${memSeconds.toFixed(2)} s = ${fmt((inMemory * ROUNDS) / memSeconds)} events/s` +
        ` (${fmt(inMemory)} events from block ${sampleFrom} written ${ROUNDS} times after an uncounted pass at ${fmt(inMemory / warmSeconds)} ev/s: ${rates.join(', ')} ev/s; ${mixText})`,
    );
    endPhase('decode + write');
    say(`  ${memCpu()} (truncates between rounds included)`);
    say(
      `max RSS (process):    ${fmt((hwm.max() ?? process.resourceUsage().maxRSS * 1024) / 2 ** 20)} MiB (V8 flags: ${process.execArgv.join(' ') || process.env.NODE_OPTIONS || 'none'})${phasePeaks.length > 0 ? `; peak of each phase: ${phasePeaks.join(', ')} MiB` : ''}`,
    );
  } finally {
    await stop();
    try {
      fs.rmSync(dataDir, { recursive: true, force: true });
    } catch {
      // The embedded engine may still be writing in the background; the directory is under tmp.
    }
  }
}
