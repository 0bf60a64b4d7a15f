/**
 * Reading ABI words straight from hex strings: the fast path for hot events (a word is 64 hex
 * characters after the `0x`). Nothing here allocates more than the strings it returns.
 */
import type { U64 } from './types.ts';

export const ZERO_WORD = '0'.repeat(64);
export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
export const ZERO_BYTES32 = `0x${ZERO_WORD}`;

/** Raised when a value does not fit its column: the log is quarantined, never truncated. */
export class AmountOverflowError extends Error {
  override readonly name = 'AmountOverflowError';
}

/** Raised when a log's data or topics do not have the event's layout. */
export class BadLogError extends Error {
  override readonly name = 'BadLogError';
}

/** Word `i` of `data` (no 0x), as 64 hex characters. */
export function word(data: string, i: number): string {
  return data.slice(2 + 64 * i, 66 + 64 * i);
}

/**
 * The 32-byte word at byte `at` of `data` (any alignment: ABI offsets are byte counts), as 64 hex
 * characters; throws when it does not lie wholly inside the `size` bytes of data.
 */
export function wordAt(data: string, at: number, size: number): string {
  if (at + 32 > size) throw new BadLogError(`word at byte ${at} is past the end of ${size} bytes of data`);
  return data.slice(2 + 2 * at, 66 + 2 * at);
}

/** Byte length of `data`; throws when it is not 0x-prefixed hex of whole bytes. */
export function byteLength(data: string): number {
  if (data.length % 2 !== 0 || !data.startsWith('0x'))
    throw new BadLogError('data is not whole bytes of hex');
  return (data.length - 2) / 2;
}

/** Number of 32-byte words in `data`; throws when the length is not a whole number of words. */
export function wordCount(data: string): number {
  const hexLen = data.length - 2;
  if (hexLen % 64 !== 0 || !data.startsWith('0x')) throw new BadLogError(`data length ${hexLen / 2} bytes`);
  return hexLen / 64;
}

/**
 * `compute` through a cache of at most `max` entries (emptied when full): for values derived from hex
 * words that recur across logs.
 */
function cached(max: number, compute: (w: string) => string): (w: string) => string {
  const cache = new Map<string, string>();
  return (w) => {
    let v = cache.get(w);
    if (v === undefined) {
      v = compute(w);
      if (cache.size >= max) cache.clear();
      cache.set(w, v);
    }
    return v;
  };
}

/**
 * An address from a 32-byte topic or word (lowercase), through a bounded cache: the same wallets and
 * contracts recur across logs, and a cached address is one string (flattened by its first write)
 * instead of a slice, a lowercased copy and a concatenation per log.
 */
export const addressOf: (w: string) => string = cached(50_000, (w) => {
  // Topics carry the 0x prefix (66 chars); bare words have 64.
  const s = w.length === 66 ? w.slice(26) : w.slice(24);
  return `0x${s.toLowerCase()}`;
});

const ZERO_51 = '0'.repeat(51);

/** A uint256 word as a decimal string. */
export function uintString(w: string): string {
  // Most values (amounts, index sets) fit 52 bits: a float parse is exact there and skips the BigInt.
  if (w.startsWith(ZERO_51)) return `${Number.parseInt(w.slice(51), 16)}`;
  return BigInt(`0x${w}`).toString(10);
}

/**
 * A uint256 id word (outcome token ids: a few thousand distinct values carried by most hot logs) as a
 * decimal string, through a bounded cache: the BigInt round trip of a 256-bit value costs more than the
 * rest of the log's decoding.
 */
export const idString: (w: string) => string = cached(100_000, uintString);

/** A uint256 word as a small number (indexes, slot counts); throws if above 2^53. */
export function uintSmall(w: string): number {
  const v = Number.parseInt(w, 16);
  if (!Number.isSafeInteger(v)) throw new AmountOverflowError(`value 0x${w} exceeds 2^53`);
  return v;
}

const ZERO_48 = '0'.repeat(48);

/** A uint256 word that must fit UInt64: a number when safe, else a decimal string. */
export function u64(w: string): U64 {
  if (w.length !== 64) throw new BadLogError('truncated word');
  if (!w.startsWith(ZERO_48)) throw new AmountOverflowError(`amount 0x${w} exceeds UInt64`);
  const low = w.slice(48);
  const v = Number.parseInt(low, 16);
  return v <= Number.MAX_SAFE_INTEGER ? v : BigInt(`0x${low}`).toString(10);
}

/**
 * A uint256 amount the mapper narrows later (toU64): a number when it is a safe integer, else its
 * decimal string, whatever its size. Equal to the decimal string after normalization, and unlike
 * `u64` it never throws, so an oversized amount is judged where the slow path judges it.
 */
export function uintAmount(w: string): U64 {
  return w.startsWith(ZERO_48) ? u64(w) : uintString(w);
}

/** Compares two U64 values exactly. */
export function u64Equal(a: U64, b: U64): boolean {
  return typeof a === typeof b ? a === b : String(a) === String(b);
}

/** Division of two U64 values as a float (price = collateral ÷ shares). */
export function ratio(num: U64, den: U64): number {
  const d = Number(den);
  return d === 0 ? 0 : Number(num) / d;
}

/** A bytes32 word as lowercase 0x hex. */
export function bytes32(w: string): string {
  return `0x${w.toLowerCase()}`;
}

/** A bytes32 that means "none" when zero: '' for zero, else 0x hex. */
export function optionalBytes32(w: string): string {
  return w === ZERO_WORD ? '' : `0x${w.toLowerCase()}`;
}

/** Hex quantity ("0x1a") to number. */
export function hexNumber(q: string): number {
  return Number.parseInt(q, 16);
}
