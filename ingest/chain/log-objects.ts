/**
 * Log objects read straight from the bytes of an `eth_getLogs` response, without JSON.parse: the fast
 * path of `LogArrayReader`. JSON.parse makes a fresh string of every field of every log (≈ 800 bytes
 * of text per log), though a block's logs share their block hash and number, a transaction's logs share
 * its hash and index, and consecutive logs often share their emitter and event topic. Here each field is
 * located by a byte scan, a field equal to the same field of the previous log reuses that log's string,
 * and only the rest become new strings (each a copy of its own bytes, never a slice of a larger text).
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
/** Fields a log must have for the fast path (topics aside); `blockTimestamp` and `removed` are optional. */
const REQUIRED: readonly Key[] = [
  Key.Address,
  Key.Data,
  Key.BlockHash,
  Key.BlockNumber,
  Key.TransactionHash,
  Key.TransactionIndex,
  Key.LogIndex,
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

/** `Buffer#latin1Slice`: one copy of the bytes into a new string (no encoding lookup). */
type Latin1Slicer = Buffer & { latin1Slice(start: number, end: number): string };

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function sameBytes(buf: Buffer, a: number, b: number, length: number): boolean {
  for (let i = length - 1; i >= 0; i--) if (buf[a + i] !== buf[b + i]) return false;
  return true;
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

/** A field reused from the previous log while its bytes are equal. */
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

/**
 * The log objects of `buf[start, end)`: complete JSON objects separated by commas and whitespace (the
 * body of a `result` array). Undefined when the span is not in the fast path's subset. `quotes` is the
 * number of quote characters in the span (counted here when the caller has not).
 */
export function readLogObjects(
  buf: Buffer,
  start: number,
  end: number,
  quotes = countQuotes(buf, start, end),
): RpcLog[] | undefined {
  if (buf.subarray(start, end).indexOf(BACKSLASH) !== -1 || !isAscii(buf.subarray(start, end)))
    return undefined;
  const b = buf as Latin1Slicer;
  const blockHashes = new Interned();
  const blockNumbers = new Interned();
  const blockTimestamps = new Interned();
  const txHashes = new Interned();
  const txIndexes = new Interned();
  const addresses = new Interned();
  const topic0s = new Interned();
  const logs: RpcLog[] = [];
  const topicBounds: number[] = [];
  const starts = new Int32Array(STRING_KEYS);
  const ends = new Int32Array(STRING_KEYS);
  /** Quotes the parse used as delimiters. */
  let delimiters = 0;
  let i = start;
  for (;;) {
    while (isSpace(b[i])) i++;
    if (i >= end) break;
    if (logs.length > 0) {
      if (b[i] !== COMMA) return undefined;
      i++;
      while (isSpace(b[i])) i++;
    }
    if (b[i] !== OPEN_OBJECT) return undefined;
    i++;
    // Value bounds of the string fields by key (-1: absent), and the topics' bounds in topicBounds.
    starts.fill(-1);
    let hasTopics = false;
    let removed: boolean | undefined;
    while (isSpace(b[i])) i++;
    if (b[i] === CLOSE_OBJECT) return undefined;
    for (;;) {
      if (b[i] !== QUOTE) return undefined;
      const key = keyAt(b, i + 1);
      if (key === Key.Unknown) return undefined;
      i += KEY_LENGTH[key]! + 2;
      delimiters += 2;
      while (isSpace(b[i])) i++;
      if (b[i] !== COLON) return undefined;
      i++;
      while (isSpace(b[i])) i++;
      if (key === Key.Topics) {
        if (b[i] !== OPEN_ARRAY) return undefined;
        i++;
        topicBounds.length = 0;
        hasTopics = true;
        while (isSpace(b[i])) i++;
        if (b[i] === CLOSE_ARRAY) i++;
        else {
          for (;;) {
            if (b[i] !== QUOTE) return undefined;
            const q = closingQuoteOf(b, i + 1, end, TOPIC_LENGTH);
            if (q < 0) return undefined;
            delimiters += 2;
            topicBounds.push(i + 1, q);
            i = q + 1;
            while (isSpace(b[i])) i++;
            if (b[i] === CLOSE_ARRAY) {
              i++;
              break;
            }
            if (b[i] !== COMMA) return undefined;
            i++;
            while (isSpace(b[i])) i++;
          }
        }
      } else if (key === Key.Removed) {
        if (literalAt(b, i, TRUE)) {
          removed = true;
          i += 4;
        } else if (literalAt(b, i, FALSE)) {
          removed = false;
          i += 5;
        } else return undefined;
      } else {
        if (b[i] !== QUOTE) return undefined;
        // Data is long: the native search wins; the other values are short or of a fixed size.
        const q =
          key === Key.Data ? b.indexOf(QUOTE, i + 1) : closingQuoteOf(b, i + 1, end, FIXED_LENGTH[key]!);
        if (q < 0 || q >= end) return undefined;
        delimiters += 2;
        starts[key] = i + 1;
        ends[key] = q;
        i = q + 1;
      }
      while (isSpace(b[i])) i++;
      if (b[i] === CLOSE_OBJECT) {
        i++;
        break;
      }
      if (b[i] !== COMMA) return undefined;
      i++;
      while (isSpace(b[i])) i++;
    }
    if (i > end) return undefined;
    if (!hasTopics) return undefined;
    for (const k of REQUIRED) if (starts[k]! < 0) return undefined;
    const topics: string[] = new Array(topicBounds.length / 2);
    for (let k = 0; k < topicBounds.length; k += 2) {
      topics[k / 2] =
        k === 0
          ? topic0s.get(b, topicBounds[0]!, topicBounds[1]!)
          : b.latin1Slice(topicBounds[k]!, topicBounds[k + 1]!);
    }
    // One shape for every log (absent optional fields are undefined, which JSON.stringify omits).
    logs.push({
      address: addresses.get(b, starts[Key.Address]!, ends[Key.Address]!),
      topics,
      data: b.latin1Slice(starts[Key.Data]!, ends[Key.Data]!),
      blockHash: blockHashes.get(b, starts[Key.BlockHash]!, ends[Key.BlockHash]!),
      blockNumber: blockNumbers.get(b, starts[Key.BlockNumber]!, ends[Key.BlockNumber]!),
      blockTimestamp:
        starts[Key.BlockTimestamp]! < 0
          ? undefined
          : blockTimestamps.get(b, starts[Key.BlockTimestamp]!, ends[Key.BlockTimestamp]!),
      transactionHash: txHashes.get(b, starts[Key.TransactionHash]!, ends[Key.TransactionHash]!),
      transactionIndex: txIndexes.get(b, starts[Key.TransactionIndex]!, ends[Key.TransactionIndex]!),
      logIndex: b.latin1Slice(starts[Key.LogIndex]!, ends[Key.LogIndex]!),
      removed,
    });
  }
  // Every quote of the span was a delimiter of the parse: no value jumped over holds one.
  return delimiters === quotes ? logs : undefined;
}

function literalAt(buf: Buffer, at: number, literal: Buffer): boolean {
  for (let i = 0; i < literal.length; i++) if (buf[at + i] !== literal[i]) return false;
  return true;
}
