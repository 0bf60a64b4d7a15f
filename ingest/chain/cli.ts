/**
 * Command-line entry points of the alpha chain ingestion, wired into `pmdata` by jobs/cli.ts:
 *
 *   pmdata backfill alpha [--from-block N|DATE] [--to-block M|DATE] [--concurrency K] [--force]
 *                         [--enqueue-only]
 *   pmdata follow alpha
 *
 * `backfill` runs the token pass, enqueues one BullMQ job per block range (job ids derived from the
 * range) and, unless --enqueue-only, processes them with an in-process worker, printing a progress line
 * (blocks/s, events/s, ETA) and a final summary. Dates (YYYY-MM-DD or ISO 8601, UTC) are turned into
 * the first block at or after that time. `follow` runs the live follower until SIGINT/SIGTERM.
 */
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { Deps } from '../../core/deps.ts';
import { PermanentError } from '../../core/errors.ts';
import { alphaBackfillJob } from '../../jobs/processors/alpha-backfill.ts';
import { ALPHA_FOLLOW_LEASE } from '../../jobs/processors/alpha-follow.ts';
import { createBullConnection, createQueues, DEFAULT_PREFIX } from '../../jobs/queues.ts';
import { ALL_JOBS } from '../../jobs/registry.ts';
import { createWorkers } from '../../jobs/worker.ts';
import { backfillJobId, backfillPipeline, planBackfillRanges } from './backfill.ts';
import { createFollower } from './follower.ts';
import type { AlphaChain } from './pipeline.ts';
import { createPublisher } from './publish.ts';
import { acquireLease, alphaChainFor } from './runtime.ts';

export interface CliIo {
  out(line: string): void;
  /** Progress output; `replace` rewrites the current line on a terminal. */
  progress(line: string, replace: boolean): void;
  isTTY: boolean;
}

const defaultIo: CliIo = {
  out: (l) => process.stdout.write(`${l}\n`),
  progress: (l, replace) => process.stderr.write(replace ? `\r${l}\x1b[K` : `${l}\n`),
  isTTY: Boolean(process.stderr.isTTY),
};

export interface CliOptions {
  io?: CliIo;
  /** BullMQ key prefix (tests use their own). */
  queuePrefix?: string;
  /** Stop signal (default: the process's SIGINT/SIGTERM). */
  signal?: AbortSignal;
  /** Progress interval (ms). */
  progressEveryMs?: number;
  /**
   * BullMQ lock of the in-process worker (ms). A job whose worker died is taken over once its lock
   * expired; tests shorten it. Default 30 s (BullMQ's).
   */
  lockDurationMs?: number;
}

