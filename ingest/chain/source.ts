/**
 * Log source over JSON-RPC (viem): several RPC URLs behind viem's `fallback` transport, `eth_getLogs`
 * over block ranges (raw logs, never reformatted), block headers fetched in JSON-RPC batches, and
 * retries with exponential backoff and full jitter for retryable failures only (core/errors isRetryable,
 * after `classifyRpcError`). `logPages` walks a block range with an adaptive range size: it halves a
 * range the node refuses (too many results, response too large, timeout) and grows after successes,
 * with a bounded number of requests in flight, yielding pages in block order.
 *
 * Over HTTP(S), `eth_getLogs` is read as a stream instead of through viem, whose transport holds a whole
 * response as one string: undici's `request()` (a pooled keep-alive Agent) feeds the body into slabs
 * where the logs are located as they arrive (slab-reader.ts), and a page denser than the target (one
 * block can hold ~220,000 logs) is handed over in parts of about the target, cut on transaction
 * boundaries (docs/decisions.md).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request as undiciRequest } from 'undici';
import { createPublicClient, fallback, http, type PublicClient, type Transport, webSocket } from 'viem';
import { isRetryable, PermanentError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { hexNumber } from './hex.ts';
import { PackedLogs } from './packed-logs.ts';
import { classifyRpcError, RangeTooLargeError } from './rpc-errors.ts';
import { SlabLogReader } from './slab-reader.ts';
import { SlabPool } from './slabs.ts';
import type { BlockHeader, RpcLog } from './types.ts';

export interface LogSourceOptions {
  urls: readonly string[];
  log: Logger;
  /** Per-request timeout (ms). */
  timeoutMs?: number;
  /** viem's HTTP response cap (default 10 MiB is too small for big log pages). */
  maxResponseBodySize?: number;
  /** Attempts for retryable failures (first try included). */
  maxAttempts?: number;
  /** Base backoff delay (ms); attempt n waits random(0, base·2^n) capped at `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Headers per JSON-RPC batch. */
  headerBatchSize?: number;
  /**
   * Bytes of located pages of a streamed eth_getLogs body read ahead of the consumer before the body is
   * paused (default 8 MiB). The node writes a large response while this side maps its start, instead of
   * each side waiting on the other; 64 MiB took the peak RSS of the benchmark's backfill from ≈ 860 to
   * ≈ 1,000 MiB, no faster.
   */
  readAheadBytes?: number;
}

export interface LogSource {
  chainId(): Promise<number>;
  headNumber(): Promise<number>;
  /** One eth_getLogs call over [from, to] for `addresses`; RangeTooLargeError when the node refuses. */
  getLogs(
    from: number,
    to: number,
    addresses: readonly string[],
    topics?: readonly (string[] | null)[],
  ): Promise<RpcLog[]>;
  /**
   * The same call read as a stream, in parts of at least `partLogs` logs ending on a transaction
   * boundary (`last` on the final part). Retryable failures are retried (a retry skips the logs already
   * handed over); a refused range throws RangeTooLargeError before any part. Optional: a source without
   * it is read with `getLogs`.
   */
  streamLogs?(
    from: number,
    to: number,
    addresses: readonly string[],
    topics: readonly (string[] | null)[] | undefined,
    partLogs: number,
  ): LogStream;
  /** Headers of `numbers`, fetched in JSON-RPC batches; a block the node does not have is absent. */
  getHeaders(numbers: readonly number[]): Promise<Map<number, BlockHeader>>;
  /** Counters since creation: requests, retries, range splits. */
  readonly counters: { requests: number; retries: number; logs: number };
}

export interface LogPart {
  logs: PackedLogs;
  /** True on the range's final part. */
  last: boolean;
}

/**
 * A streamed eth_getLogs: the request is sent when the stream is made, its body is read (and parsed)
 * only as parts are pulled, so a node can prepare several ranges while the caller holds none of them.
 * `return()` cancels the request even when no part was pulled.
 */
export interface LogStream extends AsyncGenerator<LogPart> {
  /**
   * Settles when the node has answered the first attempt's request (its response head arrived, or it
   * failed): a node that answers with a length (anvil) has then built the whole response.
   */
  readonly answered: Promise<{ bytes: number | undefined }>;
}

interface RpcBlock {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
}

