/**
 * An `eth_getLogs` body read into slabs (slabs.ts) as it arrives — a `BodySink`, fed by source.ts —
 * and handed out as pages of at least `partLogs` logs that end on a transaction boundary: the body's
 * chunks are copied into the slab, the logs are located in place as they arrive (`locateInArray`, into
 * the slab's offset table; the bytes before and after the result array go through `ResultScanner`), and
 * each page is a view of the slab holding a lease on it until it is released.
 *
 * A slab is left for the next one when its free space runs out (or its offset table is full): the
 * located logs up to the last transaction start are handed out as a (shorter) page, and the bytes of
 * the last transaction and of the object being read are carried over, so no page spans two slabs. A
 * body outside the fast path's subset (escapes, unknown keys) goes on through `LogArrayReader` and
 * `TxChunker` from the first log not handed out (always a transaction's first).
 */
import { ArrayAt, arrayProgress, DECLINED, locateInArray } from './log-objects.ts';
import {
  endsWithResultKey,
  JsonRpcResponseError,
  LogArrayReader,
  nonResultBody,
  ResultScanner,
  TxChunker,
} from './log-stream.ts';
import { F, Field, PackedLogs } from './packed-logs.ts';
import { MIN_LOG_BYTES, Slab, type SlabPool } from './slabs.ts';

/** The fewest bytes `BodySink.space` holds (a socket read's size). */
export const MIN_SPACE = 64 * 1024;

/** Where a response body goes as it arrives (source.ts copies undici's chunks into it). */
export interface BodySink {
  /** The response head arrived (before any body byte is written). */
  head?(head: ResponseHead): void;
  /** The memory the next body bytes go to (at least MIN_SPACE bytes), starting at its index 0. */
  space(): Buffer;
  /** `n` body bytes were written at the start of `at`, a buffer `space` returned. False pauses the body. */
  wrote(at: Buffer, n: number): boolean;
  /** The body is complete. */
  end(): void;
}

export interface ResponseHead {
  status: number;
  /** Lowercase names; repeated headers joined with ", ". */
  headers: Map<string, string>;
}

/** A response whose status is not 2xx (classifyRpcError reads `status`: 408, 429, 5xx are retryable). */
export class HttpStatusError extends Error {
  override readonly name = 'HttpRequestError';
  constructor(
    readonly status: number,
    text: string,
  ) {
    super(`HTTP ${status} ${text.slice(0, 200)}`);
  }
}

export interface SlabPart {
  logs: PackedLogs;
  /** The body's final page. */
  last: boolean;
}

/**
 * Where a body's first bytes go before its stream is pulled (copied out at once: reads of different
 * sockets never overlap, so one buffer serves every reader). A stream requested ahead holds no slab.
 */
const BEFORE_PULL = Buffer.allocUnsafeSlow(MIN_SPACE);

/** New bytes that make the reader locate logs again (reads of a busy socket are far larger). */
const LOCATE_BYTES = 16 * 1024;

export class SlabLogReader implements BodySink {
  /** Taken at the first pull (or the end of a body read whole before it). */
  private slab!: Slab;
  /** Bytes read before the first pull. */
  private early: Buffer[] | undefined = [];
  /** This reader holds `slab` (it writes into it). */
  private holding = true;
  /** Bytes written into the slab. */
  private w = 0;
  /** The slab cannot take more logs: the next `space` moves on. */
  private full = false;
  /** Logs located in the slab's offset table, and the first of them not handed out. */
  private located = 0;
  private first = 0;
  /** Scans the bytes before the result array (it stops at its `[`) and after it (mode 2). */
  private readonly scanner = new ResultScanner(
    (at) => endsWithResultKey(this.slab.buf.toString('latin1', Math.max(0, at - 64), at)),
    true,
  );
  /** Where locating goes on in the result array (-1: not reached yet), and what is expected there. */
  private arrayAt = -1;
  private expect = ArrayAt.First;
  /** The result array's `]` was read. */
  private closed = false;
  /** `w` at the last attempt to locate. */
  private triedAt = 0;
  private fallback: { reader: LogArrayReader; chunker: TxChunker; space: Buffer } | undefined;
  /** Pages handed out and not yet pulled, with their bytes. */
  private queue: (SlabPart | undefined)[] = [];
  private queueBytes: number[] = [];
  private taken = 0;
  private queued = 0;
  private ended = false;
  private failure: { err: unknown } | undefined;
  private wake: (() => void) | undefined;
  /** Called when reading may go on (the pages waiting fell under the cap, or the first pull). */
  onDrain: (() => void) | undefined;
  /** A status other than 2xx: the body is kept as the error's text. */
  private errorStatus = 0;
  /** Date.now() of the last byte, or of the puller starting to wait; whether it waits. */
  lastActivity = Date.now();
  waiting = false;

  constructor(
    private readonly pool: SlabPool,
    private readonly partLogs: number,
    /** Bytes of pages read ahead of the puller before the socket is paused. */
    private readonly capBytes: number,
    /** Complete objects the fallback's `LogArrayReader` parses at a time. */
    private readonly parseEvery = 1000,
  ) {}

