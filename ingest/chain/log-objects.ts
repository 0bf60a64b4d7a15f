/**
 * Logs read straight from the bytes of an `eth_getLogs` response, without JSON.parse: the fast path of
 * `LogArrayReader`. JSON.parse makes a fresh string of every field of every log (≈ 800 bytes of text per
 * log). Here each field is located by a byte scan and kept as offsets into the text (`PackedLogs`,
 * packed-logs.ts): no string or object is made until a log is asked for as an object.
 *
 * The fast path takes only what it reads exactly: an ASCII span without escapes, objects of the known
 * log keys (in any order) with string values, a `topics` array of strings and a boolean `removed`.
 * Anything else (another key, a null, a number, malformed JSON) returns undefined and the caller parses
 * the span with JSON.parse, which yields the same objects (or the same SyntaxError).
 *
 * Fixed-size values (addresses, hashes, topics) are not scanned for their closing quote: where the
 * character one value-length on is a quote, the value is taken to end there. What makes that exact is
 * the span's quote count (the reader counts them as it scans the body): every delimiter the parse used
 * is a quote, so when their number equals the span's count, every quote of the span is a delimiter the
 * parse used and no value it jumped over holds one. Where the counts differ the span is declined.
 */
import { isAscii } from 'node:buffer';
import { F, Field, MAX_TOPICS, PackedLogs } from './packed-logs.ts';
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
/** Start offset field of each string-valued key (its end is the next field). */
const START_FIELD = new Int32Array(STRING_KEYS);
START_FIELD[Key.Address] = Field.AddressStart;
START_FIELD[Key.Data] = Field.DataStart;
START_FIELD[Key.BlockHash] = Field.BlockHashStart;
START_FIELD[Key.BlockNumber] = Field.BlockNumberStart;
START_FIELD[Key.BlockTimestamp] = Field.BlockTimestampStart;
START_FIELD[Key.TransactionHash] = Field.TxHashStart;
START_FIELD[Key.TransactionIndex] = Field.TxIndexStart;
START_FIELD[Key.LogIndex] = Field.LogIndexStart;
/** Fields a log must have for the fast path (topics aside); `blockTimestamp` and `removed` are optional. */
const REQUIRED: readonly number[] = [
  Field.AddressStart,
  Field.DataStart,
  Field.BlockHashStart,
  Field.BlockNumberStart,
  Field.TxHashStart,
  Field.TxIndexStart,
  Field.LogIndexStart,
];

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
/** Known keys by first byte (at most three share one). */
const KEYS_BY_FIRST: { bytes: Buffer; key: Key }[][] = [];
for (const [name, key] of KEYS) {
  const first = name.charCodeAt(0);
  const list = KEYS_BY_FIRST[first] ?? [];
  list.push({ bytes: Buffer.from(name, 'latin1'), key });
  KEYS_BY_FIRST[first] = list;
}
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

/**
 * The known key whose name starts at `start` and is closed by a quote right after it (exact without
 * the quote count: a shorter key would put its closing quote where a name character is expected).
 */
function keyAt(buf: Buffer, start: number): Key {
  const list = KEYS_BY_FIRST[buf[start]!];
  if (list === undefined) return Key.Unknown;
  outer: for (const k of list) {
    const bytes = k.bytes;
    if (buf[start + bytes.length] !== QUOTE) continue;
    for (let i = 1; i < bytes.length; i++) if (buf[start + i] !== bytes[i]) continue outer;
    return k.key;
  }
  return Key.Unknown;
}

/** Index of the quote closing the string whose first character is at `i` (-1 when absent before `end`). */
function closingQuote(buf: Buffer, i: number, end: number): number {
  while (i < end) {
    if (buf[i] === QUOTE) return i;
    i++;
  }
  return -1;
}

/** `closingQuote`, trying first the quote a value of `length` characters would end with. */
function closingQuoteOf(buf: Buffer, i: number, end: number, length: number): number {
  return i + length < end && buf[i + length] === QUOTE ? i + length : closingQuote(buf, i, end);
}

/** Number of quote characters in `buf[start, end)`. */
export function countQuotes(buf: Buffer, start: number, end: number): number {
  let n = 0;
  for (let i = buf.indexOf(QUOTE, start); i !== -1 && i < end; i = buf.indexOf(QUOTE, i + 1)) n++;
  return n;
}

/**
 * The logs of `buf[start, end)`: complete JSON objects separated by commas and whitespace (the body of a
 * `result` array), as offsets into `buf` (the result shares `buf`'s bytes). Undefined when the span is not
 * in the fast path's subset. `quotes` is the number of quote characters in the span (counted here when
 * the caller has not); `count`, when the caller knows it, the number of objects in the span.
 */
