/**
 * Parallel backfill of one range: the calling thread and its page workers (worker threads,
 * page-worker.ts) each fetch, read, decode, map and serialize chunks of the range, claimed in block
 * order from a shared counter. The calling thread also inserts the byte batches the workers hand over
 * (its own rows go to its writer directly) and keeps the range's checkpoint.
 *
 * One JavaScript thread bounded the in-process pipeline: reading the node's responses, decoding,
 * mapping, serializing and their garbage collection all ran there, with the engine's inserts and
 * merges beside it. The workers spread that work over the machine's cores (docs/chain-ingestion.md).
 *
 * Chunks complete out of order. The range job (ingest/chain/backfill.ts) is told of the frontier —
 * every chunk up to it done — and checkpoints only there, after every worker handed over what it holds
 * (`handOver`) and the writer's `commit` flushed it: a crash leaves rows above the checkpoint, which
 * the next attempt deletes, as in the in-thread walk.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PermanentError } from '../../../../core/errors.ts';
import type { PageResult, RangeResult } from '../../../chain/pipeline.ts';
import { ReorgDetectedError } from '../../../chain/rpc-errors.ts';
import type { BlockHeader, MapStats } from '../../../chain/types.ts';
import type { AlphaChainParts } from './ingestor.ts';
import { REFERENCE_TABLES } from './rows.ts';
import type { AlphaChainSettings } from './settings.ts';

/** What a page worker starts with. */
export interface PageWorkerData {
  settings: AlphaChainSettings;
  logLevel: string;
  /** Blocks at or below are written confirmed, above pending. */
  confirmedUpTo: number;
  from: number;
  to: number;
  chunkBlocks: number;
  /** One Int32: the index of the next chunk to claim. */
  counter: SharedArrayBuffer;
}

export type ToWorker =
  | { type: 'ack'; id: number }
  | {
      type: 'tokens';
      id: number;
      tokens: [string, string, number][];
      fees: [string, number][];
      questions: [string, string][];
    }
  | { type: 'flush'; id: number }
  | { type: 'start' };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'batch'; id: number; table: string; rows: number; body: Uint8Array }
  | { type: 'resolve'; id: number; tokens: string[]; markets: string[]; questions: string[] }
  | ({ type: 'page' } & PageResult)
  | { type: 'flushed'; id: number }
  | { type: 'done'; waitFetchMs: number; waitHeadersMs: number }
  | { type: 'error'; name: string; message: string; blockNumber?: number };

/** The chunk `i` of [from, to] in chunks of `size` blocks. */
export function chunkOf(from: number, to: number, size: number, i: number): { from: number; to: number } {
  const start = from + i * size;
  return { from: start, to: Math.min(to, start + size - 1) };
}

export function chunkCount(from: number, to: number, size: number): number {
  return to < from ? 0 : Math.ceil((to - from + 1) / size);
}

/** Claims the next chunk of `data`'s range from its shared counter (any thread), until none is left. */
export function chunkClaimer(data: PageWorkerData): () => { from: number; to: number } | undefined {
  const counter = new Int32Array(data.counter);
  const chunks = chunkCount(data.from, data.to, data.chunkBlocks);
  return () => {
    const i = Atomics.add(counter, 0, 1);
    return i < chunks ? chunkOf(data.from, data.to, data.chunkBlocks, i) : undefined;
  };
}

/**
 * Runs `chain`'s pipeline over the chunks `claim` hands out, one walk from chunk to chunk (any thread:
 * the job's and every page worker's). Undefined when no chunk was left to claim.
 */
export function ingestClaimedChunks(
  chain: AlphaChainParts,
  claim: () => { from: number; to: number } | undefined,
  confirmedUpTo: number,
  onPage: (p: PageResult) => Promise<void>,
  logConcurrency?: number,
): Promise<RangeResult> | undefined {
  const first = claim();
  if (!first) return undefined;
  return chain.pipeline.ingestRange(first.from, first.to, {
    statusOf: (b) => (b <= confirmedUpTo ? 'confirmed' : 'pending'),
    skip: REFERENCE_TABLES,
    nextRange: claim,
    logConcurrency,
    onPage,
  });
}

/** Blocks per chunk: whole log ranges, so a chunk is a few pages of the adaptive walk at most. */
export function chunkBlocksOf(settings: AlphaChainSettings): number {
  return Math.max(1, settings.logRangeMax);
}

/** Whether `runBackfillRange` spreads [from, to] over page workers (at least two chunks to share). */
export function usesPageWorkers(chain: AlphaChainParts, from: number, to: number): boolean {
  return (
    chain.settings.pipelineWorkers > 0 &&
    !chain.customSource &&
    chunkCount(from, to, chunkBlocksOf(chain.settings)) >= 2
  );
}

