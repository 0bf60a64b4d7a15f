/**
 * A page worker (a worker thread of page-workers.ts). It claims chunks of its range from the shared
 * counter and runs the same pipeline as the main thread would (adaptive log pages, headers, decoders,
 * mapper, row serialization), with two differences: full batches of bytes go to the main thread, which
 * inserts them, instead of to ClickHouse; and token lookups the worker's own cache cannot answer ask
 * the main thread (its cache in front of alpha_tokens, which the reference pass filled).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '../../../../core/logger.ts';
import { createChainWriter } from '../../../chain/writer.ts';
import { createAlphaChainParts } from './ingestor.ts';
import type { FromWorker, PageWorkerData, ToWorker } from './page-workers.ts';
import { chunkClaimer, ingestClaimedChunks } from './page-workers.ts';
import { ALPHA_CHAIN_WRITES } from './tables.ts';
import { createTokenMap, type TokenMap } from './token-map.ts';

const data = workerData as PageWorkerData;
const port = parentPort;
if (!port) throw new Error('page-worker.ts runs as a worker thread (page-workers.ts starts it)');

const log = createLogger({ level: data.logLevel, name: 'alpha-page-worker' });
const post = (m: FromWorker, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer);

let nextId = 0;
const acks = new Map<number, () => void>();
const tokenReplies = new Map<number, (m: Extract<ToWorker, { type: 'tokens' }>) => void>();

/** The worker's token knowledge: its own bounded cache, misses asked of the main thread. */
function remoteTokenMap(): TokenMap {
  const local = createTokenMap({ chainId: data.settings.chainId });
  const asked = new Set<string>();
  const askedMarkets = new Set<string>();
  const askedQuestions = new Set<string>();
  const ask = (tokens: string[], markets: string[], questions: string[] = []) =>
    new Promise<void>((resolve) => {
      const id = ++nextId;
      tokenReplies.set(id, (m) => {
        for (const [token, condition_id, outcome_index] of m.tokens)
          local.set(token, { condition_id, outcome_index });
        for (const [market, bips] of m.fees) local.setMarketFee(market, bips);
        for (const [request, condition] of m.questions) local.setQuestionCondition(request, condition);
        resolve();
      });
      post({ type: 'resolve', id, tokens, markets, questions });
    });
  return {
    get: (id) => local.get(id),
    set: (id, info) => local.set(id, info),
    get size() {
      return local.size;
    },
    marketFee: (id) => local.marketFee(id),
    setMarketFee: (id, bips) => local.setMarketFee(id, bips),
    questionCondition: (id) => local.questionCondition(id),
    setQuestionCondition: (id, c) => local.setQuestionCondition(id, c),
    async resolveQuestions(ids) {
      const wanted = [...new Set(ids)].filter(
        (id) => local.questionCondition(id) === undefined && !askedQuestions.has(id),
      );
      if (wanted.length === 0) return;
      for (const id of wanted) askedQuestions.add(id);
      await ask([], [], wanted);
    },
    async resolve(ids) {
      const wanted: string[] = [];
      for (const id of ids) if (!local.get(id) && !asked.has(id)) wanted.push(id);
      if (wanted.length === 0) return;
      if (asked.size > 100_000) asked.clear();
      for (const id of wanted) asked.add(id);
      await ask(wanted, []);
    },
    async resolveMarkets(ids) {
      const wanted = [...new Set(ids)].filter(
        (id) => local.marketFee(id) === undefined && !askedMarkets.has(id),
      );
      if (wanted.length === 0) return;
      for (const id of wanted) askedMarkets.add(id);
      await ask([], wanted);
    },
  };
}

const writer = createChainWriter({
  tables: ALPHA_CHAIN_WRITES,
  log,
  chainId: data.settings.chainId,
  batchRows: data.settings.batchRows,
  maxInFlight: data.settings.maxInFlight,
  send: (table, rows, body) =>
    new Promise<void>((resolve) => {
      const id = ++nextId;
      acks.set(id, resolve);
      // A batch's bytes are its own allocation (row-binary.ts allocates at least 1 MiB): handed over
      // without a copy. A small pooled Buffer is copied by the structured clone instead.
      const own = body.byteLength > 0 && body.buffer.byteLength >= 64 * 1024;
      post({ type: 'batch', id, table, rows, body }, own ? [body.buffer as ArrayBuffer] : undefined);
    }),
});
const chain = createAlphaChainParts({ log, tokens: remoteTokenMap(), writer }, data.settings);

port.on('message', (m: ToWorker) => {
  switch (m.type) {
    case 'ack':
      acks.get(m.id)?.();
      acks.delete(m.id);
      return;
    case 'tokens':
      tokenReplies.get(m.id)?.(m);
      tokenReplies.delete(m.id);
      return;
    case 'flush':
      writer.flush().then(() => post({ type: 'flushed', id: m.id }), report);
      return;
    case 'start':
      run().catch(report);
      return;
  }
});

function report(err: unknown): void {
  const e = err instanceof Error ? err : new Error(String(err));
  const blockNumber = (e as { blockNumber?: unknown }).blockNumber;
  post({
    type: 'error',
    name: e.name,
    message: e.message,
    blockNumber: typeof blockNumber === 'number' ? blockNumber : undefined,
  });
}

const claim = chunkClaimer(data);

async function run(): Promise<void> {
  // The worker's share of the requests in flight came with its settings.
  const r = await ingestClaimedChunks(chain, claim, data.confirmedUpTo, async (p) => {
    post({ type: 'page', ...p });
  });
  await writer.flush();
  post({ type: 'done', waitFetchMs: r?.waitFetchMs ?? 0, waitHeadersMs: r?.waitHeadersMs ?? 0 });
}

// Loaded: the main thread starts every thread's claims at once.
post({ type: 'ready' });
