/**
 * Logs as the bytes they arrived in: a page of `eth_getLogs` results held as one buffer of JSON text plus
 * the offsets of every field of every log (`readPackedLogs`, log-objects.ts, fills them), instead of one
 * object and a dozen strings per log. The mapper reads the hot events (fills, ERC-1155 and collateral
 * transfers) straight from these bytes into insert rows (direct-lane.ts), so most logs never become
 * objects; anything else asks for `log(i)`, the same `RpcLog` JSON.parse would have made.
 *
 * A page can also hold plain log objects (the JSON.parse fallback of the reader, `getLogs` of a
 * non-streaming source, tests): `PackedLogs.of`. Every accessor works on both; only the direct lane
 * needs the bytes (`buf` defined).
 */
import { viewOf } from '../../core/clickhouse/row-binary.ts';
import type { SlabLease } from './slabs.ts';
import type { RpcLog } from './types.ts';

/** Offsets of one log's fields, F int32 per log; strings are [start, end) of their text, -1 when absent. */
export enum Field {
  ObjectStart = 0,
  ObjectEnd,
  AddressStart,
  AddressEnd,
  TopicCount,
  /** Topics k = 0..3 at TopicStart + 2k (start) and + 2k + 1 (end). */
  TopicStart,
  DataStart = TopicStart + 8,
  DataEnd,
  BlockHashStart,
  BlockHashEnd,
  BlockNumberStart,
  BlockNumberEnd,
  BlockTimestampStart,
  BlockTimestampEnd,
  TxHashStart,
  TxHashEnd,
  TxIndexStart,
  TxIndexEnd,
  LogIndexStart,
  LogIndexEnd,
  /** -1: absent, 0: false, 1: true. */
  Removed,
  /** 1 when the previous log of the page has the same transaction hash (0 for a page's first log). */
  SameTxAsPrevious,
  /** 1 when the previous log of the page has the same block number and block hash. */
  SameBlockAsPrevious,
  Count,
}
export const F = Field.Count;
/** The most topics a log can have (EVM LOG0..LOG4). */
export const MAX_TOPICS = 4;

export { viewOf };

/** `Buffer#latin1Slice`: one copy of the bytes into a new string (no encoding lookup). */
type Latin1Slicer = Buffer & { latin1Slice(start: number, end: number): string };

/** Bytes to look for in a buffer, as the big-endian 4-byte words `DataView#getInt32` reads, then the rest. */
export interface WordKey {
  length: number;
  words: Int32Array;
  tail: Uint8Array;
}

export function wordKey(bytes: Uint8Array): WordKey {
  const words = new Int32Array(bytes.length >> 2);
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let w = 0; w < words.length; w++) words[w] = v.getInt32(4 * w);
  return { length: bytes.length, words, tail: bytes.subarray(4 * words.length) };
}

/** True when `buf` holds `key`'s bytes at `at` (the caller knows `key.length` bytes are there). */
export function hasKeyAt(buf: Uint8Array, at: number, key: WordKey): boolean {
  const v = viewOf(buf);
  const words = key.words;
  for (let w = 0; w < words.length; w++, at += 4) if (v.getInt32(at) !== words[w]) return false;
  const tail = key.tail;
  for (let i = 0; i < tail.length; i++) if (buf[at + i] !== tail[i]) return false;
  return true;
}

/** True when `buf[a, a + length)` and `buf[b, b + length)` hold the same bytes. */
export function sameBytes(buf: Uint8Array, a: number, b: number, length: number): boolean {
  const v = viewOf(buf);
  // From the end (hashes of different blocks or transactions differ anywhere; equal ones to the last byte).
  let i = length - 4;
  for (; i >= 0; i -= 4) if (v.getInt32(a + i) !== v.getInt32(b + i)) return false;
  for (i += 3; i >= 0; i--) if (buf[a + i] !== buf[b + i]) return false;
  return true;
}

/** True when field `start` has equal bytes in the logs whose offsets begin at `o` and `p` of `f`. */
function sameFieldOf(buf: Buffer, f: Int32Array, o: number, p: number, start: number): boolean {
  const a = f[o + start]!;
  const n = f[o + start + 1]! - a;
  const b = f[p + start]!;
  return f[p + start + 1]! - b === n && sameBytes(buf, a, b, n);
}

/** A field reused from the previous log while its bytes are equal (log objects share their block's). */
class Interned {
  private at = -1;
  private length = 0;
  private value = '';

  get(buf: Latin1Slicer, start: number, end: number): string {
    const length = end - start;
    if (this.at >= 0 && length === this.length && sameBytes(buf, this.at, start, length)) return this.value;
    this.at = start;
    this.length = length;
    this.value = buf.latin1Slice(start, end);
    return this.value;
  }
}

export class PackedLogs {
  private constructor(
    /** The JSON text (undefined: the logs are objects). */
    readonly buf: Buffer | undefined,
    /** F offsets per log from `base` (buffer-backed only). */
    readonly f: Int32Array,
    /** First log's index in `f` / `objects`. */
    readonly base: number,
    readonly length: number,
    private readonly objects: readonly RpcLog[] | undefined,
    /** The hold on the slab `buf` belongs to (slabs.ts), for a page read into one. */
    private readonly lease?: SlabLease,
  ) {}

