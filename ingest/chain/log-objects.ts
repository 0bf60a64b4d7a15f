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
/** Known keys by byte length (at most two share a length). */
const KEYS_BY_LENGTH: { bytes: Buffer; key: Key }[][] = [];
for (const [name, key] of KEYS) {
  const list = KEYS_BY_LENGTH[name.length] ?? [];
  list.push({ bytes: Buffer.from(name, 'latin1'), key });
  KEYS_BY_LENGTH[name.length] = list;
}

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

function keyAt(buf: Buffer, start: number, end: number): Key {
  const list = KEYS_BY_LENGTH[end - start];
  if (list === undefined) return Key.Unknown;
  outer: for (const k of list) {
    const bytes = k.bytes;
    for (let i = 0; i < bytes.length; i++) if (buf[start + i] !== bytes[i]) continue outer;
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
 * body of a `result` array). Undefined when the span is not in the fast path's subset.
 */
export function readLogObjects(buf: Buffer, start: number, end: number): RpcLog[] | undefined {
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
      const keyEnd = closingQuote(b, i + 1, end);
      if (keyEnd < 0) return undefined;
      const key = keyAt(b, i + 1, keyEnd);
      i = keyEnd + 1;
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
            const q = closingQuote(b, i + 1, end);
            if (q < 0) return undefined;
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
      } else if (key !== Key.Unknown) {
        if (b[i] !== QUOTE) return undefined;
        // Data is long: the native search wins; the other values are short.
        const q = key === Key.Data ? b.indexOf(QUOTE, i + 1) : closingQuote(b, i + 1, end);
        if (q < 0 || q >= end) return undefined;
        starts[key] = i + 1;
        ends[key] = q;
        i = q + 1;
      } else return undefined;
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
  return logs;
}

function literalAt(buf: Buffer, at: number, literal: Buffer): boolean {
  for (let i = 0; i < literal.length; i++) if (buf[at + i] !== literal[i]) return false;
  return true;
}
