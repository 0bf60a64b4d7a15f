/**
 * Paging helpers shared by the replicas, including the paging faults: 'duplicate_page' serves the
 * previous page's records again, 'overlap_page' starts half a page early and 'skip_page' half a page late
 * (the records in between are never served on this read). In every case the position
 * the client moves to next (offset or cursor) is the one it would get without the fault, as real
 * upstreams with these bugs do.
 */
import type { Fault } from './faults.ts';
import { HttpError } from './http.ts';

export interface Page<T> {
  items: T[];
  /** Offset of the next page, or null when this page reaches the end. */
  nextOffset: number | null;
}

/** Applies offset/limit to a list, honouring a paging fault. */
export function offsetPage<T>(
  all: readonly T[],
  offset: number,
  limit: number,
  fault: Fault | null,
): Page<T> {
  let start = offset;
  if (fault?.kind === 'duplicate_page') start = Math.max(0, offset - limit);
  else if (fault?.kind === 'overlap_page') start = Math.max(0, offset - Math.max(1, Math.floor(limit / 2)));
  else if (fault?.kind === 'skip_page') start = offset + Math.max(1, Math.floor(limit / 2));
  const items = all.slice(start, start + limit);
  const next = offset + limit;
  return { items, nextOffset: next < all.length ? next : null };
}

/** Opaque cursor: base64url of JSON. */
export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function decodeCursor<T>(cursor: string, check: (x: unknown) => x is T): T {
  try {
    const x: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (check(x)) return x;
  } catch {
    // fall through
  }
  throw new HttpError(400, { error: 'invalid cursor' });
}

export function clampLimit(value: number | undefined, fallback: number, max: number, min = 1): number {
  if (value === undefined) return fallback;
  if (value < min) throw new HttpError(400, { error: `limit must be >= ${min}` });
  return Math.min(value, max);
}
