/**
 * Cursor pagination shared by every cursor endpoint (DESIGN.md §5).
 *
 * A `pagination_key` is base64url of `JSON payload ‖ 16-byte HMAC-SHA256(secret, payload)`. The payload
 * holds the last row's sort key and a digest of the normalized filters and sort of the request that
 * produced it. A key whose signature fails, or whose digest differs from the current request's, is a
 * 400. Because the digest is taken over normalized filters (sorted, deduplicated lists), equal queries
 * written differently get identical keys. `has_more` is exact: the keyset engine (api/read/keyset.ts)
 * fetches `limit + 1` rows.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from './errors.ts';

export type SortKey = (string | number)[];

export interface CursorCodec {
  encode(digest: string, key: SortKey): string;
  /** The sort key of a presented cursor; throws a 400 when it is malformed, forged or for other filters. */
  decode(token: string, digest: string): SortKey;
}

const SIG_BYTES = 16;

/** A digest of what a cursor is bound to: the route, its normalized filters and its sort. */
export function filtersDigest(route: string, filters: Record<string, unknown>): string {
  const canonical = JSON.stringify([
    route,
    Object.keys(filters)
      .sort()
      .map((k) => [k, filters[k] ?? null]),
  ]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
}

export function createCursorCodec(secret: string): CursorCodec {
  const sign = (payload: Buffer) =>
    createHmac('sha256', secret).update(payload).digest().subarray(0, SIG_BYTES);
  const invalid = () =>
    new ApiError(400, 'Invalid pagination_key: pass back the pagination_key of the previous page unchanged.');

  return {
    encode(digest, key) {
      const payload = Buffer.from(JSON.stringify({ v: 1, d: digest, k: key }));
      return Buffer.concat([payload, sign(payload)]).toString('base64url');
    },
    decode(token, digest) {
      if (!/^[A-Za-z0-9_-]+$/.test(token)) throw invalid();
      const raw = Buffer.from(token, 'base64url');
      if (raw.length <= SIG_BYTES) throw invalid();
      const payload = raw.subarray(0, raw.length - SIG_BYTES);
      const sig = raw.subarray(raw.length - SIG_BYTES);
      if (!timingSafeEqual(sig, sign(payload))) throw invalid();
      let parsed: { v?: unknown; d?: unknown; k?: unknown };
      try {
        parsed = JSON.parse(payload.toString('utf8'));
      } catch {
        throw invalid();
      }
      if (parsed.v !== 1 || !Array.isArray(parsed.k)) throw invalid();
      if (parsed.d !== digest) {
        throw new ApiError(
          400,
          'This pagination_key belongs to a query with other filters or sort: keep the same filters and sort ' +
            'across pages, or drop pagination_key to start again.',
        );
      }
      return parsed.k as SortKey;
    },
  };
}

/** SPEC: offset pagination was removed; the deprecated `offset` accepts only 0. */
export function rejectOffset(offset: number | undefined): void {
  if (offset !== undefined && offset !== 0) {
    throw new ApiError(
      400,
      'offset pagination was removed: offset accepts only 0; use pagination_key instead.',
    );
  }
}

/** The `pagination` object of every paginated answer. */
export interface PageInfo {
  limit: number;
  count: number;
  pagination_key: string | null;
  has_more: boolean;
}

/**
 * Cuts a `limit + 1` fetch into one page: exact `has_more`, and the next key from the last row kept.
 */
export function paginate<T>(
  rows: T[],
  limit: number,
  next: (last: T) => string,
): { items: T[]; pagination: PageInfo } {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return {
    items,
    pagination: {
      limit,
      count: items.length,
      pagination_key: hasMore && last !== undefined ? next(last) : null,
      has_more: hasMore,
    },
  };
}
