/**
 * ClickHouse's RowBinary format: every value
 * in column order, little-endian, no separators; a String is its UTF-8 length as an unsigned LEB128
 * varint followed by its bytes. The engine parses it with little more than copies (≈ 40 % less engine
 * time per alpha_fills row than TabSeparated, measured in docs/chain-ingestion.md), and nothing needs
 * escaping. A `ByteWriter` grows one buffer; the typed writers below are the only way values get in.
 * A `ByteReader` reads the values back with the same method names (rows written column by column, read
 * as objects: core/clickhouse/table.ts `rowBinaryDecoder`).
 */

/** A 64-bit amount: a number when it is a safe integer, else its decimal string. */
export type U64 = number | string;

/**
 * A view of the buffer last compared (the slab or body every log of a page shares), for 4-byte reads: a
 * hash compares in 17 reads instead of 66. It keeps that one buffer reachable until another is compared.
 */
let viewed: Uint8Array | undefined;
let view: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));

/** A DataView of `buf` (the last one made, while `buf` is the last buffer asked for). */
export function viewOf(buf: Uint8Array): DataView {
  if (buf !== viewed) {
    view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    viewed = buf;
  }
  return view;
}

const EMPTY = Buffer.alloc(0);

/**
 * Buffer's own latin1 writer (what `buf.write(s, offset, 'latin1')` ends in, without its argument
 * parsing, which cost more than the copy for the ~70-character strings written here), when present.
 */
type Latin1Writer = (this: Buffer, s: string, offset: number) => number;
const latin1Write: Latin1Writer =
  typeof (Buffer.prototype as unknown as { latin1Write?: unknown }).latin1Write === 'function'
    ? (Buffer.prototype as unknown as { latin1Write: Latin1Writer }).latin1Write
    : function (this: Buffer, s: string, offset: number) {
        return this.write(s, offset, 'latin1');
      };
const TWO_32 = 4_294_967_296;
/**
 * ASCII lowercase by byte. A lookup, not a comparison: hex digits and letters alternate at random, so a
 * branch on the byte's range mispredicts often (measured ~4x slower over hashes).
 */
const LOWER = new Uint8Array(256);
for (let c = 0; c < 256; c++) LOWER[c] = c >= 0x41 && c <= 0x5a ? c | 0x20 : c;

/** Given-back buffers a writer keeps (about the inserts a table has in flight). */
const MAX_SPARES = 2;

export class ByteWriter {
  private buf: Buffer = EMPTY;
  /** A view of `buf` for 4-byte writes. */
  private view: DataView<ArrayBufferLike> = new DataView(EMPTY.buffer, EMPTY.byteOffset, 0);
  /** Bytes written. */
  pos = 0;
  /** Size of the last buffer handed over: the next one starts there (no regrowth, no idle memory). */
  private lastBytes = 0;

  constructor(private readonly initialBytes = 1 << 20) {}

  /** Buffers handed over by `take` and given back by `recycle`, for the next batches. */
  private spares: Buffer[] = [];
  /** The memory of every buffer this writer allocated (what `recycle` accepts). */
  private readonly owned = new WeakSet<ArrayBufferLike>();