function transportFor(url: string, opts: LogSourceOptions, batch: boolean): Transport {
  if (url.startsWith('ws')) return webSocket(url, { timeout: opts.timeoutMs ?? 60_000, retryCount: 0 });
  return http(url, {
    timeout: opts.timeoutMs ?? 60_000,
    retryCount: 0,
    maxResponseBodySize: opts.maxResponseBodySize ?? 256 * 1024 * 1024,
    batch: batch ? { batchSize: opts.headerBatchSize ?? 100, wait: 0 } : false,
  });
}

export function headerFromRpc(b: RpcBlock): BlockHeader {
  return {
    number: hexNumber(b.number),
    hash: b.hash.toLowerCase(),
    parentHash: b.parentHash.toLowerCase(),
    timestampMs: hexNumber(b.timestamp) * 1000,
  };
}

export function createLogSource(opts: LogSourceOptions): LogSource {
  if (opts.urls.length === 0) throw new PermanentError('No RPC URL configured (ALPHA_RPC_URLS)');
  const make = (batch: boolean): PublicClient =>
    createPublicClient({
      transport:
        opts.urls.length === 1
          ? transportFor(opts.urls[0]!, opts, batch)
          : fallback(
              opts.urls.map((u) => transportFor(u, opts, batch)),
              { retryCount: 0 },
            ),
      cacheTime: 0,
    }) as PublicClient;
  const plain = make(false);
  const batched = make(true);
  const maxAttempts = opts.maxAttempts ?? 6;
  const backoff = opts.backoffMs ?? 200;
  const maxBackoff = opts.maxBackoffMs ?? 10_000;
  const counters = { requests: 0, retries: 0, logs: 0 };

  async function withRetry<T>(label: string, forLogRange: boolean, fn: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        counters.requests++;
        return await fn();
      } catch (raw) {
        const err = classifyRpcError(raw, forLogRange);
        // A range the node refuses is the caller's to shrink, not ours to retry.
        if (err instanceof RangeTooLargeError || !isRetryable(err) || attempt >= maxAttempts) throw err;
        const delay = Math.random() * Math.min(maxBackoff, backoff * 2 ** (attempt - 1));
        counters.retries++;
        opts.log.warn(
          { rpc: label, attempt, delay_ms: Math.round(delay), err: err.message },
          'Retrying RPC request',
        );
        await sleep(delay);
      }
    }
  }

  /** An Error shaped like viem's (status, code, details) so classifyRpcError reads it the same way. */
  function httpError(message: string, fields: { status?: number; name?: string; cause?: unknown }): Error {
    const err = new Error(message, { cause: fields.cause });
    if (fields.name) Object.defineProperty(err, 'name', { value: fields.name });
    if (fields.status !== undefined) Object.assign(err, { status: fields.status });
    return err;
  }

  const httpUrls = opts.urls.filter((u) => !u.startsWith('ws'));
  /** The URL that answered last: streams start there and move on after a failure (like viem's fallback). */
  let preferred = 0;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const readAheadBytes = opts.readAheadBytes ?? 8 * 2 ** 20;
  let requestId = 0;
  const slabs = new SlabPool();

  /** One eth_getLogs attempt read as a stream: its pages (before any skipping), and its answer. */
  interface LogRequest {
    /** Settles when the node answered (the response head, with its length), or the request failed. */
    answered: Promise<{ bytes: number | undefined }>;
    /** Pages of at least `partLogs` logs ending on a transaction boundary; `last` on the final one. */
    parts(): AsyncGenerator<LogPart>;
    close(): void;
  }

  const lengthOf = (header: string | null | undefined) => {
    const n = Number(header ?? Number.NaN);
    return { bytes: Number.isFinite(n) ? n : undefined };
  };

  /** Keep-alive connections by origin; timeouts are the reader's own (below). */
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, headersTimeout: 0, bodyTimeout: 0 });

  /**
   * One eth_getLogs request through undici (`request()` over the pooled Agent), its body's chunks copied
   * into slabs as they arrive (slab-reader.ts: logs located in place, pages cut on transaction
   * boundaries). The timeout is an idle timeout: no response head for `timeoutMs`, or no byte for
   * `timeoutMs` while the caller waits for one (a body paused because the caller is busy is not idle).
   */
  function openLogRequest(url: string, filter: Record<string, unknown>, partLogs: number): LogRequest {
    const reader = new SlabLogReader(slabs, partLogs, readAheadBytes, Math.min(1000, partLogs));
    const body = JSON.stringify({ jsonrpc: '2.0', id: ++requestId, method: 'eth_getLogs', params: [filter] });
    const controller = new AbortController();
    const started = Date.now();
    let headed = false;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    let stream: import('node:stream').Readable | undefined;
    const abort = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      controller.abort(err);
      stream?.destroy();
      reader.fail(err);
    };
    const check = () => {
      const now = Date.now();
      const since = !headed ? started : reader.waiting ? reader.lastActivity : now;
      if (now - since >= timeoutMs) {
        abort(httpError(`eth_getLogs: no data for ${timeoutMs} ms`, { name: 'TimeoutError' }));
      } else timer = setTimeout(check, timeoutMs - (now - since));
    };
    timer = setTimeout(check, timeoutMs);
    const head = undiciRequest(url, {
      dispatcher,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: controller.signal,
    }).then((res) => {
      headed = true;
      const headers = new Map<string, string>();
      for (const [k, v] of Object.entries(res.headers)) {
        if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
      }
      return { res, head: { status: res.statusCode, headers } };
    });
    head.then(
      ({ res, head: h }) => {
        if (settled) {
          res.body.destroy();
          return;
        }
        reader.head(h);
        const b = res.body;
        stream = b;
        reader.onDrain = () => b.resume();
        b.on('data', (chunk: Buffer) => {
          let more = true;
          for (let off = 0; off < chunk.length; ) {
            const space = reader.space();
            const n = Math.min(space.length, chunk.length - off);
            chunk.copy(space, 0, off, off + n);
            more = reader.wrote(space, n);
            off += n;
          }
          if (!more) b.pause();
        });
        b.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          reader.end();
        });
        b.on('error', (err) => {
          abort(
            controller.signal.aborted
              ? (controller.signal.reason as Error)
              : httpError(`eth_getLogs: ${err.message}`, { name: 'HttpRequestError', cause: err }),
          );
        });
      },
      (err) => {
        if (settled) return;
        abort(
          controller.signal.aborted
            ? (controller.signal.reason as Error)
            : httpError(`eth_getLogs: ${(err as Error).message}`, { name: 'HttpRequestError', cause: err }),
        );
      },
    );
    return {
      answered: head.then(
        ({ head: h }) => lengthOf(h.headers.get('content-length')),
        () => ({ bytes: undefined }),
      ),
      async *parts() {
        for (;;) {
          const part = await reader.next();
          if (!part) return;
          yield part;
          if (part.last) return;
        }
      },
      close() {
        abort(httpError('eth_getLogs: closed', { name: 'AbortError' }));
        reader.discard();
      },
    };
  }

  function streamLogs(
    from: number,
    to: number,
    addresses: readonly string[],
    topics: readonly (string[] | null)[] | undefined,
    partLogs: number,
  ): LogStream {
    const filter: Record<string, unknown> = {
      fromBlock: `0x${from.toString(16)}`,
      toBlock: `0x${to.toString(16)}`,
      address: addresses,
    };
    if (topics) filter.topics = topics;
    // The first attempt goes out now; its body waits (in the node and the socket) until it is pulled.
    const firstUrl = httpUrls[preferred % httpUrls.length]!;
    const first = openLogRequest(firstUrl, filter, partLogs);
    counters.requests++;
    async function* parts(): AsyncGenerator<LogPart> {
      // Logs already handed over: a retry reads the range again and skips them (a changed chain is
      // caught by the block hash check against the headers).
      let delivered = 0;
      for (let attempt = 1; ; attempt++) {
        const url = attempt === 1 ? firstUrl : httpUrls[preferred % httpUrls.length]!;
        const req = attempt === 1 ? first : openLogRequest(url, filter, partLogs);
        if (attempt > 1) counters.requests++;
        let seen = 0;
        try {
          for await (const part of req.parts()) {
            let fresh = part.logs;
            if (seen < delivered) fresh = part.logs.slice(Math.min(part.logs.length, delivered - seen));
            seen += part.logs.length;
            if (fresh.length === 0 && !part.last) continue;
            delivered += fresh.length;
            counters.logs += fresh.length;
            yield { logs: fresh, last: part.last };
          }
          return;
        } catch (raw) {
          const err = classifyRpcError(raw, delivered === 0);
          // A range the node refuses is the caller's to shrink (only possible before any part).
          if (err instanceof RangeTooLargeError || !isRetryable(err) || attempt >= maxAttempts) throw err;
          preferred++;
          const delay = Math.random() * Math.min(maxBackoff, backoff * 2 ** (attempt - 1));
          counters.retries++;
          opts.log.warn(
            { rpc: 'eth_getLogs', url, attempt, delay_ms: Math.round(delay), delivered, err: err.message },
            'Retrying RPC request',
          );
          await sleep(delay);
        } finally {
          req.close();
        }
      }
    }
    const gen = parts();
    // A generator never pulled skips its finally blocks: close the first request here as well.
    const close = gen.return.bind(gen);
    return Object.assign(gen, {
      answered: first.answered,
      return(value: undefined) {
        first.close();
        return close(value);
      },
    }) as LogStream;
  }

  const request = <T>(client: PublicClient, method: string, params: unknown[]) =>
    (client.request as (a: { method: string; params: unknown[] }) => Promise<T>)({ method, params });

  return {
    counters,
    ...(httpUrls.length === opts.urls.length ? { streamLogs } : {}),
    async chainId() {
      return hexNumber(
        await withRetry('eth_chainId', false, () => request<string>(plain, 'eth_chainId', [])),
      );
    },
    async headNumber() {
      return hexNumber(
        await withRetry('eth_blockNumber', false, () => request<string>(plain, 'eth_blockNumber', [])),
      );
    },
    async getLogs(from, to, addresses, topics) {
      const filter: Record<string, unknown> = {
        fromBlock: `0x${from.toString(16)}`,
        toBlock: `0x${to.toString(16)}`,
        address: addresses,
      };
      if (topics) filter.topics = topics;
      const logs = await withRetry('eth_getLogs', true, () =>
        request<RpcLog[]>(plain, 'eth_getLogs', [filter]),
      );
      counters.logs += logs.length;
      return logs;
    },
    async getHeaders(numbers) {
      const out = new Map<number, BlockHeader>();
      const size = opts.headerBatchSize ?? 100;
      for (let i = 0; i < numbers.length; i += size) {
        const chunk = numbers.slice(i, i + size);
        // Requests issued in the same tick go out as one JSON-RPC batch (the transport batches them).
        const blocks = await withRetry('eth_getBlockByNumber', false, () =>
          Promise.all(
            chunk.map((n) =>
              request<RpcBlock | null>(batched, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false]),
            ),
          ),
        );
        for (const b of blocks) if (b) out.set(hexNumber(b.number), headerFromRpc(b));
      }
      return out;
    },
  };
}