/** Block number at or after `time` (Unix ms), by binary search over headers. */
export async function blockAtTime(chain: AlphaChain, timeMs: number, head: number): Promise<number> {
  let lo = 0;
  let hi = head;
  const at = async (n: number) => {
    const h = (await chain.source.getHeaders([n])).get(n);
    if (!h) throw new PermanentError(`Block ${n} is not available from the node`);
    return h.timestampMs;
  };
  if ((await at(hi)) < timeMs) return hi + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if ((await at(mid)) < timeMs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

async function resolveBlock(chain: AlphaChain, value: string | undefined, head: number, name: string) {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const t = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(t)) throw new PermanentError(`${name}: expected a block number or a date, got "${value}"`);
  return blockAtTime(chain, t, head);
}

function formatDuration(s: number): string {
  if (!Number.isFinite(s)) return '?';
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = Math.floor(s % 60);
  return h > 0
    ? `${h}h${String(m).padStart(2, '0')}m`
    : m > 0
      ? `${m}m${String(sec).padStart(2, '0')}s`
      : `${sec}s`;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * The backfill's ETA: the blocks left divided by the rate of the last `windowMs` (30 s), not of the
 * whole run. A chain's density changes (the benchmark world's first 350 blocks hold 30,000 logs, its
 * last 220 the other 5M), and a stall longer than the window shows as an unknown ETA ("?") instead of
 * a shrinking one.
 */
export function createEta(totalBlocks: number, startMs: number, windowMs = 30_000) {
  const samples: { t: number; blocks: number }[] = [{ t: startMs, blocks: 0 }];
  return {
    /** Records `blocks` done at `nowMs`; returns the seconds left (Infinity when nothing moved). */
    update(nowMs: number, blocks: number): number {
      samples.push({ t: nowMs, blocks });
      while (samples.length > 2 && nowMs - samples[1]!.t >= windowMs) samples.shift();
      const since = samples[0]!;
      const rate = nowMs > since.t ? ((blocks - since.blocks) * 1000) / (nowMs - since.t) : 0;
      return rate > 0 ? (totalBlocks - blocks) / rate : Number.POSITIVE_INFINITY;
    },
  };
}

/** A command's stop: asked by `options.signal`, by the process's SIGINT/SIGTERM, or by the command. */
interface Stop {
  readonly signal: AbortSignal;
  abort(): void;
  /** What asked for the stop: the signal's name, or "stop requested". */
  reason(): string;
  /** 128 + the signal's number (130 for SIGINT, and for a stop without a signal). */
  readonly exitCode: number;
  dispose(): void;
}

/**
 * Stops on `options.signal` or, without one, on the process's first SIGINT/SIGTERM (`onStop` says what
 * happens next); a second signal exits at once, through the process's exit handlers (an embedded
 * redis-server is stopped by them).
 */
function stopOnSignals(options: CliOptions, onStop?: () => void): Stop {
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const abort = () => {
    if (controller.signal.aborted) return;
    controller.abort();
    onStop?.();
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(128 + os.constants.signals[signal]);
    received = signal;
    abort();
  };
  if (options.signal) {
    if (options.signal.aborted) abort();
    else options.signal.addEventListener('abort', abort, { once: true });
  } else {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  return {
    signal: controller.signal,
    abort,
    reason: () => received ?? 'stop requested',
    get exitCode() {
      return 128 + os.constants.signals[received ?? 'SIGINT'];
    },
    dispose() {
      options.signal?.removeEventListener('abort', abort);
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
    },
  };
}

export interface BackfillSummary {
  from: number;
  to: number;
  jobs: number;
  blocks: number;
  logs: number;
  rows: number;
  quarantined: number;
  tokens: number;
  seconds: number;
}

/** `pmdata backfill alpha ...`. Resolves to the process exit code. */
export async function runBackfillCommand(
  argv: string[],
  deps: Deps,
  options: CliOptions = {},
): Promise<number> {
  const io = options.io ?? defaultIo;
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'from-block': { type: 'string' },
      'to-block': { type: 'string' },
      concurrency: { type: 'string' },
      force: { type: 'boolean', default: false },
      'enqueue-only': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    io.out(
      'Usage: pmdata backfill alpha [--from-block N|DATE] [--to-block M|DATE] [--concurrency K] [--force] [--enqueue-only]',
    );
    return 0;
  }
  const venue = positionals[0] ?? 'alpha';
  if (venue !== 'alpha') throw new PermanentError(`backfill: unknown source "${venue}" (expected alpha)`);
  // Range jobs worked at once. One by default: a job already keeps several eth_getLogs requests in
  // flight, and two dense ranges side by side ran slower on 2 cores and peaked near 1 GiB
  // (docs/operations.md).
  const concurrency = values.concurrency === undefined ? 1 : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
    throw new PermanentError(
      `backfill: --concurrency must be an integer from 1 to 64, got "${values.concurrency}"`,
    );
  }
  const chain = alphaChainFor(deps);
  const { settings, source } = chain;
  const chainId = await source.chainId();
  if (chainId !== settings.chainId) {
    throw new PermanentError(`The RPC serves chain ${chainId}, but ALPHA_CHAIN_ID is ${settings.chainId}`);
  }
  const head = await source.headNumber();
  const from = (await resolveBlock(chain, values['from-block'], head, '--from-block')) ?? settings.startBlock;
  const to =
    (await resolveBlock(chain, values['to-block'], head, '--to-block')) ??
    Math.max(0, head - settings.finalityDepth);
  if (to < from) throw new PermanentError(`backfill: --to-block ${to} is before --from-block ${from}`);
  if (to > head) throw new PermanentError(`backfill: --to-block ${to} is above the head ${head}`);
  const started = performance.now();
  const stop = stopOnSignals(options, () =>
    io.out('Stopping: running jobs stop after their current page (press Ctrl+C again to exit at once)'),
  );
  try {
    // 1. Token pass over the whole range: every job then knows every token's condition.
    let tokens: number;
    try {
      ({ tokens } = await chain.tokenPass(from, to, { signal: stop.signal }));
    } catch (err) {
      if (!stop.signal.aborted) throw err;
      io.out(`alpha backfill stopped (${stop.reason()}) in the token pass; nothing was enqueued`);
      return stop.exitCode;
    }
    const ranges = planBackfillRanges(from, to, settings.backfillJobBlocks);
    if (values.force) {
      for (const r of ranges) {
        await deps.clickhouse.command(
          'alpha.backfill.force',
          'DELETE FROM alpha_checkpoints WHERE chain_id = {chain:UInt32} AND pipeline = {p:String}',
          { chain: settings.chainId, p: backfillPipeline(r) },
        );
      }
    }

    // 2. One job per range.
    const prefix = options.queuePrefix ?? DEFAULT_PREFIX;
    const connection = createBullConnection(deps.config.redisUrl);
    const queues = createQueues({ connection, prefix });
    const queue = queues.get('chain');
    const ids: string[] = [];
    for (const r of ranges) {
      const id = backfillJobId(settings.chainId, r);
      ids.push(id);
      if (values.force) {
        const old = await queue.getJob(id);
        if (old && ((await old.isCompleted()) || (await old.isFailed()))) await old.remove();
      }
    }
    for (let i = 0; i < ranges.length; i += 500) {
      await queue.addBulk(
        ranges.slice(i, i + 500).map((r, k) => ({
          name: alphaBackfillJob.name,
          data: { chainId: settings.chainId, from: r.from, to: r.to },
          opts: { jobId: ids[i + k], attempts: alphaBackfillJob.attempts },
        })),
      );
    }
    io.out(
      `Enqueued ${fmt(ranges.length)} alpha backfill jobs for blocks ${fmt(from)}..${fmt(to)} (${fmt(tokens)} tokens known)`,
    );
    if (values['enqueue-only']) {
      await queues.close();
      connection.disconnect();
      return 0;
    }

    // 3. Work them here, with a progress line until all are done.
    // The range jobs of the `chain` queue, worked here; a restarted backfill takes over a killed run's
    // jobs once their lock expired. On a stop signal, running jobs stop after their current page and go
    // back to the wait list with their checkpoints: the same command resumes them.
    const workers = createWorkers({
      deps,
      jobs: ALL_JOBS.filter((j) => j.queue === 'chain'),
      prefix,
      concurrency,
      lockDurationMs: options.lockDurationMs ?? 30_000,
    });
    const totalBlocks = to - from + 1;
    const rangeOf = new Map(ids.map((id, i) => [id, ranges[i]!]));
    const done = new Map<string, { logs: number; rows: number; quarantined: number }>();
    let failed: string | undefined;
    let lastLine = 0;
    /** Blocks and events done at the last look (finished jobs, and running ones' progress). */
    let blocksSeen = 0;
    let logsSeen = 0;
    const progressEvery = options.progressEveryMs ?? 1000;
    const eta = createEta(totalBlocks, performance.now());
    try {
      for (;;) {
        let activeBlocks = 0;
        let activeLogs = 0;
        let examined = 0;
        for (const id of ids) {
          if (done.has(id)) continue;
          // Jobs run roughly in order: looking at the first pending ones is enough for progress.
          if (++examined > 64) break;
          const job = await queue.getJob(id);
          if (!job) continue;
          const state = await job.getState();
          if (state === 'completed') {
            const rv = job.returnvalue as { logs?: number; rows?: number; quarantined?: number } | null;
            done.set(id, { logs: rv?.logs ?? 0, rows: rv?.rows ?? 0, quarantined: rv?.quarantined ?? 0 });
          } else if (state === 'failed') {
            failed = `${id}: ${job.failedReason}`;
          } else if (state === 'active' && job.progress && typeof job.progress === 'object') {
            const p = job.progress as { blocksDone?: number; logs?: number };
            activeBlocks += p.blocksDone ?? 0;
            activeLogs += p.logs ?? 0;
          }
        }
        let blocks = activeBlocks;
        let logs = activeLogs;
        for (const [id, d] of done) {
          const r = rangeOf.get(id)!;
          blocks += r.to - r.from + 1;
          logs += d.logs;
        }
        blocksSeen = blocks;
        logsSeen = logs;
        const seconds = (performance.now() - started) / 1000;
        const now = performance.now();
        const etaSeconds = eta.update(now, blocks);
        if (now - lastLine >= (io.isTTY ? progressEvery : progressEvery * 5) || done.size === ids.length) {
          lastLine = now;
          const bps = blocks / seconds;
          const eps = logs / seconds;
          io.progress(
            `alpha backfill ${fmt(blocks)}/${fmt(totalBlocks)} blocks (${((100 * blocks) / totalBlocks).toFixed(1)}%) ` +
              `${fmt(bps)} blocks/s ${fmt(eps)} events/s ETA ${formatDuration(etaSeconds)} ` +
              `jobs ${done.size}/${ids.length}`,
            io.isTTY,
          );
        }
        if (failed || done.size === ids.length || stop.signal.aborted) break;
        await sleep(Math.min(250, progressEvery), undefined, { signal: stop.signal }).catch(() => {});
      }
    } finally {
      if (io.isTTY) io.progress('', false);
      await workers.close();
      await queues.close();
      connection.disconnect();
    }
    const seconds = (performance.now() - started) / 1000;
    const summary: BackfillSummary = {
      from,
      to,
      jobs: ids.length,
      blocks: totalBlocks,
      logs: [...done.values()].reduce((a, d) => a + d.logs, 0),
      rows: [...done.values()].reduce((a, d) => a + d.rows, 0),
      quarantined: [...done.values()].reduce((a, d) => a + d.quarantined, 0),
      tokens,
      seconds,
    };
    if (failed) {
      io.out(`alpha backfill failed: ${failed}`);
      return 1;
    }
    if (done.size < ids.length && stop.signal.aborted) {
      io.out(
        `alpha backfill stopped (${stop.reason()}) after ${summary.seconds.toFixed(1)} s: ` +
          `${fmt(blocksSeen)} of ${fmt(totalBlocks)} blocks, ${fmt(logsSeen)} events, ` +
          `${fmt(done.size)} of ${fmt(ids.length)} jobs done; ` +
          'run the same command again to resume from the checkpoints',
      );
      return stop.exitCode;
    }
    io.out(
      `alpha backfill done: blocks ${fmt(from)}..${fmt(to)} (${fmt(summary.blocks)}), ${fmt(summary.jobs)} jobs, ` +
        `${fmt(summary.logs)} events read, ${fmt(summary.rows)} rows written, ${fmt(summary.quarantined)} quarantined, ` +
        `${summary.seconds.toFixed(1)} s (${fmt(summary.blocks / seconds)} blocks/s, ${fmt(summary.logs / seconds)} events/s)`,
    );
    return 0;
  } finally {
    stop.dispose();
  }
}

