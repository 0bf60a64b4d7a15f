/**
 * Shapes every API route shares: the two error bodies of SPEC's Errors section, the cursor pagination
 * object and the query parameters of every cursor endpoint. One TypeBox definition gives validation,
 * serialization, OpenAPI and the TS type.
 */
import { type Static, type TUnsafe, Type } from '@sinclair/typebox';

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'HTTP reason phrase, e.g. "Bad Request"' }),
    message: Type.String({ description: 'What went wrong and, where it helps, what to do' }),
  },
  { title: 'General error body' },
);
export type ErrorBody = Static<typeof ErrorBody>;

export const ValidationErrorBody = Type.Object(
  {
    detail: Type.Array(
      Type.Object({
        loc: Type.Array(Type.Union([Type.String(), Type.Integer()]), {
          description: 'Where the violation is, e.g. ["query","limit"]',
        }),
        msg: Type.String(),
        type: Type.String({ description: 'Machine-readable kind, e.g. less_than_equal, missing' }),
      }),
    ),
  },
  { title: 'Validation error body (422)' },
);
export type ValidationErrorBody = Static<typeof ValidationErrorBody>;

export const Pagination = Type.Object(
  {
    limit: Type.Integer({ description: 'Requested page size' }),
    count: Type.Integer({ description: 'Items in this response' }),
    pagination_key: Type.Union([Type.String(), Type.Null()], {
      description: 'Opaque cursor for the next page; null on the last page',
    }),
    has_more: Type.Boolean({ description: 'More items exist after this page' }),
  },
  { title: 'Cursor pagination object' },
);
export type Pagination = Static<typeof Pagination>;

/** Query parameters of every cursor endpoint; `limit` bounds differ per endpoint. */
export function cursorQuery(limit: { min: number; max: number; default: number }) {
  return {
    limit: Type.Optional(
      Type.Integer({
        minimum: limit.min,
        maximum: limit.max,
        default: limit.default,
        description: `Page size, ${limit.min} to ${limit.max} (default ${limit.default})`,
      }),
    ),
    pagination_key: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description: 'Cursor from the previous response; keep the same filters and sort across pages',
      }),
    ),
    offset: Type.Optional(
      Type.Integer({
        minimum: 0,
        default: 0,
        deprecated: true,
        description: 'Deprecated: offset pagination was removed; only 0 is accepted',
      }),
    ),
  };
}

const errorResponse = (description: string) => Type.Object(ErrorBody.properties, { description });

/** The standard error responses a keyed data route can answer, for OpenAPI. */
/** `start_time` / `end_time` query parameters of the chain event lists (Unix seconds, inclusive). */
export const blockTimeRangeQuery = {
  start_time: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 99_999_999_999,
      description: 'Earliest block time, Unix seconds (inclusive)',
    }),
  ),
  end_time: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 99_999_999_999,
      description: 'Latest block time, Unix seconds (inclusive)',
    }),
  ),
};

export const keyedErrorResponses = {
  400: errorResponse(
    'Bad Request: a rule of the endpoint was broken (too many wallets, bad address or hash, reused pagination_key, offset other than 0)',
  ),
  401: errorResponse('Unauthorized: missing, unknown or revoked API key'),
  403: errorResponse("Forbidden: the key's tier has no access to this endpoint"),
  422: Type.Object(ValidationErrorBody.properties, {
    description: 'Validation Error: a parameter violates its schema',
  }),
  429: errorResponse(
    'Too Many Requests: per-second rate limit or monthly quota exceeded; wait RateLimit-Reset seconds',
  ),
  500: errorResponse('Internal Server Error'),
  503: errorResponse('Service Unavailable: retry with backoff'),
} as const;

/** Items of an array parameter (the key repeated: `?tags=a&tags=b`). */
export const MAX_LIST_ITEMS = 50;

/** What every canonical outcome id matches (core/canonical-id.ts). */
export const CANONICAL_ID_SOURCE = '^pmc_[a-z2-7]{12}$';

/** The `canonical_id` filter of every market list: anything but `pmc_` + 12 base32 characters → 422 naming it. */
export const canonicalIdParam = () =>
  Type.Optional(
    Type.Array(Type.String({ pattern: CANONICAL_ID_SOURCE }), {
      maxItems: MAX_LIST_ITEMS,
      description:
        `Canonical outcome id (pmc_ + 12 base32 characters); matches a market when any of its outcomes ` +
        `has it; repeat the key for several (up to ${MAX_LIST_ITEMS})`,
    }),
  );

/**
 * A string enum as one JSON Schema `enum` (TypeBox's union of literals becomes `anyOf`, which reports
 * one error per branch): one violation, one 422 detail entry.
 */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { default?: T[number]; description?: string } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}