export function readPackedLogs(
  buf: Buffer,
  start: number,
  end: number,
  quotes = countQuotes(buf, start, end),
  count?: number,
): PackedLogs | undefined {
  let f = new Int32Array(F * (count ?? 256));
  for (;;) {
    const n = packLogsInto(buf, start, end, quotes, f, 0);
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

/**
 * `readPackedLogs` into a given offset table: the logs of `buf[start, end)` as offsets in `f` from log
 * index `first` on. Returns the number of logs, DECLINED, or NO_ROOM (`f` ends before the span's last
 * log; nothing of it is to be used). Each log is linked to the one before it in the span; the span's
 * first log is not (the caller links it when the log before it in `f` precedes it in the text).
 */
export function packLogsInto(
  buf: Buffer,
  start: number,
  end: number,
  quotes: number,
  f: Int32Array,
  first: number,
): number {
  const span = buf.subarray(start, end);
  if (span.indexOf(BACKSLASH) !== -1 || !isAscii(span)) return DECLINED;
  const b = buf;
  let count = 0;
  /** Quotes the parse used as delimiters. */
  let delimiters = 0;
  let i = start;
  for (;;) {
    while (isSpace(b[i])) i++;
    if (i >= end) break;
    if (count > 0) {
      if (b[i] !== COMMA) return DECLINED;
      i++;
      while (isSpace(b[i])) i++;
    }
    if (b[i] !== OPEN_OBJECT) return DECLINED;
    if ((first + count + 1) * F > f.length) return NO_ROOM;
    const o = (first + count) * F;
    // String fields absent until seen; `removed` absent (-1) unless given.
    f.fill(-1, o, o + F);
    f[o + Field.ObjectStart] = i;
    f[o + Field.TopicCount] = 0;
    i++;
    let hasTopics = false;
    while (isSpace(b[i])) i++;
    if (b[i] === CLOSE_OBJECT) return DECLINED;
    for (;;) {
      if (b[i] !== QUOTE) return DECLINED;
      const key = keyAt(b, i + 1);
      if (key === Key.Unknown) return DECLINED;
      i += KEY_LENGTH[key]! + 2;
      delimiters += 2;
      while (isSpace(b[i])) i++;
      if (b[i] !== COLON) return DECLINED;
      i++;
      while (isSpace(b[i])) i++;
      if (key === Key.Topics) {
        if (b[i] !== OPEN_ARRAY) return DECLINED;
        i++;
        let n = 0;
        hasTopics = true;
        while (isSpace(b[i])) i++;
        if (b[i] === CLOSE_ARRAY) i++;
        else {
          for (;;) {
            if (b[i] !== QUOTE || n === MAX_TOPICS) return DECLINED;
            const q = closingQuoteOf(b, i + 1, end, TOPIC_LENGTH);
            if (q < 0) return DECLINED;
            delimiters += 2;
            f[o + Field.TopicStart + 2 * n] = i + 1;
            f[o + Field.TopicStart + 2 * n + 1] = q;
            n++;
            i = q + 1;
            while (isSpace(b[i])) i++;
            if (b[i] === CLOSE_ARRAY) {
              i++;
              break;
            }
            if (b[i] !== COMMA) return DECLINED;
            i++;
            while (isSpace(b[i])) i++;
          }
        }
        f[o + Field.TopicCount] = n;
      } else if (key === Key.Removed) {
        if (literalAt(b, i, TRUE)) {
          f[o + Field.Removed] = 1;
          i += 4;
        } else if (literalAt(b, i, FALSE)) {
          f[o + Field.Removed] = 0;
          i += 5;
        } else return DECLINED;
      } else {
        if (b[i] !== QUOTE) return DECLINED;
        // Data is long: the native search wins; the other values are short or of a fixed size.
        const q =
          key === Key.Data ? b.indexOf(QUOTE, i + 1) : closingQuoteOf(b, i + 1, end, FIXED_LENGTH[key]!);
        if (q < 0 || q >= end) return DECLINED;
        delimiters += 2;
        const field = START_FIELD[key]!;
        // A key given twice: JSON.parse keeps the last value, and so does this.
        f[o + field] = i + 1;
        f[o + field + 1] = q;
        i = q + 1;
      }
      while (isSpace(b[i])) i++;
      if (b[i] === CLOSE_OBJECT) {
        i++;
        break;
      }
      if (b[i] !== COMMA) return DECLINED;
      i++;
      while (isSpace(b[i])) i++;
    }
    if (i > end) return DECLINED;
    if (!hasTopics) return DECLINED;
    for (const k of REQUIRED) if (f[o + k]! < 0) return DECLINED;
    f[o + Field.ObjectEnd] = i;
    f[o + Field.SameTxAsPrevious] = 0;
    f[o + Field.SameBlockAsPrevious] = 0;
    if (count > 0) PackedLogs.link(buf, f, first + count);
    count++;
  }
  // Every quote of the span was a delimiter of the parse: no value jumped over holds one.
  return delimiters === quotes ? count : DECLINED;
}

/** `readPackedLogs` as log objects (tests and callers that want objects). */
export function readLogObjects(
  buf: Buffer,
  start: number,
  end: number,
  quotes = countQuotes(buf, start, end),
): RpcLog[] | undefined {
  return readPackedLogs(buf, start, end, quotes)?.toArray();
}

function literalAt(buf: Buffer, at: number, literal: Buffer): boolean {
  for (let i = 0; i < literal.length; i++) if (buf[at + i] !== literal[i]) return false;
  return true;
}
