/**
 * Logs read straight from the bytes of an `eth_getLogs` response, without JSON.parse: the fast path of
 * `LogArrayReader`. JSON.parse makes a fresh string of every field of every log (≈ 800 bytes of text per
 * log). Here each field is located by a byte scan and kept as offsets into the text (`PackedLogs`,
 * packed-logs.ts): no string or object is made until a log is asked for as an object.
 *
 * The fast path takes only what it reads exactly: an ASCII span without escapes, objects of the known
 * log keys (in any order) with string values, a `topics` array of strings and a boolean `removed`.
 * Anything else (another key, a null, a number, malformed JSON) returns undefined: the caller parses the
 * span with JSON.parse (which throws its SyntaxError on malformed JSON) and packs the objects with
 * `PackedLogs.of`, which writes them as canonical JSON this parse takes (packed-logs.ts).
 *
 * Fixed-size values (addresses, hashes, topics) are not searched byte by byte for their closing quote:
 * where the character one value-length on is a quote and the value's bytes hold none (`noQuote`, four
 * bytes at a time), the value ends there. Every other string ends at the first quote after its start. So
 * every string ends where JSON's does, and the parse needs no count of the body's quotes: the slab
 * reader locates logs as the bytes arrive (`locateInArray`) without scanning them first.
 */
import { isAscii } from 'node:buffer';
import { F, Field, hasKeyAt, MAX_TOPICS, PackedLogs, viewOf, type WordKey, wordKey } from './packed-logs.ts';
import type { RpcLog } from './types.ts';

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

enum Key {
  Unknown,
  Address,
  Topics,
  Data,
  BlockHash,
  BlockNumber,
  BlockTimestamp,
  TransactionHash,
  TransactionIndex,
  LogIndex,
  Removed,
}
/** Keys up to here have string values (their bounds are kept by key). */
const STRING_KEYS = Key.LogIndex + 1;
/**
 * Start offset field of each string-valued key (its end is the next field), and the fields a log must
 * have for the fast path (topics aside; `blockTimestamp` and `removed` are optional). Filled on the first
 * parse, not at load, like KEYS_BY_FIRST: packed-logs.ts imports this module (`PackedLogs.of` packs with
 * the fast parse), so when it is loaded first, its `Field` and `wordKey` are not ready while this loads.
 */
const START_FIELD = new Int32Array(STRING_KEYS);
let REQUIRED: readonly number[] = [];
function fieldTables(): void {
  if (REQUIRED.length > 0) return;
  for (const [name, key] of KEYS) {
    const first = name.charCodeAt(0);
    const list = KEYS_BY_FIRST[first] ?? [];
    list.push({ length: name.length, rest: wordKey(Buffer.from(name.slice(1), 'latin1')), key });
    KEYS_BY_FIRST[first] = list;
  }
  START_FIELD[Key.Address] = Field.AddressStart;
  START_FIELD[Key.Data] = Field.DataStart;
  START_FIELD[Key.BlockHash] = Field.BlockHashStart;
  START_FIELD[Key.BlockNumber] = Field.BlockNumberStart;
  START_FIELD[Key.BlockTimestamp] = Field.BlockTimestampStart;
  START_FIELD[Key.TransactionHash] = Field.TxHashStart;
  START_FIELD[Key.TransactionIndex] = Field.TxIndexStart;
  START_FIELD[Key.LogIndex] = Field.LogIndexStart;
  REQUIRED = [
    Field.AddressStart,
    Field.DataStart,
    Field.BlockHashStart,
    Field.BlockNumberStart,
    Field.TxHashStart,
    Field.TxIndexStart,
    Field.LogIndexStart,
  ];
}

const KEYS: [string, Key][] = [
  ['address', Key.Address],
  ['topics', Key.Topics],
  ['data', Key.Data],
  ['blockHash', Key.BlockHash],
  ['blockNumber', Key.BlockNumber],
  ['blockTimestamp', Key.BlockTimestamp],
  ['transactionHash', Key.TransactionHash],
  ['transactionIndex', Key.TransactionIndex],
  ['logIndex', Key.LogIndex],
  ['removed', Key.Removed],
];
/**
 * Known keys by first byte (at most three share one): the name after its first byte, and the key
 * (filled with the field tables).
 */