export interface WorkerRangeOptions {
  confirmedUpTo: number;
  /**
   * Called, one call at a time, when every chunk up to block `to` is done; `handOver` makes the
   * workers hand over every row they hold (call it before flushing the writer for a checkpoint).
   */
  onFrontier(f: { to: number; endHeader: BlockHeader }, handOver: () => Promise<void>): Promise<void>;
  /** Called for each page done, in no particular order (progress). */
  onPage?(p: { logs: number; rows: number; stats: MapStats }): void;
  signal?: AbortSignal;
}

export interface WorkerRangeResult {
  logs: number;
  rows: number;
  quarantined: number;
  endHeader: BlockHeader | undefined;
  waitFetchMs: number;
  waitHeadersMs: number;
  /** Logs the worker threads handled (the rest: the calling thread). */
  workerLogs: number;
}

const workerUrl = new URL('./page-worker.ts', import.meta.url).href;
let tsxUrl: string | undefined;
/** Worker threads load the TypeScript sources through tsx's hooks, like `bin/pmdata.js`. */
function workerSource(): string {
  // The ESM build of tsx's API (its CommonJS build resolves its hooks wrongly when imported).
  tsxUrl ??= pathToFileURL(
    path.join(
      path.dirname(createRequire(import.meta.url).resolve('tsx/package.json')),
      'dist/esm/api/index.mjs',
    ),
  ).href;
  return `import(${JSON.stringify(tsxUrl)}).then(({ register }) => { register(); return import(${JSON.stringify(workerUrl)}); })`;
}

/** An error a worker reported, as its own class where the callers tell classes apart. */
function errorOf(m: Extract<FromWorker, { type: 'error' }>): Error {
  if (m.name === 'ReorgDetectedError') return new ReorgDetectedError(m.message, m.blockNumber ?? 0);
  if (m.name === 'PermanentError') return new PermanentError(m.message);
  const err = new Error(m.message);
  err.name = m.name;
  return err;
}

