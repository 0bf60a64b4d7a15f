/**
 * Reading an `eth_getLogs` response as it streams in. A dense block (the benchmark world holds blocks of
 * ~220,000 logs, ~220 MB of JSON; a block is the smallest range a node can be asked for) does not fit a
 * worker's heap as one string plus one array of log objects. `LogArrayReader` scans the body's bytes as
 * they arrive and parses the `result` array's complete objects in small batches, so at most one network
 * chunk and one batch of objects are held at a time; `TxChunker` regroups the logs into parts of about
 * `target` logs that never split a transaction (the mapper attributes events within a transaction).
 */
import {
  BACKSLASH,
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
  readPackedLogs,
} from './log-objects.ts';
import { PackedLogs } from './packed-logs.ts';
import type { RpcLog } from './types.ts';

/** A JSON-RPC error object the node answered with (`{ code, message, data? }`). */
export class JsonRpcResponseError extends Error {
  override readonly name = 'JsonRpcResponseError';
  constructor(
    message: string,
    readonly code: number | undefined,
    readonly details: string,
  ) {
    super(message);
  }
}

/**
 * Feed the body's bytes with `push`, then call `end`; both return the log objects completed so far.
 * A body that is not `{..., "result": [ {log}, ... ], ...}` (an error, a null result) is kept whole and
 * parsed at `end`, where a JSON-RPC error is thrown as `JsonRpcResponseError`.
 */
export class LogArrayReader {
  /** Nesting outside strings: 1 inside the response object, 2 inside the result array, 3 in a log. */
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** 0: before the result array (bytes kept in `parts`), 1: inside it, 2: after it. */
  private mode: 0 | 1 | 2 = 0;
  /** Bytes not yet parsed, from global offset `partsStart`. */
  private parts: Buffer[] = [];
  private partsStart = 0;
  /** Global offset of the next byte pushed. */
  private offset = 0;
  /** Global offsets of the first unparsed log object's `{` (-1: none yet) and past the last complete `}`. */
  private firstStart = -1;
  private lastEnd = -1;
  private complete = 0;
  /** Quote characters scanned so far, and their count at `firstStart` and at `lastEnd`. */
  private quotes = 0;
  private quotesAtFirst = 0;
  private quotesAtLast = 0;

  /** `parseEvery`: complete objects that trigger a JSON.parse (1,000 logs ≈ 1 MB of text). */
  constructor(private readonly parseEvery = 1000) {}

  push(chunk: Uint8Array): PackedLogs {
    const buf = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const base = this.offset;
    this.offset += buf.length;
    if (this.mode !== 2) this.parts.push(buf);
    this.scan(buf, base);
    return this.complete >= this.parseEvery ? this.parseComplete() : PackedLogs.EMPTY;
  }

  end(): PackedLogs {
    if (this.inString || this.mode === 1 || (this.mode === 2 && this.depth !== 0)) {
      throw new JsonRpcResponseError('eth_getLogs response ended before its JSON did', undefined, '');
    }
    if (this.mode !== 0) return this.parseComplete();
    // Not a result array: an error, or a null result.
    const text = Buffer.concat(this.parts).toString('utf8');
    this.parts = [];
    let body: { result?: unknown; error?: { code?: number; message?: string; data?: unknown } };
    try {
      body = JSON.parse(text);
    } catch {
      throw new JsonRpcResponseError(
        `eth_getLogs response is not JSON: ${text.slice(0, 200)}`,
        undefined,
        text.slice(0, 200),
      );
    }
    if (body?.error) {
      const e = body.error;
      const data = e.data === undefined ? '' : typeof e.data === 'string' ? e.data : JSON.stringify(e.data);
      throw new JsonRpcResponseError(e.message ?? 'JSON-RPC error', e.code, data);
    }
    if (body?.result === null || body?.result === undefined) return PackedLogs.EMPTY;
    if (!Array.isArray(body.result))
      throw new JsonRpcResponseError('eth_getLogs result is not an array', undefined, '');
    return PackedLogs.of(body.result as RpcLog[]);
  }

