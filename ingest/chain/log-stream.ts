/**
 * The byte scan of an `eth_getLogs` body (`ResultScanner`: nesting, strings, the `result` array, JSON-RPC
 * errors) and the path for bodies outside the fast parse's subset. The slab reader (slab-reader.ts) goes
 * on through `LogArrayReader` from the first log it cannot locate in place (escapes, unknown keys):
 * `LogArrayReader` scans the bytes as they arrive and packs the `result` array's complete objects in small
 * batches (log-objects.ts; a batch the fast parse declines is parsed by JSON.parse and packed by
 * `PackedLogs.of`), so at most one chunk and one batch are held at a time; `TxChunker` regroups the logs
 * into parts of about `target` logs that never split a transaction (the mapper attributes events within
 * a transaction). A dense block (~220,000 logs, ~220 MB of JSON) never has to fit the heap whole.
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
 * The byte scan of an `eth_getLogs` body: nesting, strings and quotes, the `result` array, and the
 * complete log objects in it not consumed yet. Positions are `base` + index in the buffer scanned (a
 * reader's own coordinates); `isResult(at)` says whether the array opened at `at` (at depth 1) is the
 * `result` array.
 */
export class ResultScanner {
  /** Nesting outside strings: 1 inside the response object, 2 inside the result array, 3 in a log. */
  depth = 0;
  inString = false;
  private escaped = false;
  /** 0: before the result array, 1: inside it, 2: after it. */
  mode: 0 | 1 | 2 = 0;
  /** Start of the log object being read. */
  objectStart = -1;
  /** First complete log object not consumed (-1: none) and the end of the last one; their count. */
  firstStart = -1;
  lastEnd = -1;
  complete = 0;

  /** Where the result array's elements begin (after its `[`), once `stopAtResult` stopped there. */
  resultStart = -1;

  /**
   * `stopAtResult`: scanning stops right after the result array's `[` (mode 1; `resultStart`): the
   * caller reads the array itself, then sets mode 2 at depth 1 for the bytes after its `]`.
   */
  constructor(
    private readonly isResult: (at: number) => boolean,
    private readonly stopAtResult = false,
  ) {}

  /** Scans `buf[from, to)`, whose index `i` is position `base + i`. */
  scan(buf: Buffer, from: number, to: number, base: number): void {
    let i = from;
    // Log fields are hex strings: a span without a backslash lets strings be skipped with indexOf
    // (in a view that ends with the span: a string open at its end is not searched past it).
    const span = buf.subarray(0, to);
    const plain = span.indexOf(BACKSLASH, from) === -1;
    while (i < to) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          i++;
          continue;
        }
        if (plain) {
          const q = span.indexOf(QUOTE, i);
          if (q === -1) return;
          this.inString = false;
          i = q + 1;
          continue;
        }
        const c = buf[i]!;
        if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) this.inString = false;
        i++;
        continue;
      }
      const c = buf[i]!;
      if (c === QUOTE) this.inString = true;
      else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        this.depth++;
        if (this.mode === 0 && c === OPEN_ARRAY && this.depth === 2) {
          if (this.isResult(base + i)) {
            this.mode = 1;
            if (this.stopAtResult) {
              this.resultStart = base + i + 1;
              return;
            }
          }
        } else if (this.mode === 1 && this.depth === 3) {
          this.objectStart = base + i;
        }
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        this.depth--;
        if (this.mode === 1) {
          if (this.depth === 2 && c === CLOSE_OBJECT) {
            this.lastEnd = base + i + 1;
            this.complete++;
            if (this.firstStart < 0) this.firstStart = this.objectStart;
            this.objectStart = -1;
          } else if (this.depth === 1) this.mode = 2;
        }
      }
      i++;
    }
  }

  /** The complete objects were consumed (parsed). */
  consumed(): void {
    this.firstStart = -1;
    this.complete = 0;
  }

  /** `end` would cut the JSON short (a string, the result array or the response left open). */
  truncated(): boolean {
    return this.inString || this.mode === 1 || (this.mode === 2 && this.depth !== 0);
  }
}

/** `text`, a whole body that is not `{..., "result": [ {log}, ... ], ...}`: an error or a null result. */
export function nonResultBody(text: string): PackedLogs {
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
  return PackedLogs.of(body.result);
}

/** The text before an array opened at `at` ends with `"result":`. */
export function endsWithResultKey(tail: string): boolean {
  return /"result"\s*:\s*$/.test(tail);
}

/**
 * Feed the body's bytes with `push`, then call `end`; both return the logs completed so far, packed.
 * A body that is not `{..., "result": [ {log}, ... ], ...}` (an error, a null result) is kept whole and
 * parsed at `end`, where a JSON-RPC error is thrown as `JsonRpcResponseError`.
 */
export class LogArrayReader {
  private readonly scanner = new ResultScanner((at) => this.enterResult(at));
  /** Bytes not yet parsed, from global offset `partsStart`. */
  private parts: Buffer[] = [];
  private partsStart = 0;
  /** Global offset of the next byte pushed. */
  private offset = 0;

  /** `parseEvery`: complete objects that trigger a parse (1,000 logs ≈ 1 MB of text). */
  constructor(private readonly parseEvery = 1000) {}

  push(chunk: Uint8Array): PackedLogs {
    const buf = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const base = this.offset;
    this.offset += buf.length;
    if (this.scanner.mode !== 2) this.parts.push(buf);
    this.scanner.scan(buf, 0, buf.length, base);
    return this.scanner.complete >= this.parseEvery ? this.parseComplete() : PackedLogs.EMPTY;
  }

  end(): PackedLogs {
    if (this.scanner.truncated()) {
      throw new JsonRpcResponseError('eth_getLogs response ended before its JSON did', undefined, '');
    }
    if (this.scanner.mode !== 0) return this.parseComplete();
    const text = Buffer.concat(this.parts).toString('utf8');
    this.parts = [];
    return nonResultBody(text);
  }

  /** An array opened at depth 1: the result array when the text before it ends with `"result":`. */
  private enterResult(at: number): boolean {
    if (!endsWithResultKey(this.slice(Math.max(this.partsStart, at - 64), at))) return false;
    this.dropBefore(at + 1);
    return true;
  }

  /** Parses every complete log object not parsed yet; keeps the bytes after the last one. */
  private parseComplete(): PackedLogs {
    const sc = this.scanner;
    if (sc.complete === 0) return PackedLogs.EMPTY;
    const joined = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    this.parts = [joined];
    const from = sc.firstStart - this.partsStart;
    const to = sc.lastEnd - this.partsStart;
    // Between two complete objects there is only a comma and whitespace: the span is an array's body.
    // A span the fast parse declines (escapes, other keys, numbers, nulls) is JSON.parse's, its logs
    // written again as canonical JSON (PackedLogs.of).
    // The logs share `joined`'s bytes: later chunks go to a new buffer (dropBefore keeps a view).
    const logs =
      readPackedLogs(joined, from, to, sc.complete) ??
      PackedLogs.of(JSON.parse(`[${joined.toString('utf8', from, to)}]`) as unknown[]);
    this.dropBefore(sc.lastEnd);
    sc.consumed();
    return logs;
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