/** `pmdata follow alpha`: the live follower, until SIGINT/SIGTERM (or `options.signal`). */
export async function runFollowCommand(
  argv: string[],
  deps: Deps,
  options: CliOptions = {},
): Promise<number> {
  const io = options.io ?? defaultIo;
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { 'from-block': { type: 'string' }, help: { type: 'boolean', default: false } },
  });
  if (values.help) {
    io.out('Usage: pmdata follow alpha [--from-block N]   (the block to start at on an empty database)');
    return 0;
  }
  const venue = positionals[0] ?? 'alpha';
  if (venue !== 'alpha') throw new PermanentError(`follow: unknown source "${venue}" (expected alpha)`);
  const stop = stopOnSignals(options);
  const lease = await acquireLease(deps.redis, ALPHA_FOLLOW_LEASE, 30_000, () => stop.abort());
  if (!lease.held) {
    stop.dispose();
    io.out('Another alpha follower is running (lease held); not starting a second one');
    return 1;
  }
  try {
    const chain = alphaChainFor(deps);
    const follower = createFollower({
      chain,
      clickhouse: deps.clickhouse,
      log: deps.log,
      publisher: createPublisher(deps.redis, { chainId: chain.settings.chainId }),
      fromBlock: values['from-block'] !== undefined ? Number(values['from-block']) : undefined,
    });
    io.out('Following alpha chain (Ctrl+C to stop)');
    await follower.run(stop.signal, (o) => {
      if (o.kind === 'ingested') {
        io.progress(
          `alpha follow: blocks ${fmt(o.from)}..${fmt(o.to)} (head ${fmt(o.head)}), ${fmt(o.logs)} events`,
          io.isTTY,
        );
      } else if (o.kind === 'reorg') {
        io.progress(`alpha follow: reorg of depth ${o.depth}, back to block ${fmt(o.ancestor)}`, false);
      }
    });
    return 0;
  } finally {
    stop.dispose();
    await lease.release();
  }
}
