/**
 * Errors a route throws on purpose: an HTTP status and a message safe to show to the client. The
 * error handler (api/plugins/errors.ts) turns them into SPEC's general error body. Anything else a
 * route throws is a server fault and never reaches the client as text.
 */
import { STATUS_CODES } from 'node:http';

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Fields the body carries after `error` and `message` (a route's documented extras, e.g. a `code`). */
  readonly fields: Readonly<Record<string, unknown>>;

  constructor(
    statusCode: number,
    message: string,
    headers: Record<string, string> = {},
    fields: Record<string, unknown> = {},
  ) {
    super(message);
    this.statusCode = statusCode;
    this.headers = headers;
    this.fields = fields;
  }
}

/** The `error` value of the general body: SPEC's Errors table uses the HTTP reason phrases. */
export function reasonPhrase(status: number): string {
  if (status === 422) return 'Validation Error';
  return STATUS_CODES[status] ?? 'Error';
}

export const badRequest = (message: string) => new ApiError(400, message);

/**
 * A schema-level violation found by a handler (e.g. one item of a comma-separated enum list): answered
 * as 422 with the same detail body as the schema validator's.
 */
export class ValidationFailure extends Error {
  override readonly name = 'ValidationFailure';
  readonly detail: { loc: (string | number)[]; msg: string; type: string }[];

  constructor(detail: { loc: (string | number)[]; msg: string; type: string }[]) {
    super(detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; '));
    this.detail = detail;
  }
}