export interface LogPage<E = undefined> {
  from: number;
  to: number;
  logs: PackedLogs;
  /**
   * False on every part of a page but its last: a range denser than `targetLogsPerPage` arrives in
   * parts (each ending on a transaction boundary, each with its own `extra`); a range is done once its
   * final part is handled.
   */
  final: boolean;
  /** What `enrich` made of the page (fetched while other pages are in flight). */
  extra: E;
}

export interface PageOptions<E = undefined> {
  /**
   * Work to run on a page (or part) as soon as its logs arrive, inside the page's slot (e.g. fetching
   * its block headers), so it overlaps with the consumer instead of stalling it.
   */
  enrich?: (logs: PackedLogs, from: number, to: number) => Promise<E>;
  /**
   * Called as a range is requested, just before its logs (e.g. to fetch its blocks' headers before the
   * node is busy building this and the next ranges' logs: anvil answers nothing else meanwhile).
   */
  onRequest?: (from: number, to: number) => void;
  addresses: readonly string[];
  /** Optional topic filter (eth_getLogs `topics`). */
  topics?: readonly (string[] | null)[];
  /** First range size (blocks). */
  initialRange: number;
  maxRange: number;
  /** getLogs requests in flight at once (streamed: requests the node prepares at once). */
  concurrency: number;
  /** Streamed pages requested ahead of the one being read (at least `concurrency`; default 32). */
  lookahead?: number;
  /**
   * Most logs the answered, unread streamed pages may announce (default 50 × `targetLogsPerPage`):
   * what the node holds for this walk.
   */
  aheadLogs?: number;
  /** Pages above this many logs make the next ranges smaller (bounded memory). */
  targetLogsPerPage: number;
  /**
   * The next range to walk once every block of the current one is requested (a page worker's next
   * chunk): pages keep their order within a range, requests go on without a gap between ranges, and
   * the range size learnt so far carries over. Called as the walk reaches each range's end.
   */
  nextRange?: () => { from: number; to: number } | undefined;
  log?: Logger;
}