const KEYS_BY_FIRST: { length: number; rest: WordKey; key: Key }[][] = [];
/** Characters between the quotes of a fixed-size value by key (0: variable); topics are 66 too. */
const FIXED_LENGTH = new Int32Array(STRING_KEYS);
FIXED_LENGTH[Key.Address] = 42;
FIXED_LENGTH[Key.BlockHash] = 66;
FIXED_LENGTH[Key.TransactionHash] = 66;
const TOPIC_LENGTH = 66;
/** Name length by key. */
const KEY_LENGTH = new Int32Array(Key.Removed + 1);
for (const [name, key] of KEYS) KEY_LENGTH[key] = name.length;

const TRUE = Buffer.from('true', 'latin1');
const FALSE = Buffer.from('false', 'latin1');

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The first position from `i` on that is not whitespace (`end` at most). */
function skipSpace(b: Buffer, i: number, end: number): number {
  while (i < end && isSpace(b[i])) i++;
  return i;
}

/** `keyAt`: the bytes end before the key's closing quote could be seen. */
const SHORT_KEY = -1;

/**
 * The known key whose name starts at `start` and is closed by a quote right after it (exact: a shorter
 * key would put its closing quote where a name character is expected), SHORT_KEY when a known key could
 * still be there but `end` comes first.
 */
function keyAt(buf: Buffer, start: number, end: number): Key | typeof SHORT_KEY {
  const list = KEYS_BY_FIRST[buf[start]!];
  if (list === undefined || start >= end) return start >= end ? SHORT_KEY : Key.Unknown;
  let short = false;
  for (const k of list) {
    if (start + k.length >= end) {
      short = true;
      continue;
    }
    if (buf[start + k.length] === QUOTE && hasKeyAt(buf, start + 1, k.rest)) return k.key;
  }
  return short ? SHORT_KEY : Key.Unknown;
}

/** Index of the quote closing the string whose first character is at `i` (-1 when absent before `end`). */
function closingQuote(buf: Buffer, i: number, end: number): number {
  while (i < end) {
    if (buf[i] === QUOTE) return i;
    i++;
  }
  return -1;
}

/**
 * True when `buf[start, end)` holds no quote: 4 bytes at a time, a word XOR `""""` has a zero byte
 * exactly where a quote was, and `(x - 0x01010101) & ~x & 0x80808080` is non-zero exactly when a byte
 * of `x` is zero.
 */
function noQuote(buf: Buffer, start: number, end: number): boolean {
  const v = viewOf(buf);
  let i = start;
  for (; i + 4 <= end; i += 4) {
    const x = v.getInt32(i) ^ 0x22222222;
    if (((x - 0x01010101) & ~x & 0x80808080) !== 0) return false;
  }
  for (; i < end; i++) if (buf[i] === QUOTE) return false;
  return true;
}

/**
 * `closingQuote` of a value expected to be `length` characters long: where the character one length on
 * is a quote and none comes before it (checked a word at a time), the value ends there.
 */
function closingQuoteOf(buf: Buffer, i: number, end: number, length: number): number {
  return i + length < end && buf[i + length] === QUOTE && noQuote(buf, i, i + length)
    ? i + length
    : closingQuote(buf, i, end);
}

/**
 * The logs of `buf[start, end)`: complete JSON objects separated by commas and whitespace (the body of a
 * `result` array), as offsets into `buf` (the result shares `buf`'s bytes). Undefined when the span is not
 * in the fast path's subset. `count`, when the caller knows it, is the number of objects in the span.
 */
export function readPackedLogs(
  buf: Buffer,
  start: number,
  end: number,
  count?: number,
): PackedLogs | undefined {
  let f = new Int32Array(F * (count ?? 256));
  for (;;) {
    const n = packLogsInto(buf, start, end, f, 0);
    if (n === NO_ROOM) {
      f = new Int32Array(f.length * 2);
      continue;
    }
    return n < 0 ? undefined : PackedLogs.packed(buf, f, n);
  }
}

