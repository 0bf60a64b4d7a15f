/**
 * Logs as the bytes they arrived in: a page of `eth_getLogs` results held as one buffer of JSON text plus
 * the offsets of every field of every log (`readPackedLogs`, log-objects.ts, fills them), instead of one
 * object and a dozen strings per log. This is the one form logs take between the reader and the mapper:
 * the mapper reads the hot events straight from these bytes into insert rows (direct-lane.ts), and
 * anything else asks for `log(i)`, the same `RpcLog` JSON.parse would have made.
 *
 * Logs that arrive as objects (the JSON.parse fallback of the readers, `getLogs` of a non-streaming
 * source, tests) are encoded: `PackedLogs.of` writes them as canonical JSON (the known log keys only,
 * every value a string of printable ASCII) and packs that text with the same fast parse.
 *
 * A log whose fields canonical JSON cannot hold (a required field missing, a value that is not a string,
 * text with characters the fast parse does not take, more than four topics, an element of the result
 * array that is not an object) is not dropped and does not fail its page: each such field is written as
 * a marker string, `!` and what is wrong with it (`!blockNumber is null`), and the page says it holds
 * such logs (`hasDefects`). `!` is not hex, so no reader takes a marker for a value; the mapper
 * quarantines every log `defect(i)` names, with that text as the reason.
 */
import { viewOf } from '../../core/clickhouse/row-binary.ts';
import { readPackedLogs } from './log-objects.ts';
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

/** First byte of a marker string: a field `PackedLogs.of` could not write as it was (see above). */
const MARK = 0x21;
/** Printable ASCII without `"` and `\`: text JSON writes as is and the fast parse takes. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
/** The string-valued log keys in canonical order (topics after `address`), and whether one may be absent. */
const STRING_KEYS: readonly [keyof RpcLog, boolean][] = [
  ['address', false],
  ['data', false],
  ['blockHash', false],
  ['blockNumber', false],
  ['blockTimestamp', true],
  ['transactionHash', false],
  ['transactionIndex', false],
  ['logIndex', false],
];
/** Fields that can hold a marker, in the order `defect` reports them (topics after the address). */
const MARKABLE: readonly Field[] = [
  Field.DataStart,
  Field.BlockHashStart,
  Field.BlockNumberStart,
  Field.BlockTimestampStart,
  Field.TxHashStart,
  Field.TxIndexStart,
  Field.LogIndexStart,
];

/** What is wrong with a value that is not a plain string. */
function defectOf(v: unknown): string {
  if (v === undefined) return 'is missing';
  if (v === null) return 'is null';
  if (typeof v === 'string')
    return v.charCodeAt(0) === MARK
      ? 'starts with an exclamation mark'
      : 'holds characters other than printable ASCII, or a quote or backslash';
  return Array.isArray(v) ? 'is an array' : `is a ${typeof v}`;
}

/**
 * `value` as a canonical JSON string: itself when plain, else the marker `!<name> <defect>`; undefined
 * for an optional value that is absent or null (the key is left out).
 */
function canonical(name: string, value: unknown, optional: boolean): string | undefined {
  if (typeof value === 'string' && PLAIN.test(value) && value.charCodeAt(0) !== MARK) return value;
  if (optional && (value === undefined || value === null)) return undefined;
  return `!${name} ${defectOf(value)}`;
}