/** Fetches, maps and writes every log of [from, to] on this thread and `settings.pipelineWorkers` more. */
export async function ingestRangeOnWorkers(
  chain: AlphaChainParts,
  from: number,
  to: number,
  o: WorkerRangeOptions,
): Promise<WorkerRangeResult> {
  const { settings, writer, tokens } = chain;
  const chunkBlocks = chunkBlocksOf(settings);
  const chunks = chunkCount(from, to, chunkBlocks);
  const threads = Math.max(1, Math.min(settings.pipelineWorkers, chunks - 1));
  // Requests in flight stay what one pipeline would have, shared by the threads (memory, node load).
  const logConcurrency = Math.max(1, Math.ceil(settings.logConcurrency / (threads + 1)));
  const data: PageWorkerData = {
    settings: { ...settings, logConcurrency },
    logLevel: chain.log.level,
    confirmedUpTo: o.confirmedUpTo,
    from,
    to,
    chunkBlocks,
    counter: new SharedArrayBuffer(4),
  };
  const result: WorkerRangeResult = {
    logs: 0,
    rows: 0,
    quarantined: 0,
    endHeader: undefined,
    waitFetchMs: 0,
    waitHeadersMs: 0,
    workerLogs: 0,
  };
  const doneChunks: (BlockHeader | undefined)[] = new Array(chunks);
  let frontier = 0;
  let frontierTurn: Promise<void> = Promise.resolve();
  // Batches are added one at a time, in arrival order: the writer's slots are the backpressure.
  let batchTurn: Promise<void> = Promise.resolve();
  let failure: unknown;
  let finished = 0;
  let settle!: () => void;
  let fail!: (err: unknown) => void;
  const outcome = new Promise<void>((resolve, reject) => {
    settle = resolve;
    fail = (err) => {
      failure ??= err;
      reject(failure);
    };
  });
  const workers: Worker[] = [];
  const alive = new Set<Worker>();
  const flushWaits = new Map<number, () => void>();
  let flushId = 0;

  async function handOver(): Promise<void> {
    await Promise.all(
      [...alive].map(
        (w) =>
          new Promise<void>((resolve) => {
            const id = ++flushId;
            flushWaits.set(id, resolve);
            w.postMessage({ type: 'flush', id } satisfies ToWorker);
          }),
      ),
    );
    await batchTurn;
  }

  function pageDone(m: PageResult): void {
    result.logs += m.logs;
    result.rows += m.rows;
    result.quarantined += m.stats.quarantined;
    o.onPage?.({ logs: m.logs, rows: m.rows, stats: m.stats });
    const i = Math.floor((m.from - from) / chunkBlocks);
    if (m.to !== chunkOf(from, to, chunkBlocks, i).to) return;
    doneChunks[i] = m.endHeader;
    const before = frontier;
    while (frontier < chunks && doneChunks[frontier]) frontier++;
    if (frontier > before) {
      const f = { to: chunkOf(from, to, chunkBlocks, frontier - 1).to, endHeader: doneChunks[frontier - 1]! };
      result.endHeader = f.endHeader;
      frontierTurn = frontierTurn.then(() => (failure ? undefined : o.onFrontier(f, handOver))).catch(fail);
    }
  }

  /** One producer (a worker, or this thread) finished: when all have, the range is done. */
  function producerDone(): void {
    if (++finished < threads + 1) return;
    Promise.all([batchTurn, frontierTurn])
      .then(() => {
        if (frontier !== chunks)
          throw new Error(`Page workers stopped with ${chunks - frontier} chunks not done`);
        settle();
      })
      .catch(fail);
  }

  let ready = 0;
  let allReady!: () => void;
  const started = new Promise<void>((resolve) => {
    allReady = resolve;
  });

  function onMessage(w: Worker, m: FromWorker): void {
    if (failure) return;
    switch (m.type) {
      case 'ready':
        if (++ready === threads) allReady();
        return;
      case 'batch':
        batchTurn = batchTurn
          .then(() => writer.addSerialized(m.table, m.rows, m.body))
          .then(() => w.postMessage({ type: 'ack', id: m.id } satisfies ToWorker), fail);
        return;
      case 'resolve':
        Promise.all([
          tokens.resolve(m.tokens),
          tokens.resolveMarkets(m.markets),
          tokens.resolveQuestions(m.questions),
        ])
          .then(() => {
            const found: [string, string, number][] = [];
            for (const id of m.tokens) {
              const t = tokens.get(id);
              if (t) found.push([id, t.condition_id, t.outcome_index]);
            }
            const fees: [string, number][] = [];
            for (const id of m.markets) {
              const f = tokens.marketFee(id);
              if (f !== undefined) fees.push([id, f]);
            }
            const questions: [string, string][] = [];
            for (const id of m.questions) {
              const c = tokens.questionCondition(id);
              if (c !== undefined) questions.push([id, c]);
            }
            w.postMessage({ type: 'tokens', id: m.id, tokens: found, fees, questions } satisfies ToWorker);
          })
          .catch(fail);
        return;
      case 'page':
        result.workerLogs += m.logs;
        pageDone(m);
        return;
      case 'flushed':
        flushWaits.get(m.id)?.();
        flushWaits.delete(m.id);
        return;
      case 'done':
        result.waitFetchMs += m.waitFetchMs;
        result.waitHeadersMs += m.waitHeadersMs;
        alive.delete(w);
        producerDone();
        return;
      case 'error':
        fail(errorOf(m));
        return;
    }
  }

  const onAbort = () => fail(o.signal?.reason ?? new Error('aborted'));
  o.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    o.signal?.throwIfAborted();
    for (let i = 0; i < threads; i++) {
      const w = new Worker(workerSource(), {
        eval: true,
        workerData: data,
      });
      workers.push(w);
      alive.add(w);
      w.on('message', (m: FromWorker) => onMessage(w, m));
      w.on('error', fail);
      w.on('exit', (code) => {
        if (alive.has(w)) fail(new Error(`A page worker exited (code ${code}) before its chunks were done`));
      });
    }
    // Every thread starts claiming once all are loaded: chunks are shared from the first one.
    await Promise.race([started, outcome]);
    for (const w of workers) w.postMessage({ type: 'start' } satisfies ToWorker);
    // This thread takes chunks too; its rows go to the writer directly.
    const local = ingestClaimedChunks(
      chain,
      chunkClaimer(data),
      o.confirmedUpTo,
      async (p) => {
        if (failure) throw failure;
        pageDone(p);
      },
      logConcurrency,
    );
    local?.then((r) => {
      result.waitFetchMs += r.waitFetchMs;
      result.waitHeadersMs += r.waitHeadersMs;
      producerDone();
    }, fail);
    if (!local) producerDone();
    try {
      await outcome;
    } finally {
      await local?.catch(() => {});
    }
    return result;
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
    alive.clear();
    await Promise.all(workers.map((w) => w.terminate()));
    // A failed range leaves no insert running behind its caller's cleanup.
    if (failure) await Promise.allSettled([batchTurn, frontierTurn]);
  }
}