  private scan(buf: Buffer, base: number): void {
    const n = buf.length;
    let i = 0;
    // Log fields are hex strings: a chunk without a backslash lets strings be skipped with indexOf.
    const plain = buf.indexOf(BACKSLASH) === -1;
    while (i < n) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          i++;
          continue;
        }
        if (plain) {
          const q = buf.indexOf(QUOTE, i);
          if (q === -1) return;
          this.inString = false;
          this.quotes++;
          i = q + 1;
          continue;
        }
        const c = buf[i]!;
        if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) {
          this.inString = false;
          this.quotes++;
        }
        i++;
        continue;
      }
      const c = buf[i]!;
      if (c === QUOTE) {
        this.inString = true;
        this.quotes++;
      } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        this.depth++;
        if (this.mode === 0 && c === OPEN_ARRAY && this.depth === 2) this.enterResult(base + i);
        else if (this.mode === 1 && this.depth === 3 && this.firstStart < 0) {
          this.firstStart = base + i;
          this.quotesAtFirst = this.quotes;
        }
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        this.depth--;
        if (this.mode === 1) {
          if (this.depth === 2 && c === CLOSE_OBJECT) {
            this.lastEnd = base + i + 1;
            this.quotesAtLast = this.quotes;
            this.complete++;
          } else if (this.depth === 1) this.mode = 2;
        }
      }
      i++;
    }
  }

  /** An array opened at depth 1: the result array when the text before it ends with `"result":`. */
  private enterResult(at: number): void {
    const tail = this.slice(Math.max(this.partsStart, at - 64), at);
    if (!/"result"\s*:\s*$/.test(tail)) return;
    this.mode = 1;
    this.dropBefore(at + 1);
  }

  /** Parses every complete log object not parsed yet; keeps the bytes after the last one. */
  private parseComplete(): PackedLogs {
    if (this.complete === 0) return PackedLogs.EMPTY;
    const joined = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    this.parts = [joined];
    const from = this.firstStart - this.partsStart;
    const to = this.lastEnd - this.partsStart;
    // Between two complete objects there is only a comma and whitespace: the span is an array's body.
    // Escaped quotes are not counted, but a span holding a backslash is JSON.parse's anyway.
    // The logs share `joined`'s bytes: later chunks go to a new buffer (dropBefore keeps a view).
    const logs =
      readPackedLogs(joined, from, to, this.quotesAtLast - this.quotesAtFirst) ??
      PackedLogs.of(JSON.parse(`[${joined.toString('utf8', from, to)}]`) as RpcLog[]);
    this.dropBefore(this.lastEnd);
    this.firstStart = -1;
    this.complete = 0;
    // An object begun after the last complete one (partially received) starts again in the kept bytes
    // (only a comma and whitespace lie between them: no quote).
    if (this.mode === 1 && this.depth >= 3) {
      this.firstStart = this.findObjectStart();
      this.quotesAtFirst = this.quotesAtLast;
    }
    return logs;
  }

  /** Global offset of the `{` opening the partial object at the start of the kept bytes. */
  private findObjectStart(): number {
    const kept = Buffer.concat(this.parts);
    this.parts = [kept];
    const at = kept.indexOf(OPEN_OBJECT);
    return at < 0 ? -1 : this.partsStart + at;
  }

  private slice(from: number, to: number): string {
    const joined = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    this.parts = [joined];
    return joined.toString('utf8', from - this.partsStart, to - this.partsStart);
  }

  private dropBefore(at: number): void {
    const joined = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    this.parts = [joined.subarray(at - this.partsStart)];
    this.partsStart = at;
  }
}

/**
 * Regroups logs (in chain order) into parts of at least `target` logs that end on a transaction
 * boundary: a part is cut at the first boundary after `target` logs, once the transaction there is known
 * to be complete (a later log of another transaction has arrived). A transaction larger than `target`
 * stays whole. `flush` returns what is left.
 */
export class TxChunker {
  /** Logs received and not yet handed out, in order (the first `used` logs of `pending[0]` went out). */
  private pending: PackedLogs[] = [];
  private count = 0;
  constructor(private readonly target: number) {}

  add(logs: PackedLogs): PackedLogs[] {
    if (logs.length > 0) {
      this.pending.push(logs);
      this.count += logs.length;
    }
    const parts: PackedLogs[] = [];
    while (this.count > this.target) {
      const cut = this.cutAfter(this.target);
      if (cut === undefined) break;
      parts.push(this.take(cut));
    }
    return parts;
  }