/** Log objects as canonical JSON text (the body of a result array); `defects` when a marker was written. */
function canonicalText(objects: readonly unknown[]): { text: string; defects: boolean } {
  const parts = new Array<string>(objects.length);
  let defects = false;
  const q = (s: string) => `"${s}"`;
  for (let i = 0; i < objects.length; i++) {
    const o = objects[i];
    const isLog = typeof o === 'object' && o !== null && !Array.isArray(o);
    const log = (isLog ? o : {}) as Record<string, unknown>;
    const notLog = isLog ? undefined : `!the log ${defectOf(o)}, not an object`;
    const value = (name: string, optional: boolean) => {
      const v = notLog ?? canonical(name, log[name], optional);
      if (v !== undefined && v.charCodeAt(0) === MARK) defects = true;
      return v;
    };
    let topics: string[];
    const t = log.topics;
    if (notLog) topics = [];
    else if (!Array.isArray(t)) topics = [`!topics ${typeof t === 'string' ? 'is a string' : defectOf(t)}`];
    else if (t.length > MAX_TOPICS) topics = [`!topics has ${t.length} entries, at most ${MAX_TOPICS}`];
    else topics = t.map((topic, k) => canonical(`topics[${k}]`, topic, false)!);
    if (topics.some((topic) => topic.charCodeAt(0) === MARK)) defects = true;
    const members: string[] = [];
    for (const [name, optional] of STRING_KEYS) {
      const v = value(name, optional);
      if (v !== undefined) members.push(`${q(name)}:${q(v)}`);
      if (name === 'address') members.push(`"topics":[${topics.map(q).join(',')}]`);
    }
    // Only `true` marks a log removed (what every reader of the objects checked); other values are left out.
    if (log.removed === true || log.removed === false) members.push(`"removed":${log.removed}`);
    parts[i] = `{${members.join(',')}}`;
  }
  return { text: parts.join(','), defects };
}

export class PackedLogs {
  private constructor(
    /** The JSON text of the logs (a result array's body, or a slab's bytes). */
    readonly buf: Buffer,
    /** F offsets per log from `base`. */
    readonly f: Int32Array,
    /** First log's index in `f`. */
    readonly base: number,
    readonly length: number,
    /** Some log holds a marker (written by `of`): the mapper asks `defect(i)` of every log. */
    readonly hasDefects: boolean,
    /** The hold on the slab `buf` belongs to (slabs.ts), for a page read into one. */
    private readonly lease?: SlabLease,
  ) {}

  static readonly EMPTY = new PackedLogs(Buffer.alloc(0), new Int32Array(0), 0, 0, false);

  /**
   * Logs given as objects (or whatever a result array held), written as canonical JSON and packed by
   * the fast parse; fields it cannot hold become markers (see above). Other keys are left out.
   */
  static of(objects: readonly unknown[]): PackedLogs {
    if (objects.length === 0) return PackedLogs.EMPTY;
    const { text, defects } = canonicalText(objects);
    const buf = Buffer.from(text, 'latin1');
    const packed = readPackedLogs(buf, 0, buf.length, objects.length);
    if (packed === undefined || packed.length !== objects.length)
      throw new Error('PackedLogs.of: the fast parse declined canonical log JSON');
    return defects ? new PackedLogs(buf, packed.f, 0, packed.length, true) : packed;
  }

  /** `count` logs of `buf` whose offsets are `f` (readPackedLogs). */
  static packed(buf: Buffer, f: Int32Array, count: number): PackedLogs {
    return count === 0 ? PackedLogs.EMPTY : new PackedLogs(buf, f, 0, count, false);
  }

  /**
   * Logs [base, base + count) of a slab's offset table `f` over its bytes `buf`, holding `lease` until
   * `release`.
   */
  static leased(buf: Buffer, f: Int32Array, base: number, count: number, lease: SlabLease): PackedLogs {
    return new PackedLogs(buf, f, base, count, false, lease);
  }

  /**
   * Gives the page's slab back once nothing reads the page any more (the caller has mapped it: rows
   * hold copies of its bytes). Only the page itself releases: its slices hold no lease, so a slice
   * still in use never sees its bytes reused. Idempotent; a no-op for other pages.
   */
  release(): void {
    this.lease?.release();
  }

  /** Offset `field` of log `i`. */
  at(i: number, field: number): number {
    return this.f[(this.base + i) * F + field]!;
  }

  /** Logs [start, end) (sharing this page's bytes, but not its lease). */
  slice(start: number, end = this.length): PackedLogs {
    const s = Math.max(0, Math.min(start, this.length));
    const e = Math.max(s, Math.min(end, this.length));
    if (s === 0 && e === this.length) return this;
    if (e === s) return PackedLogs.EMPTY;
    return new PackedLogs(this.buf, this.f, this.base + s, e - s, this.hasDefects);
  }