  // --- BodySink -------------------------------------------------------------------------------------

  head(h: ResponseHead): void {
    if (h.status < 200 || h.status >= 300) this.errorStatus = h.status;
  }

  space(): Buffer {
    if (this.early) return BEFORE_PULL;
    if (!this.fallback && (this.full || this.slab.buf.length - this.w < MIN_SPACE)) this.moveOn();
    return this.fallback ? this.fallback.space : this.slab.buf.subarray(this.w);
  }

  wrote(at: Buffer, n: number): boolean {
    this.lastActivity = Date.now();
    if (this.early) {
      this.early.push(Buffer.from(at.subarray(0, n)));
      return false;
    }
    // Bytes not where the next ones go (given before the first pull, or before a move to a new slab):
    // copied there.
    const space = this.space();
    if (at.buffer !== space.buffer || at.byteOffset !== space.byteOffset) at.copy(space, 0, 0, n);
    this.ingest(n);
    return this.queued <= this.capBytes;
  }

  /** `n` bytes arrived at `w` (in the slab, or in the fallback's space). */
  private ingest(n: number): void {
    if (this.errorStatus) this.w += n;
    else if (this.fallback) {
      const f = this.fallback;
      this.add(f.chunker.add(f.reader.push(Buffer.from(f.space.subarray(0, n)))));
    } else {
      const from = this.w;
      this.w += n;
      if (this.arrayAt < 0 || this.closed) {
        const sc = this.scanner;
        sc.scan(this.slab.buf, from, this.w, 0);
        if (this.arrayAt < 0 && sc.mode === 1) this.arrayAt = sc.resultStart;
      }
      // Not after every small read: each attempt reads again the object the bytes end in.
      if (this.arrayAt >= 0 && !this.closed && this.w - this.triedAt >= LOCATE_BYTES) this.locate();
      if (!this.fallback) this.cut();
    }
  }

  /**
   * Moves the bytes read before the first pull into a slab and reads them. A body read whole before
   * its pull (`final`: a small page requested ahead) gets memory of its size, not a pooled slab, which
   * it would hold while it waits its turn.
   */
  private adopt(final: boolean): void {
    const early = this.early;
    if (!early) return;
    this.early = undefined;
    let total = 0;
    for (const b of early) total += b.length;
    this.slab = final ? new Slab(undefined, Math.max(1, total)) : this.pool.take();
    for (const b of early) {
      // (A body can go to the fallback while its first bytes are read.)
      b.copy(this.fallback ? this.fallback.space : this.slab.buf, this.fallback ? 0 : this.w);
      this.ingest(b.length);
    }
  }

  end(): void {
    try {
      this.adopt(true);
      const sc = this.scanner;
      if (!this.errorStatus && !this.fallback && this.arrayAt >= 0 && !this.closed) {
        this.locate();
        while (this.full && !this.fallback) {
          this.moveOn();
          this.locate();
        }
      }
      if (this.errorStatus) {
        throw new HttpStatusError(
          this.errorStatus,
          this.slab.buf.toString('utf8', 0, Math.min(this.w, 1000)),
        );
      } else if (this.fallback) {
        const f = this.fallback;
        this.add(f.chunker.add(f.reader.end()));
        this.push(f.chunker.flush(), true, 0);
      } else if (sc.truncated()) {
        throw new JsonRpcResponseError('eth_getLogs response ended before its JSON did', undefined, '');
      } else if (sc.mode === 0) {
        this.push(nonResultBody(this.slab.buf.toString('utf8', 0, this.w)), true, 0);
        this.letGo();
      } else {
        this.cut();
        this.handOut(this.located, true);
        this.letGo();
      }
      this.ended = true;
    } catch (err) {
      this.failure = { err };
      this.letGo();
    }
    this.notify();
  }

  // --- the puller -----------------------------------------------------------------------------------

  /** The next page; null once the body ended. Throws the body's or the request's failure. */
  async next(): Promise<SlabPart | null> {
    if (this.early) {
      this.adopt(false);
      this.onDrain?.();
    }
    for (;;) {
      if (this.taken < this.queue.length) {
        const part = this.queue[this.taken]!;
        this.queued -= this.queueBytes[this.taken]!;
        this.queue[this.taken++] = undefined;
        if (this.taken > 64 && this.taken * 2 > this.queue.length) {
          this.queue = this.queue.slice(this.taken);
          this.queueBytes = this.queueBytes.slice(this.taken);
          this.taken = 0;
        }
        if (this.queued <= this.capBytes) this.onDrain?.();
        return part;
      }
      if (this.failure) throw this.failure.err;
      if (this.ended) return null;
      this.waiting = true;
      this.lastActivity = Date.now();
      await new Promise<void>((r) => (this.wake = r));
      this.waiting = false;
    }
  }

  /** The request failed: the puller gets `err` after the pages read before it. */
  fail(err: unknown): void {
    if (this.ended || this.failure) return;
    this.failure = { err };
    this.notify();
  }