/**
 * Blocks of the first getLogs request of a walk: the range then doubles while pages stay small (a few
 * requests to reach a sparse chain's size) and shrinks to the target when they are large.
 */
const PROBE_RANGE = 1;

/** Bytes of JSON per log in an eth_getLogs response (≈ 800 for a log with three topics and 7 words). */
const BYTES_PER_LOG = 800;
/** Default streamed pages requested ahead, and logs they may announce (in pages of the target). */
const LOOKAHEAD_PAGES = 32;
const AHEAD_TARGETS = 50;

/** Walks [from, to] in adaptive pages, in block order. */
export async function* logPages<E = undefined>(
  source: LogSource,
  from: number,
  to: number,
  o: PageOptions<E>,
): AsyncGenerator<LogPage<E>> {
  type Result = { ok: true; logs: PackedLogs; last: boolean; extra: E } | { ok: false; err: unknown };
  interface Pending {
    from: number;
    to: number;
    /**
     * The first part (the whole page unless it is denser than the target). Streamed pages start it
     * when their turn comes near (a page waiting in the queue holds no logs here).
     */
    result?: Promise<Result>;
    /** Launch order. */
    seq: number;
    /** A streamed page: the parts, read as they are pulled. */
    stream?: LogStream;
    /**
     * Logs the page holds, as estimated from its response's length once the node answered (streamed
     * pages); undefined while the node prepares it, and for an answer without a length.
     */
    estimate?: number;
  }
  // The first request probes with a small range and sizes grow from there: a node that does not refuse
  // large results (anvil) would otherwise build one response of millions of logs for a wide first range.
  let size = Math.max(1, Math.min(o.initialRange, o.maxRange, PROBE_RANGE));
  let cursor = from;
  let end = to;
  const queue: Pending[] = [];
  let open = true;
  /** Ranges requested so far, and how many had been when an answer last shrank the size. */
  let launched = 0;
  let sizedAt = 0;
  const settle = async (f: number, t: number, part: LogPart): Promise<Result> => ({
    ok: true,
    logs: part.logs,
    last: part.last,
    extra: (o.enrich ? await o.enrich(part.logs, f, t) : undefined) as E,
  });
  const launch = (f: number, t: number): Pending => {
    o.onRequest?.(f, t);
    if (source.streamLogs) {
      const stream = source.streamLogs(f, t, o.addresses, o.topics, o.targetLogsPerPage);
      const p: Pending = { from: f, to: t, seq: ++launched, stream };
      // An answer frees the node for the next range.
      void stream.answered.then(({ bytes }) => {
        // The response's length tells the range's density before it is read: a dense range shrinks
        // the next ranges now rather than after it is handled, and the sparse pages requested before
        // it no longer grow them back when they are handled. (Only a shrink: an error answer is short.)
        if (bytes !== undefined) {
          p.estimate = bytes / BYTES_PER_LOG;
          if (p.estimate > o.targetLogsPerPage) {
            resize(t - f + 1, p.estimate);
            sizedAt = launched;
          }
        }
        if (open) refill();
      });
      return p;
    }
    return {
      from: f,
      to: t,
      seq: ++launched,
      result: source
        .getLogs(f, t, o.addresses, o.topics)
        .then((logs) => settle(f, t, { logs: PackedLogs.of(logs), last: true }))
        .catch((err): Result => ({ ok: false, err })),
    };
  };
  /**
   * The next ranges' size after a page of `blocks` blocks held `logs` logs: scaled to the target in one
   * step when too dense (halving took several oversized pages), doubled when sparse.
   */
  const resize = (blocks: number, logs: number) => {
    if (logs > o.targetLogsPerPage)
      size = Math.max(1, Math.min(size, Math.floor((blocks * o.targetLogsPerPage) / logs)));
    // (A page narrower than the size was requested before it grew: it says nothing of the new size.)
    else if (logs < o.targetLogsPerPage / 4 && blocks >= size) size = Math.min(o.maxRange, size * 2);
  };
  /** Starts reading a streamed page's first part (and its `enrich`). */
  const prime = (p: Pending): Promise<Result> => {
    p.result ??= p
      .stream!.next()
      .then((r) => settle(p.from, p.to, r.done ? { logs: PackedLogs.EMPTY, last: true } : r.value))
      .catch((err): Result => ({ ok: false, err }));
    return p.result;
  };
  // Stops the streams of pages still in flight (an early exit or a failure) without unobserved errors.
  let current: Pending | undefined;
  const abandon = async () => {
    open = false;
    const left = current ? [current, ...queue] : queue;
    await Promise.all(left.map((p) => p.result));
    await Promise.all(left.map((p) => p.stream?.return(undefined)));
  };
  // Until one page has come back, the range size is a guess: one request probes the chain's density
  // before more pages of that size are requested (bounded memory whatever the density).
  let calibrated = false;
  // getLogs pages (held whole once they arrive) are also bounded by logs: when even one block holds
  // more than the target (the range cannot shrink below a block), fewer pages are fetched at once so
  // memory stays about `concurrency × targetLogsPerPage` logs.
  let inFlight = 1;
  // Streamed pages hold nothing here until their turn: up to `lookahead` of them are requested ahead,
  // while the logs their responses announce stay under `aheadLogs` and the node prepares at most
  // `concurrency` of them at a time. The node works on the next ranges while this side maps and writes
  // the current one, whatever their density. A response without a length (a node that streams as it
  // builds) counts as in preparation until it is read.
  const lookahead = Math.max(o.concurrency, o.lookahead ?? LOOKAHEAD_PAGES);
  const aheadLogs = o.aheadLogs ?? AHEAD_TARGETS * o.targetLogsPerPage;
  const refill = () => {
    for (;;) {
      if (source.streamLogs) {
        if (queue.length >= (calibrated ? lookahead : 1)) return;
        let preparing = 0;
        let ahead = 0;
        for (const p of queue) {
          if (p.estimate === undefined) preparing++;
          else ahead += p.estimate;
        }
        if (preparing >= o.concurrency || ahead >= aheadLogs) return;
      } else if (queue.length >= (calibrated ? inFlight : 1)) return;
      if (cursor > end) {
        const next = o.nextRange?.();
        if (!next) return;
        cursor = next.from;
        end = next.to;
        if (cursor > end) continue;
      }
      const last = Math.min(end, cursor + size - 1);
      queue.push(launch(cursor, last));
      cursor = last + 1;
    }
  };
  try {
    refill();
    while (queue.length > 0) {
      const head = queue[0]!;
      let r = head.result ? await head.result : await prime(head);
      if (r.ok) {
        current = queue.shift();
        // A dense page: its parts are handed over as they arrive, and the next pages are requested now
        // so the node prepares them meanwhile.
        let n = r.logs.length;
        if (!r.last) refill();
        while (!r.last) {
          yield { from: head.from, to: head.to, logs: r.logs, final: false, extra: r.extra };
          const next = await head.stream!.next();
          r = (await settle(
            head.from,
            head.to,
            next.done ? { logs: PackedLogs.EMPTY, last: true } : next.value,
          )) as typeof r;
          n += r.logs.length;
        }
        const pageBlocks = head.to - head.from + 1;
        // A page requested before an answer shrank the size tells nothing of the ranges after it.
        if (head.seq > sizedAt) resize(pageBlocks, n);
        const expected = (n / pageBlocks) * size;
        inFlight = Math.max(
          1,
          Math.min(o.concurrency, Math.floor((o.concurrency * o.targetLogsPerPage) / Math.max(1, expected))),
        );
        calibrated = true;
        current = undefined;
        refill();
        // The next page's first part (and its headers) comes in while the consumer handles this one.
        if (queue[0]?.stream) prime(queue[0]);
        yield { from: head.from, to: head.to, logs: r.logs, final: true, extra: r.extra };
        continue;
      }
      if (!(r.err instanceof RangeTooLargeError)) throw r.err;
      if (head.from === head.to) {
        throw new PermanentError(
          `eth_getLogs refused the single block ${head.from}: ${(r.err as Error).message}`,
          { cause: r.err },
        );
      }
      const mid = head.from + Math.floor((head.to - head.from) / 2);
      size = Math.max(1, Math.floor((head.to - head.from + 1) / 2));
      o.log?.debug({ from: head.from, to: head.to, next_range: size }, 'Shrank log range');
      queue.splice(0, 1, launch(head.from, mid), launch(mid + 1, head.to));
    }
  } finally {
    await abandon();
  }
}
