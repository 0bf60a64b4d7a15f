/**
 * What the four venue market lists (`GET /v2/{beta,gamma,delta,epsilon}/markets`, interface-shapes §18)
 * share in their query strings: `status`, `search`, the array filters (the key repeated, at most 50
 * items, 51 → 422), `canonical_id` (`pmc_` + 12 base32 characters, anything else → 422 naming it), and
 * integer ids. Each venue's own parameters and resource are in schemas/api/<venue>-markets.ts.
 */
import { Type } from '@sinclair/typebox';
import { CANONICAL_ID_SOURCE, canonicalIdParam, MAX_LIST_ITEMS, StringEnum } from './common.ts';

export { CANONICAL_ID_SOURCE, canonicalIdParam, MAX_LIST_ITEMS };

export const VENUE_STATUS_FILTERS = ['open', 'closed'] as const;
/** A served market's `status`. */
export const VENUE_MARKET_STATUSES = ['open', 'closed', 'resolved'] as const;

export const statusParam = () =>
  Type.Optional(
    StringEnum(VENUE_STATUS_FILTERS, {
      description: 'open, or closed (markets no longer trading: closed and resolved); all when absent',
    }),
  );

export const searchParam = () =>
  Type.Optional(
    Type.String({
      minLength: 3,
      maxLength: 100,
      description: 'Words of the title: every word must begin a word of the title (any order)',
    }),
  );

/** An array parameter of strings (repeat the key), any item matches. */
export const stringList = (description: string, maxLength = 300) =>
  Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength }), {
      maxItems: MAX_LIST_ITEMS,
      description: `${description}; repeat the key for several (up to ${MAX_LIST_ITEMS}), any of them matches`,
    }),
  );

/** An array parameter of non-negative integers (a non-integer item → 422 naming the parameter). */
export const integerList = (description: string) =>
  Type.Optional(
    Type.Array(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), {
      maxItems: MAX_LIST_ITEMS,
      description: `${description}; repeat the key for several (up to ${MAX_LIST_ITEMS}), any of them matches`,
    }),
  );

/** A non-negative floor (USD, contracts or depth). */
export const floorParam = (description: string, integer = false) =>
  Type.Optional(
    integer
      ? Type.Integer({ minimum: 0, maximum: 1e15, description })
      : Type.Number({ minimum: 0, maximum: 1e15, description }),
  );

/** An ISO 8601 time or null. */
export const isoTime = (description?: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], description ? { description } : {});

export const nullableNumber = (description?: string) =>
  Type.Union([Type.Number(), Type.Null()], description ? { description } : {});

export const nullableString = (description?: string) =>
  Type.Union([Type.String(), Type.Null()], description ? { description } : {});

export const nullableInteger = (description?: string) =>
  Type.Union([Type.Integer(), Type.Null()], description ? { description } : {});

export const servedStatus = () =>
  StringEnum(VENUE_MARKET_STATUSES, {
    description: 'open (trading), closed (no longer trading, not settled) or resolved (settled)',
  });