  /** Releases the pages nobody pulled and the slab (the request was given up or failed). */
  discard(): void {
    this.letGo();
    for (let i = this.taken; i < this.queue.length; i++) this.queue[i]?.logs.release();
    this.queue = [];
    this.queueBytes = [];
    this.taken = 0;
    this.queued = 0;
  }

  // --- inside ---------------------------------------------------------------------------------------

  /** Drops this reader's own hold on its slab (pages handed out keep theirs). */
  private letGo(): void {
    this.early = undefined;
    if (!this.holding || !this.slab) return;
    this.holding = false;
    this.slab.drop();
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  private push(logs: PackedLogs, last: boolean, bytes: number): void {
    this.queue.push({ logs, last });
    this.queueBytes.push(bytes);
    this.queued += bytes;
    this.notify();
  }

  /** Pages of the fallback's chunker. */
  private add(parts: PackedLogs[]): void {
    for (const p of parts) this.push(p, false, p.length * 1000);
  }

  private startOf(i: number): number {
    return this.slab.f[i * F + Field.ObjectStart]!;
  }

  /**
   * Locates the complete log objects read and not located yet (the offset table full: `full`; bytes
   * outside the fast path's subset: the fallback); after the array's `]`, scans the bytes after it.
   */
  private locate(): void {
    if (this.arrayAt < 0 || this.closed || this.full) return;
    this.triedAt = this.w;
    const n = locateInArray(this.slab.buf, this.arrayAt, this.w, this.slab.f, this.located, this.expect);
    if (n === DECLINED) {
      this.toFallback();
      return;
    }
    const p = arrayProgress;
    this.located += n;
    this.arrayAt = p.next;
    this.expect = p.expect;
    if (p.full) this.full = true;
    if (p.closed) {
      this.closed = true;
      // The rest of the response object, at depth 1.
      const sc = this.scanner;
      sc.mode = 2;
      sc.depth = 1;
      sc.scan(this.slab.buf, p.next, this.w, 0);
    }
  }

  /** Hands out pages of at least `partLogs` logs ending where a later located log starts a transaction. */
  private cut(): void {
    const f = this.slab.f;
    while (this.located - this.first > this.partLogs) {
      let j = this.first + this.partLogs;
      while (j < this.located && f[j * F + Field.SameTxAsPrevious] === 1) j++;
      if (j >= this.located) return;
      this.handOut(j, false);
    }
  }

  /** Located logs [first, end) as a page. */
  private handOut(end: number, last: boolean): void {
    const n = end - this.first;
    if (n <= 0 && !last) return;
    const f = this.slab.f;
    const bytes = n > 0 ? f[(end - 1) * F + Field.ObjectEnd]! - this.startOf(this.first) : 0;
    const logs =
      n > 0 ? PackedLogs.leased(this.slab.buf, f, this.first, n, this.slab.retain()) : PackedLogs.EMPTY;
    this.first = end;
    this.push(logs, last, bytes);
  }

  /**
   * Where the bytes still needed begin: all before the result array, then the first log not handed out
   * (one always is, once a log was located: pages end where a later log starts a transaction), else where
   * locating goes on (right after the array's `[`).
   */
  private keptFrom(): number {
    if (this.arrayAt < 0) return 0;
    if (this.first < this.located) return this.startOf(this.first);
    return this.closed ? this.w : this.arrayAt;
  }

  /**
   * Continues in a new slab with the bytes still needed: the last located transaction (it may go on in
   * the next bytes; its logs keep their offsets, moved), the objects not located yet, the one being read.
   */
  private moveOn(): void {
    if (this.arrayAt >= 0) {
      this.locate();
      if (this.fallback) return;
      const f = this.slab.f;
      let lastTx = this.located - 1;
      while (lastTx > this.first && f[lastTx * F + Field.SameTxAsPrevious] === 1) lastTx--;
      if (lastTx > this.first) this.handOut(lastTx, false);
    }
    const from = this.keptFrom();
    const carried = this.w - from;
    const logs = this.located - this.first;
    const next = this.pool.take(
      Math.max(this.pool.slabBytes, 2 * carried + MIN_SPACE, 2 * logs * MIN_LOG_BYTES),
    );
    this.slab.buf.copy(next.buf, 0, from, this.w);
    PackedLogs.moveOffsets(this.slab.f, this.first, next.f, 0, logs, -from);
    if (this.arrayAt >= 0) this.arrayAt = Math.max(0, this.arrayAt - from);
    this.triedAt = Math.max(0, this.triedAt - from);
    this.letGo();
    this.slab = next;
    this.holding = true;
    this.w = carried;
    this.located = logs;
    this.first = 0;
    this.full = false;
  }

  /** Reads on through LogArrayReader and TxChunker, from the first log not handed out. */
  private toFallback(): void {
    const from = this.keptFrom();
    const reader = new LogArrayReader(this.parseEvery);
    const chunker = new TxChunker(this.partLogs);
    this.fallback = { reader, chunker, space: Buffer.allocUnsafe(MIN_SPACE) };
    reader.push(Buffer.from('{"result":['));
    this.add(chunker.add(reader.push(Buffer.from(this.slab.buf.subarray(from, this.w)))));
    this.letGo();
  }
}