  static readonly EMPTY = new PackedLogs(undefined, new Int32Array(0), 0, 0, []);

  /** Logs given as objects. */
  static of(objects: readonly RpcLog[]): PackedLogs {
    return objects.length === 0
      ? PackedLogs.EMPTY
      : new PackedLogs(undefined, new Int32Array(0), 0, objects.length, objects);
  }

  /** `count` logs of `buf` whose offsets are `f` (readPackedLogs). */
  static packed(buf: Buffer, f: Int32Array, count: number): PackedLogs {
    return count === 0 ? PackedLogs.EMPTY : new PackedLogs(buf, f, 0, count, undefined);
  }

  /**
   * Logs [base, base + count) of a slab's offset table `f` over its bytes `buf`, holding `lease` until
   * `release`.
   */
  static leased(buf: Buffer, f: Int32Array, base: number, count: number, lease: SlabLease): PackedLogs {
    return new PackedLogs(buf, f, base, count, undefined, lease);
  }

  /**
   * Gives the page's slab back once nothing reads the page any more (the caller has mapped it: rows
   * hold copies of its bytes). Only the page itself releases: its slices hold no lease, so a slice
   * still in use never sees its bytes reused. Idempotent; a no-op for other pages.
   */
  release(): void {
    this.lease?.release();
  }

  /** Offset `field` of log `i` (buffer-backed logs). */
  at(i: number, field: number): number {
    return this.f[(this.base + i) * F + field]!;
  }

  /** Logs [start, end) (sharing this page's bytes or objects, but not its lease). */
  slice(start: number, end = this.length): PackedLogs {
    const s = Math.max(0, Math.min(start, this.length));
    const e = Math.max(s, Math.min(end, this.length));
    if (s === 0 && e === this.length) return this;
    if (e === s) return PackedLogs.EMPTY;
    return new PackedLogs(this.buf, this.f, this.base + s, e - s, this.objects);
  }

  /**
   * One page of `parts` in order. Buffer-backed parts are copied into one buffer (each part's logs are
   * one contiguous span of its text); when any part holds objects, the page holds objects.
   */
  static concat(parts: readonly PackedLogs[]): PackedLogs {
    const nonEmpty = parts.filter((p) => p.length > 0);
    if (nonEmpty.length === 0) return PackedLogs.EMPTY;
    if (nonEmpty.length === 1) return nonEmpty[0]!;
    if (nonEmpty.some((p) => p.buf === undefined)) {
      const out: RpcLog[] = [];
      for (const p of nonEmpty) for (let i = 0; i < p.length; i++) out.push(p.log(i));
      return PackedLogs.of(out);
    }
    let bytes = 0;
    let count = 0;
    for (const p of nonEmpty) {
      bytes += p.at(p.length - 1, Field.ObjectEnd) - p.at(0, Field.ObjectStart);
      count += p.length;
    }
    const buf = Buffer.allocUnsafe(bytes);
    const f = new Int32Array(count * F);
    let pos = 0;
    let n = 0;
    for (const p of nonEmpty) {
      const start = p.at(0, Field.ObjectStart);
      const end = p.at(p.length - 1, Field.ObjectEnd);
      p.buf!.copy(buf, pos, start, end);
      PackedLogs.moveOffsets(p.f, p.base, f, n, p.length, pos - start);
      n += p.length;
      // The first log of each part after the first: compared with the log before it, now in `buf`.
      if (n > p.length) PackedLogs.link(buf, f, n - p.length);
      pos += end - start;
    }
    return PackedLogs.packed(buf, f, count);
  }

  /**
   * Copies the offsets of `count` logs from index `from` of `src` to index `to` of `dst`, for bytes
   * moved by `delta` (flags and counts are copied as they are).
   */
  static moveOffsets(
    src: Int32Array,
    from: number,
    dst: Int32Array,
    to: number,
    count: number,
    delta: number,
  ): void {
    for (let i = 0; i < count; i++) {
      const s = (from + i) * F;
      const d = (to + i) * F;
      for (let k = 0; k < F; k++) {
        const v = src[s + k]!;
        dst[d + k] = k >= Field.Removed || k === Field.TopicCount || v < 0 ? v : v + delta;
      }
    }
  }

  /** Sets the "same as previous" flags of log `i` of `f` (over `buf`), i > 0. */
  static link(buf: Buffer, f: Int32Array, i: number): void {
    const o = i * F;
    f[o + Field.SameTxAsPrevious] = sameFieldOf(buf, f, o, o - F, Field.TxHashStart) ? 1 : 0;
    f[o + Field.SameBlockAsPrevious] =
      sameFieldOf(buf, f, o, o - F, Field.BlockNumberStart) &&
      sameFieldOf(buf, f, o, o - F, Field.BlockHashStart)
        ? 1
        : 0;
  }

