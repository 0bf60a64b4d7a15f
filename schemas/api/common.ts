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
    limit: Type.Integer({
      minimum: limit.min,
      maximum: limit.max,
      default: limit.default,
      description: `Page size, ${limit.min} to ${limit.max}`,
    }),
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

/** The standard error responses a keyed data route can answer, for OpenAPI. */
export const keyedErrorResponses = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  422: ValidationErrorBody,
  429: ErrorBody,
  500: ErrorBody,
  503: ErrorBody,
} as const;

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