  /**
   * The number of pending logs up to the end of the transaction of log `n - 1`, when a later log (of
   * another transaction) has arrived; undefined while that transaction may go on.
   */
  private cutAfter(n: number): number | undefined {
    // Find log n - 1, then walk on while the transaction goes on.
    let seg = 0;
    let i = n - 1;
    while (i >= this.pending[seg]!.length) i -= this.pending[seg++]!.length;
    let last = this.pending[seg]!;
    let lastIndex = i;
    let cut = n;
    for (;;) {
      let nextSeg = seg;
      let next = lastIndex + 1;
      if (next >= this.pending[nextSeg]!.length) {
        nextSeg++;
        next = 0;
        if (nextSeg >= this.pending.length) return undefined;
      }
      const candidate = this.pending[nextSeg]!;
      const same =
        candidate === last
          ? last.sameTxAsPrevious(next)
          : last.transactionHash(lastIndex) === candidate.transactionHash(next);
      if (!same) return cut;
      seg = nextSeg;
      last = candidate;
      lastIndex = next;
      cut++;
    }
  }

  /** The first `n` pending logs, as one page. */
  private take(n: number): PackedLogs {
    const out: PackedLogs[] = [];
    let left = n;
    while (left > 0) {
      const p = this.pending[0]!;
      if (p.length <= left) {
        out.push(p);
        this.pending.shift();
        left -= p.length;
      } else {
        out.push(p.slice(0, left));
        this.pending[0] = p.slice(left);
        left = 0;
      }
    }
    this.count -= n;
    return PackedLogs.concat(out);
  }

  flush(): PackedLogs {
    const out = PackedLogs.concat(this.pending);
    this.pending = [];
    this.count = 0;
    return out;
  }
}

/**
 * Pulls `body`'s chunks into memory ahead of the consumer, up to about `capBytes` unconsumed bytes, so
 * the sender (a node writing a large response) is not held up while the consumer parses and maps what
 * came first. Chunks come out in order; a read error comes out after the chunks read before it. Ending
 * the iteration early stops the pulling once the caller closes the request. `capBytes` 0 passes the
 * body through.
 */
export async function* readAhead(
  body: AsyncIterable<Uint8Array>,
  capBytes: number,
): AsyncGenerator<Uint8Array> {
  if (capBytes <= 0) {
    yield* body;
    return;
  }
  const chunks: Uint8Array[] = [];
  let head = 0;
  let held = 0;
  let done = false;
  let failure: { err: unknown } | undefined;
  let stopped = false;
  /** Wakes the consumer (a chunk, the end or an error arrived). */
  let wake: (() => void) | undefined;
  /** Wakes the pump (the consumer drained below the cap, or stopped). */
  let resume: (() => void) | undefined;
  const wakeConsumer = () => {
    const f = wake;
    wake = undefined;
    f?.();
  };
  const resumePump = () => {
    const f = resume;
    resume = undefined;
    f?.();
  };
  // The pump ends by itself: at the body's end or error, when stopped while it waits below the cap, or
  // when the caller's abort of the request fails its pending read (never awaited here: that read may
  // only end with the abort, which the caller does after this generator returns).
  void (async () => {
    try {
      for await (const chunk of body) {
        chunks.push(chunk);
        held += chunk.length;
        wakeConsumer();
        while (held > capBytes && !stopped) await new Promise<void>((r) => (resume = r));
        if (stopped) return;
      }
    } catch (err) {
      failure = { err };
    } finally {
      done = true;
      wakeConsumer();
    }
  })();
  try {
    for (;;) {
      if (head < chunks.length) {
        const chunk = chunks[head]!;
        chunks[head++] = EMPTY;
        if (head > 1024 && head * 2 > chunks.length) {
          chunks.splice(0, head);
          head = 0;
        }
        held -= chunk.length;
        if (held <= capBytes) resumePump();
        yield chunk;
        continue;
      }
      if (done) {
        if (failure) throw failure.err;
        return;
      }
      await new Promise<void>((r) => (wake = r));
    }
  } finally {
    stopped = true;
    resumePump();
  }
}

const EMPTY = new Uint8Array(0);