  /**
   * One page of `parts` in order, copied into one buffer (each part's logs are one contiguous span of
   * its text).
   */
  static concat(parts: readonly PackedLogs[]): PackedLogs {
    const nonEmpty = parts.filter((p) => p.length > 0);
    if (nonEmpty.length === 0) return PackedLogs.EMPTY;
    if (nonEmpty.length === 1) return nonEmpty[0]!;
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
      p.buf.copy(buf, pos, start, end);
      PackedLogs.moveOffsets(p.f, p.base, f, n, p.length, pos - start);
      n += p.length;
      // The first log of each part after the first: compared with the log before it, now in `buf`.
      if (n > p.length) PackedLogs.link(buf, f, n - p.length);
      pos += end - start;
    }
    return new PackedLogs(
      buf,
      f,
      0,
      count,
      nonEmpty.some((p) => p.hasDefects),
    );
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
    return this.materialize(i, undefined);
  }

  *[Symbol.iterator](): IterableIterator<RpcLog> {
    for (let i = 0; i < this.length; i++) yield this.log(i);
  }

  /** Every log as objects (fields equal across logs share one string). */
  toArray(): RpcLog[] {
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

  /**
   * What `of` could not write of log `i` (the text of its first marker), undefined for a log without
   * markers; at once undefined on a page that holds none.
   */
  defect(i: number): string | undefined {
    if (!this.hasDefects) return undefined;
    const b = this.buf;
    const marked = (start: number) => {
      const s = this.at(i, start);
      return s >= 0 && s < this.at(i, start + 1) && b[s] === MARK ? this.text(i, start).slice(1) : undefined;
    };
    let d = marked(Field.AddressStart);
    for (let k = 0; d === undefined && k < this.at(i, Field.TopicCount); k++)
      d = marked(Field.TopicStart + 2 * k);
    for (let k = 0; d === undefined && k < MARKABLE.length; k++) d = marked(MARKABLE[k]!);
    return d;
  }

  /** True when the bytes of field `start` are equal in logs i and j. */
  private sameField(i: number, j: number, start: number): boolean {
    const a = this.at(i, start);
    const n = this.at(i, start + 1) - a;
    const b = this.at(j, start);
    return this.at(j, start + 1) - b === n && sameBytes(this.buf, a, b, n);
  }

  /** Log i (> 0) has the transaction hash of log i - 1. */
  sameTxAsPrevious(i: number): boolean {
    return this.at(i, Field.SameTxAsPrevious) === 1;
  }

  /** Log i (> 0) has the block number and hash of log i - 1. */
  sameBlockAsPrevious(i: number): boolean {
    return this.at(i, Field.SameBlockAsPrevious) === 1;
  }

  /** Logs i and j carry the same block number and block hash. */
  sameBlock(i: number, j: number): boolean {
    return this.sameField(i, j, Field.BlockNumberStart) && this.sameField(i, j, Field.BlockHashStart);
  }

  /** The block number of log `i` (NaN when its text is not hex: a marker, or a node's bad value). */
  blockNumber(i: number): number {
    return Number.parseInt(this.text(i, Field.BlockNumberStart), 16);
  }

  blockHash(i: number): string {
    return this.text(i, Field.BlockHashStart);
  }

  transactionHash(i: number): string {
    return this.text(i, Field.TxHashStart);
  }

  removed(i: number): boolean {
    return this.at(i, Field.Removed) === 1;
  }

  /**
   * The distinct block numbers, in first-seen order (a block's logs are contiguous in a page); a block
   * number that is not hex is left out (its log names no block: the mapper quarantines it).
   */
  blocks(): Set<number> {
    const out = new Set<number>();
    for (let i = 0; i < this.length; i++) {
      if (i > 0 && this.sameBlockAsPrevious(i)) continue;
      const n = this.blockNumber(i);
      if (!Number.isNaN(n)) out.add(n);
    }
    return out;
  }
}
