/**
 * Exact decimal arithmetic on book prices (the table's scale, 6 decimals): the complement 1 − p (beta's
 * YES asks from its NO bids) and the best-first order of levels, on integers of 10⁻⁶, never floats.
 */
import type { BookLevel } from './store.ts';
import { decimal } from './store.ts';

const SCALE = 6;
const ONE = 10n ** BigInt(SCALE);

/** A decimal as an integer of 10⁻⁶ (throws like `decimal` on anything else). */
export function micros(value: string | number): bigint {
  const text = decimal(value);
  const neg = text.startsWith('-');
  const [int, frac = ''] = (neg ? text.slice(1) : text).split('.');
  const n = BigInt(int as string) * ONE + BigInt(frac.padEnd(SCALE, '0'));
  return neg ? -n : n;
}

/** An integer of 10⁻⁶ as canonical decimal text. */
export function fromMicros(n: bigint): string {
  const neg = n < 0n;
  const a = neg ? -n : n;
  const text = `${a / ONE}.${(a % ONE).toString().padStart(SCALE, '0')}`;
  return decimal(neg ? `-${text}` : text);
}

/** 1 − `price`, exact. */
export function complement(price: string | number): string {
  return fromMicros(ONE - micros(price));
}

/** A level as served: decimal strings, or JSON numbers (taken through their shortest exact text). */
export interface ServedLevel {
  price: string | number;
  size: string | number;
}

/** Levels as canonical decimals, best first: bids by price descending, asks ascending. */
export function bestFirst(levels: readonly ServedLevel[], side: 'bids' | 'asks'): BookLevel[] {
  const keyed = levels.map((l) => ({
    l: { price: decimal(l.price), size: decimal(l.size) },
    p: micros(l.price),
  }));
  keyed.sort((a, b) => (a.p === b.p ? 0 : a.p < b.p === (side === 'asks') ? -1 : 1));
  return keyed.map((k) => k.l);
}