  /** Makes room for `n` more bytes. */
  private reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const fresh = this.pos === 0 ? Math.max(this.initialBytes, this.lastBytes + (this.lastBytes >> 3)) : 0;
    const size = Math.max(fresh, this.buf.length + (this.buf.length >> 1), this.pos + n);
    if (this.pos === 0) {
      // A fresh batch reuses a given-back buffer when one is large enough (no new memory to fault in,
      // no external allocation to count towards the JS heap's next full collection).
      const spare = this.spares.pop();
      if (spare !== undefined && spare.length >= size) {
        this.use(spare);
        return;
      }
    }
    // Never from the shared pool of small buffers: a buffer given back must be this writer's alone.
    const next = Buffer.allocUnsafeSlow(size);
    this.owned.add(next.buffer);
    this.buf.copy(next, 0, 0, this.pos);
    this.use(next);
  }

  private use(buf: Buffer): void {
    this.buf = buf;
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  u8(v: number): void {
    this.reserve(1);
    this.buf[this.pos++] = v;
  }

  /** Int8 and Enum8 codes (two's complement byte). */
  i8(v: number): void {
    this.reserve(1);
    this.buf[this.pos++] = v & 0xff;
  }

  bool(v: boolean): void {
    this.u8(v ? 1 : 0);
  }

  u32(v: number): void {
    if (!(v >= 0 && v < TWO_32 && Number.isInteger(v))) throw new RangeError(`UInt32 value ${v}`);
    this.reserve(4);
    this.word32(v, this.pos);
    this.pos += 4;
  }

  /** UInt64 from an exact amount: a safe integer, or a decimal string above 2^53 (`U64`). */
  u64(v: U64 | bigint): void {
    if (typeof v === 'number' && v >= 0 && Number.isSafeInteger(v)) {
      this.lowHigh(v >>> 0, (v - (v >>> 0)) / TWO_32);
      return;
    }
    const big = BigInt(v);
    if (big < 0n || big > 0xffff_ffff_ffff_ffffn) throw new RangeError(`UInt64 value ${v}`);
    this.lowHigh(Number(big & 0xffff_ffffn), Number(big >> 32n));
  }

  /** An Int64 (a number when safe, else a decimal string or a bigint). */
  i64(v: number | string | bigint): void {
    if (typeof v === 'number' && Number.isSafeInteger(v)) {
      const big = BigInt.asUintN(64, BigInt(v));
      this.lowHigh(Number(big & 0xffff_ffffn), Number(big >> 32n));
      return;
    }
    const big = BigInt(v);
    if (big < -(1n << 63n) || big >= 1n << 63n) throw new RangeError(`Int64 value ${v}`);
    const u = BigInt.asUintN(64, big);
    this.lowHigh(Number(u & 0xffff_ffffn), Number(u >> 32n));
  }

  /** A Nullable(UInt64) from a value or null. */
  nullableU64(v: U64 | bigint | null | undefined): void {
    if (v === null || v === undefined) {
      this.u8(1);
      return;
    }
    this.u8(0);
    this.u64(v);
  }

  /** A Nullable(DateTime64(3)) from epoch milliseconds or null. */
  nullableDateTime64ms(ms: number | null | undefined): void {
    if (ms === null || ms === undefined) {
      this.u8(1);
      return;
    }
    this.u8(0);
    this.dateTime64ms(ms);
  }

  /** DateTime64(3) from epoch milliseconds (an Int64 of ms). */
  dateTime64ms(ms: number): void {
    if (!(ms >= 0 && Number.isSafeInteger(ms))) throw new RangeError(`DateTime64(3) value ${ms}`);
    this.lowHigh(ms >>> 0, (ms - (ms >>> 0)) / TWO_32);
  }

  private lowHigh(low: number, high: number): void {
    this.reserve(8);
    this.word32(low, this.pos);
    this.word32(high, this.pos + 4);
    this.pos += 8;
  }

  /** The low 32 bits of `v`, little-endian, at `p` (room reserved by the caller). */
  private word32(v: number, p: number): void {
    const b = this.buf;
    b[p] = v;
    b[p + 1] = v >>> 8;
    b[p + 2] = v >>> 16;
    b[p + 3] = v >>> 24;
  }

  /**
   * A String of single-byte characters: the hex, decimal and enum values of the decoders and the node's
   * hashes. Written as latin1, one byte per character, so the length prefix is exact whatever the text
   * holds (a character above 0xff could only be mangled, never break the framing).
   */
  ascii(s: string): void {
    const n = s.length;
    this.reserve(n + 5);
    const p = this.varint(n, this.pos);
    this.pos = p + latin1Write.call(this.buf, s, p);
  }

  /**
   * A String copied from ASCII bytes `src[start, end)`, letters lowercased (what `toLowerCase` makes
   * of ASCII text): hashes and hex read straight from a response (direct-lane.ts).
   */
  lowerBytes(src: Buffer, start: number, end: number, prefix0x = false): void {
    const n = end - start + (prefix0x ? 2 : 0);
    this.reserve(n + 5);
    const b = this.buf;
    let p = this.varint(n, this.pos);
    if (prefix0x) {
      b[p++] = 0x30;
      b[p++] = 0x78;
    }
    this.pos = this.lowerInto(src, start, end, p);
  }

  /**
   * `src[start, end)` lowercased at `p` (room reserved by the caller); returns the end. Four bytes at a
   * time: with t = x & 0x7f7f7f7f, (t + 0x3f3f3f3f) sets a byte's top bit when its low 7 bits are ≥ 0x41,
   * (t + 0x25252525) when they are ≥ 0x5b (no carry crosses a byte), and ~x keeps bytes below 0x80: the
   * top bits left mark exactly the bytes 'A'..'Z', and shifted down two they are the 0x20 that lowers
   * them. The bytes left over go through the table.
   */
  private lowerInto(src: Buffer, start: number, end: number, p: number): number {
    const s = viewOf(src);
    const d = this.view;
    let i = start;
    for (; i + 4 <= end; i += 4, p += 4) {
      const x = s.getInt32(i);
      const t = x & 0x7f7f7f7f;
      d.setInt32(p, x | (((t + 0x3f3f3f3f) & ~(t + 0x25252525) & ~x & 0x80808080) >>> 2));
    }
    const b = this.buf;
    for (; i < end; i++) b[p++] = LOWER[src[i]!]!;
    return p;
  }

  /**
   * Starts a String of exactly `n` bytes, whose bytes the next `rawAscii` / `rawLower` calls append
   * (the length prefix goes first, so the caller counts the bytes before it writes them).
   */
  stringOf(n: number): void {
    this.reserve(n + 5);
    this.pos = this.varint(n, this.pos);
  }

  /** Single-byte text without a length prefix (a piece of a `stringOf` string). */
  rawAscii(s: string): void {
    this.reserve(s.length);
    this.pos += latin1Write.call(this.buf, s, this.pos);
  }

  /** ASCII bytes `src[start, end)`, letters lowercased, without a length prefix (a piece of `stringOf`). */
  rawLower(src: Buffer, start: number, end: number): void {
    this.reserve(end - start);
    this.pos = this.lowerInto(src, start, end, this.pos);
  }

  /** A UInt64 given as its low and high 32 bits. */
  u64Parts(low: number, high: number): void {
    this.lowHigh(low, high);
  }

  /** A Nullable(String) of single-byte characters: the null flag, then the string unless null. */
  nullableAscii(s: string | null | undefined): void {
    if (s === null || s === undefined) {
      this.u8(1);
      return;
    }
    this.u8(0);
    this.ascii(s);
  }

  /** An Array(String) of single-byte characters. */
  asciiArray(values: readonly string[]): void {
    this.arrayLength(values.length);
    for (const v of values) this.ascii(v);
  }

  /** An Array(UInt64) of exact amounts. */
  u64Array(values: readonly (U64 | bigint)[]): void {
    this.arrayLength(values.length);
    for (const v of values) this.u64(v);
  }

  private arrayLength(n: number): void {
    this.reserve(5);
    this.pos = this.varint(n, this.pos);
  }

  /** A String of any text, as UTF-8. */
  str(s: string): void {
    const bytes = Buffer.byteLength(s, 'utf8');
    this.reserve(bytes + 5);
    const p = this.varint(bytes, this.pos);
    this.pos = p + this.buf.write(s, p, 'utf8');
  }

  /** Text as UTF-8 bytes, as is (no length prefix): lines of a text format. */
  raw(s: string): void {
    this.reserve(s.length * 3);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  /** Bytes already encoded (another writer's rows). */
  bytes(b: Uint8Array): void {
    this.reserve(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Writes `n` as an unsigned LEB128 varint at `p` (room reserved by the caller); returns the end. */
  private varint(n: number, p: number): number {
    const b = this.buf;
    while (n >= 0x80) {
      b[p++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    b[p++] = n;
    return p;
  }

  /**
   * Gives back bytes `take` handed over, once their reader is done with them: their buffer may hold a
   * later batch. Never pass bytes someone still reads.
   */
  recycle(bytes: Buffer): void {
    const whole = bytes.buffer;
    // Only a buffer of this writer's own, not detached by a transfer.
    if (!this.owned.has(whole) || whole.byteLength === 0 || this.spares.length >= MAX_SPARES) return;
    this.spares.push(Buffer.from(whole, 0, whole.byteLength));
  }

  /** The bytes written from `start` on, without a copy: valid until the next write. */
  bytesFrom(start: number): Buffer {
    return this.buf.subarray(start, this.pos);
  }

  /** The bytes written so far; the writer is empty afterwards (handed-over bytes are never written again). */
  take(): Buffer {
    const out = this.buf.subarray(0, this.pos);
    this.lastBytes = this.pos;
    this.use(EMPTY);
    this.pos = 0;
    return out;
  }
}

/** Codes of an Enum8 column, by name; an unknown name is an error, never a silent 0. */
export function enum8(name: string, codes: Record<string, number>): (w: ByteWriter, v: unknown) => void {
  const map = new Map(Object.entries(codes));
  return (w, v) => {
    const code = map.get(v as string);
    if (code === undefined)
      throw new RangeError(`${name}: ${String(v)} is not one of ${[...map.keys()].join(', ')}`);
    w.i8(code);
  };
}

/**
 * Reads RowBinary values from `buf` at `pos` on, each method the counterpart of ByteWriter's of the same
 * name: integers as numbers, a UInt64 as a number up to 2^53 - 1 and its decimal string above (`U64`),
 * DateTime64(3) as Unix ms, strings as latin1 (`ascii`) or UTF-8 (`str`), Nullable as null.
 */
export class ByteReader {
  constructor(
    private readonly buf: Buffer,
    public pos = 0,
  ) {}

  private need(n: number): number {
    const at = this.pos;
    if (at + n > this.buf.length)
      throw new RangeError(`RowBinary: ${n} bytes wanted at ${at} of ${this.buf.length}`);
    this.pos = at + n;
    return at;
  }

  u8(): number {
    return this.buf[this.need(1)]!;
  }

  i8(): number {
    return this.buf.readInt8(this.need(1));
  }

  bool(): boolean {
    return this.u8() !== 0;
  }

  u32(): number {
    return this.buf.readUInt32LE(this.need(4));
  }

  u64(): U64 {
    const at = this.need(8);
    const low = this.buf.readUInt32LE(at);
    const high = this.buf.readUInt32LE(at + 4);
    // Below 2^21 in the high word the value is at most 2^53 - 1: exact as a number.
    return high < 0x20_0000 ? high * TWO_32 + low : ((BigInt(high) << 32n) | BigInt(low)).toString();
  }

  /** An Int64: a number when safe, else its decimal string. */
  i64(): number | string {
    const at = this.need(8);
    const big = this.buf.readBigInt64LE(at);
    return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(big)
      : big.toString();
  }

  nullableDateTime64ms(): number | null {
    return this.u8() === 1 ? null : this.dateTime64ms();
  }

  nullableU64(): U64 | null {
    return this.u8() === 1 ? null : this.u64();
  }

  dateTime64ms(): number {
    const at = this.need(8);
    return this.buf.readUInt32LE(at + 4) * TWO_32 + this.buf.readUInt32LE(at);
  }

  /** An unsigned LEB128 varint (a String's or an Array's length). */
  private varint(): number {
    let n = 0;
    let shift = 1;
    for (;;) {
      const b = this.u8();
      n += (b & 0x7f) * shift;
      if (b < 0x80) return n;
      shift *= 128;
    }
  }

  ascii(): string {
    const n = this.varint();
    const at = this.need(n);
    return this.buf.toString('latin1', at, at + n);
  }

  str(): string {
    const n = this.varint();
    const at = this.need(n);
    return this.buf.toString('utf8', at, at + n);
  }

  nullableAscii(): string | null {
    return this.u8() === 1 ? null : this.ascii();
  }

  asciiArray(): string[] {
    const n = this.varint();
    const out = new Array<string>(n);
    for (let i = 0; i < n; i++) out[i] = this.ascii();
    return out;
  }

  u64Array(): U64[] {
    const n = this.varint();
    const out = new Array<U64>(n);
    for (let i = 0; i < n; i++) out[i] = this.u64();
    return out;
  }
}
