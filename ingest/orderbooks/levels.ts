/**
 * Exact decimal arithmetic on book prices (the table's scale, 6 decimals): the complement 1 − p (beta's
 * YES asks from its NO bids) and the best-first order of levels, on integers of 10⁻⁶, never floats.
 */
import { decimal, fromMicros, micros } from '../../core/decimal.ts';
import type { BookLevel } from './store.ts';

const ONE = micros('1');

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