/** `packLogsInto`: the span is not in the fast path's subset. */
export const DECLINED = -1;
/** `packLogsInto`: `f` has no room for every log of the span. */
export const NO_ROOM = -2;
/** `parseObject`: the bytes end before the object does. */
const SHORT = -3;

/** The span holds no escape and only ASCII (what the fast path reads exactly). */
function plainAscii(buf: Buffer, start: number, end: number): boolean {
  const span = buf.subarray(start, end);
  return span.indexOf(BACKSLASH) === -1 && isAscii(span);
}

/**
 * `readPackedLogs` into a given offset table: the logs of `buf[start, end)` as offsets in `f` from log
 * index `first` on. Returns the number of logs, DECLINED, or NO_ROOM (`f` ends before the span's last
 * log; nothing of it is to be used). Each log is linked to the one before it in the span; the span's
 * first log is not (the caller links it when the log before it in `f` precedes it in the text).
 */
export function packLogsInto(buf: Buffer, start: number, end: number, f: Int32Array, first: number): number {
  fieldTables();
  if (!plainAscii(buf, start, end)) return DECLINED;
  let count = 0;
  let i = start;
  for (;;) {
    i = skipSpace(buf, i, end);
    if (i >= end) break;
    if (count > 0) {
      if (buf[i] !== COMMA) return DECLINED;
      i = skipSpace(buf, i + 1, end);
    }
    if (buf[i] !== OPEN_OBJECT || i >= end) return DECLINED;
    if ((first + count + 1) * F > f.length) return NO_ROOM;
    const next = parseObject(buf, i, end, f, (first + count) * F);
    if (next < 0) return DECLINED;
    if (count > 0) PackedLogs.link(buf, f, first + count);
    count++;
    i = next;
  }
  return count;
}

/** What `locateInArray` expects at its position: an element or the end, `,` or the end, an element. */
export enum ArrayAt {
  First,
  AfterObject,
  AfterComma,
}

/** Where `locateInArray` stopped: the position to go on from and what it expects there. */
export const arrayProgress = {
  next: 0,
  expect: ArrayAt.First,
  /** The array's `]` was read (`next` is after it). */
  closed: false,
  /** `f` has no room for the next log. */
  full: false,
};

/**
 * Logs of a result array read as its bytes arrive: from `at` (where `expect` holds) up to `end`, every
 * complete log object is located into `f` from index `first` on and linked to the log before it in `f`
 * (when `first` > 0). Stops at the first object the bytes end in, at the array's end, or when `f` is
 * full (`arrayProgress` says which and where to go on); returns the number of logs located, or DECLINED
 * when the bytes are not in the fast path's subset.
 */
export function locateInArray(
  buf: Buffer,
  at: number,
  end: number,
  f: Int32Array,
  first: number,
  expect: ArrayAt,
): number {
  const state = arrayProgress;
  state.closed = false;
  state.full = false;
  fieldTables();
  if (!plainAscii(buf, at, end)) return DECLINED;
  let count = 0;
  let i = at;
  for (;;) {
    const j = skipSpace(buf, i, end);
    if (j >= end) break;
    const c = buf[j];
    if (c === CLOSE_ARRAY && expect !== ArrayAt.AfterComma) {
      state.closed = true;
      i = j + 1;
      break;
    }
    if (expect === ArrayAt.AfterObject) {
      if (c !== COMMA) return DECLINED;
      expect = ArrayAt.AfterComma;
      i = j + 1;
      continue;
    }
    if (c !== OPEN_OBJECT) return DECLINED;
    if ((first + count + 1) * F > f.length) {
      state.full = true;
      break;
    }
    const next = parseObject(buf, j, end, f, (first + count) * F);
    if (next === SHORT) break;
    if (next < 0) return DECLINED;
    if (first + count > 0) PackedLogs.link(buf, f, first + count);
    count++;
    i = next;
    expect = ArrayAt.AfterObject;
  }
  state.next = i;
  state.expect = expect;
  return count;
}

/**
 * Locates the log object whose `{` is at `i` into `f` from `o` on: returns the position after its `}`,
 * DECLINED (not in the fast path's subset) or SHORT (`end` comes before the object's end). No byte at or
 * after `end` is read.
 */