  private text(i: number, startField: number): string {
    const s = this.at(i, startField);
    return (this.buf as Latin1Slicer).latin1Slice(s, this.at(i, startField + 1));
  }

  /** Log `i` as the object JSON.parse makes of it. */
  log(i: number): RpcLog {
    if (this.objects) return this.objects[this.base + i]!;
    return this.materialize(i, undefined);
  }

  *[Symbol.iterator](): IterableIterator<RpcLog> {
    for (let i = 0; i < this.length; i++) yield this.log(i);
  }

  /** Every log as objects (fields equal across logs share one string). */
  toArray(): RpcLog[] {
    if (this.objects) return this.objects.slice(this.base, this.base + this.length);
    const interned = Array.from({ length: 6 }, () => new Interned());
    const out = new Array<RpcLog>(this.length);
    for (let i = 0; i < this.length; i++) out[i] = this.materialize(i, interned);
    return out;
  }

  private materialize(i: number, interned: Interned[] | undefined): RpcLog {
    const b = this.buf as Latin1Slicer;
    const nTopics = this.at(i, Field.TopicCount);
    const topics = new Array<string>(nTopics);
    for (let k = 0; k < nTopics; k++) {
      const s = this.at(i, Field.TopicStart + 2 * k);
      const e = this.at(i, Field.TopicStart + 2 * k + 1);
      topics[k] = k === 0 && interned ? interned[5]!.get(b, s, e) : b.latin1Slice(s, e);
    }
    const removed = this.at(i, Field.Removed);
    // One shape for every log (absent optional fields are undefined, which JSON.stringify omits).
    return {
      address: this.shared(i, Field.AddressStart, interned?.[0]),
      topics,
      data: this.text(i, Field.DataStart),
      blockHash: this.shared(i, Field.BlockHashStart, interned?.[1]),
      blockNumber: this.shared(i, Field.BlockNumberStart, interned?.[2]),
      blockTimestamp:
        this.at(i, Field.BlockTimestampStart) < 0 ? undefined : this.text(i, Field.BlockTimestampStart),
      transactionHash: this.shared(i, Field.TxHashStart, interned?.[3]),
      transactionIndex: this.shared(i, Field.TxIndexStart, interned?.[4]),
      logIndex: this.text(i, Field.LogIndexStart),
      removed: removed < 0 ? undefined : removed === 1,
    };
  }

  /** Field `start` of log `i`, through `interned` when given. */
  private shared(i: number, start: number, interned: Interned | undefined): string {
    return interned
      ? interned.get(this.buf as Latin1Slicer, this.at(i, start), this.at(i, start + 1))
      : this.text(i, start);
  }

  /** True when the bytes of field `start` are equal in logs i and j (buffer-backed). */
  private sameField(i: number, j: number, start: number): boolean {
    const a = this.at(i, start);
    const n = this.at(i, start + 1) - a;
    const b = this.at(j, start);
    return this.at(j, start + 1) - b === n && sameBytes(this.buf!, a, b, n);
  }

  /** Log i (> 0) has the transaction hash of log i - 1. */
  sameTxAsPrevious(i: number): boolean {
    if (this.objects) return this.log(i).transactionHash === this.log(i - 1).transactionHash;
    return this.at(i, Field.SameTxAsPrevious) === 1;
  }

  /** Log i (> 0) has the block number and hash of log i - 1. */
  sameBlockAsPrevious(i: number): boolean {
    if (this.objects) {
      const a = this.log(i);
      const b = this.log(i - 1);
      return a.blockNumber === b.blockNumber && a.blockHash === b.blockHash;
    }
    return this.at(i, Field.SameBlockAsPrevious) === 1;
  }

  /** Logs i and j carry the same block number and block hash. */
  sameBlock(i: number, j: number): boolean {
    if (this.objects) {
      const a = this.log(i);
      const b = this.log(j);
      return a.blockNumber === b.blockNumber && a.blockHash === b.blockHash;
    }
    return this.sameField(i, j, Field.BlockNumberStart) && this.sameField(i, j, Field.BlockHashStart);
  }

  blockNumber(i: number): number {
    return Number.parseInt(this.objects ? this.log(i).blockNumber : this.text(i, Field.BlockNumberStart), 16);
  }

  blockHash(i: number): string {
    return this.objects ? this.log(i).blockHash : this.text(i, Field.BlockHashStart);
  }

  transactionHash(i: number): string {
    return this.objects ? this.log(i).transactionHash : this.text(i, Field.TxHashStart);
  }

  removed(i: number): boolean {
    return this.objects ? this.log(i).removed === true : this.at(i, Field.Removed) === 1;
  }

  /** The distinct block numbers, in first-seen order (a block's logs are contiguous in a page). */
  blocks(): Set<number> {
    const out = new Set<number>();
    for (let i = 0; i < this.length; i++) {
      if (i > 0 && this.sameBlockAsPrevious(i)) continue;
      out.add(this.blockNumber(i));
    }
    return out;
  }
}