function parseObject(b: Buffer, i: number, end: number, f: Int32Array, o: number): number {
  // String fields absent until seen; `removed` absent (-1) unless given.
  f.fill(-1, o, o + F);
  f[o + Field.ObjectStart] = i;
  f[o + Field.TopicCount] = 0;
  let hasTopics = false;
  i = skipSpace(b, i + 1, end);
  if (i >= end) return SHORT;
  if (b[i] === CLOSE_OBJECT) return DECLINED;
  for (;;) {
    if (b[i] !== QUOTE) return DECLINED;
    const key = keyAt(b, i + 1, end);
    if (key === SHORT_KEY) return SHORT;
    if (key === Key.Unknown) return DECLINED;
    i = skipSpace(b, i + KEY_LENGTH[key]! + 2, end);
    if (i >= end) return SHORT;
    if (b[i] !== COLON) return DECLINED;
    i = skipSpace(b, i + 1, end);
    if (i >= end) return SHORT;
    if (key === Key.Topics) {
      if (b[i] !== OPEN_ARRAY) return DECLINED;
      i = skipSpace(b, i + 1, end);
      if (i >= end) return SHORT;
      let n = 0;
      hasTopics = true;
      if (b[i] === CLOSE_ARRAY) i++;
      else {
        for (;;) {
          if (b[i] !== QUOTE || n === MAX_TOPICS) return DECLINED;
          const q = closingQuoteOf(b, i + 1, end, TOPIC_LENGTH);
          if (q < 0) return SHORT;
          f[o + Field.TopicStart + 2 * n] = i + 1;
          f[o + Field.TopicStart + 2 * n + 1] = q;
          n++;
          i = skipSpace(b, q + 1, end);
          if (i >= end) return SHORT;
          if (b[i] === CLOSE_ARRAY) {
            i++;
            break;
          }
          if (b[i] !== COMMA) return DECLINED;
          i = skipSpace(b, i + 1, end);
          if (i >= end) return SHORT;
        }
      }
      f[o + Field.TopicCount] = n;
    } else if (key === Key.Removed) {
      const literal = b[i] === TRUE[0] ? TRUE : b[i] === FALSE[0] ? FALSE : undefined;
      if (literal === undefined) return DECLINED;
      if (i + literal.length > end) return SHORT;
      if (!literalAt(b, i, literal)) return DECLINED;
      f[o + Field.Removed] = literal === TRUE ? 1 : 0;
      i += literal.length;
    } else {
      if (b[i] !== QUOTE) return DECLINED;
      // Data is long: the native search wins; the other values are short or of a fixed size.
      const q =
        key === Key.Data ? b.indexOf(QUOTE, i + 1) : closingQuoteOf(b, i + 1, end, FIXED_LENGTH[key]!);
      if (q < 0 || q >= end) return SHORT;
      const field = START_FIELD[key]!;
      // A key given twice: JSON.parse keeps the last value, and so does this.
      f[o + field] = i + 1;
      f[o + field + 1] = q;
      i = q + 1;
    }
    i = skipSpace(b, i, end);
    if (i >= end) return SHORT;
    if (b[i] === CLOSE_OBJECT) {
      i++;
      break;
    }
    if (b[i] !== COMMA) return DECLINED;
    i = skipSpace(b, i + 1, end);
    if (i >= end) return SHORT;
  }
  if (!hasTopics) return DECLINED;
  for (const k of REQUIRED) if (f[o + k]! < 0) return DECLINED;
  f[o + Field.ObjectEnd] = i;
  f[o + Field.SameTxAsPrevious] = 0;
  f[o + Field.SameBlockAsPrevious] = 0;
  return i;
}

/** `readPackedLogs` as log objects (tests and callers that want objects). */
export function readLogObjects(buf: Buffer, start: number, end: number): RpcLog[] | undefined {
  return readPackedLogs(buf, start, end)?.toArray();
}

function literalAt(buf: Buffer, at: number, literal: Buffer): boolean {
  for (let i = 0; i < literal.length; i++) if (buf[at + i] !== literal[i]) return false;
  return true;
}
