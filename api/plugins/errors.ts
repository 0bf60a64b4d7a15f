/**
 * The one error handler. Every failure leaves as one of SPEC's two bodies:
 * - a schema violation → 422 `{detail: [{loc, msg, type}]}`, `loc` like ["query","limit"];
 * - anything else → `{error, message}` with the SPEC status table's reason phrase.
 * 5xx bodies never carry internal text (no stack, no SQL, no upstream message): the error is logged
 * with the request id, and the client gets that id to quote.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isRetryable } from '../../core/errors.ts';
import { ApiError, reasonPhrase, ValidationFailure } from '../errors.ts';
import { unencapsulated } from './unencapsulated.ts';

type Loc = (string | number)[];
interface Detail {
  loc: Loc;
  msg: string;
  type: string;
}

interface AjvLikeError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** Fastify names the request part `querystring`/`params`; clients know them as query and path. */
const LOC_ROOT: Record<string, string> = {
  querystring: 'query',
  params: 'path',
  body: 'body',
  headers: 'header',
};

/** Ajv keywords → stable, documented `type` values (the vocabulary pydantic clients already know). */
const TYPES: Record<string, string> = {
  required: 'missing',
  type: 'type_error',
  maximum: 'less_than_equal',
  minimum: 'greater_than_equal',
  exclusiveMaximum: 'less_than',
  exclusiveMinimum: 'greater_than',
  maxLength: 'string_too_long',
  minLength: 'string_too_short',
  pattern: 'string_pattern_mismatch',
  enum: 'enum',
  const: 'literal_error',
  maxItems: 'too_long',
  minItems: 'too_short',
  additionalProperties: 'extra_forbidden',
  format: 'format_error',
  anyOf: 'union_error',
  finite: 'finite_number',
};

function messageFor(e: AjvLikeError): string {
  const p = e.params;
  switch (e.keyword) {
    case 'required':
      return 'Field required';
    case 'type':
      return `Input should be a valid ${String(p.type).replace(',', ' or ')}`;
    case 'maximum':
      return `Input should be less than or equal to ${p.limit}`;
    case 'minimum':
      return `Input should be greater than or equal to ${p.limit}`;
    case 'exclusiveMaximum':
      return `Input should be less than ${p.limit}`;
    case 'exclusiveMinimum':
      return `Input should be greater than ${p.limit}`;
    case 'maxLength':
      return `String should have at most ${p.limit} characters`;
    case 'minLength':
      return `String should have at least ${p.limit} characters`;
    case 'pattern':
      return `String should match pattern '${p.pattern}'`;
    case 'enum':
      return `Input should be ${(p.allowedValues as unknown[]).map((v) => `'${v}'`).join(', ')}`;
    case 'additionalProperties':
      return 'Extra inputs are not permitted';
    case 'finite':
      return 'Input should be a finite number';
    default:
      return e.message ?? 'Invalid input';
  }
}

function pointerSegments(pointer: string): Loc {
  if (pointer === '') return [];
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/** Turns Fastify's validation error into SPEC's 422 detail list (one entry per violation). */
export function validationDetail(err: FastifyError): Detail[] {
  const root = LOC_ROOT[err.validationContext ?? ''] ?? err.validationContext ?? 'request';
  const seen = new Set<string>();
  const out: Detail[] = [];
  for (const e of (err.validation ?? []) as AjvLikeError[]) {
    const loc: Loc = [root, ...pointerSegments(e.instancePath)];
    if (e.keyword === 'required') loc.push(String(e.params.missingProperty));
    if (e.keyword === 'additionalProperties') loc.push(String(e.params.additionalProperty));
    const d = { loc, msg: messageFor(e), type: TYPES[e.keyword] ?? e.keyword };
    const k = JSON.stringify(d);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(d);
    }
  }
  return out;
}

function send(reply: FastifyReply, status: number, message: string, fields: Record<string, unknown> = {}) {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send({
      error: reasonPhrase(status),
      message,
      ...fields,
    });
}

export function handleError(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (err.validation) {
    return reply
      .code(422)
      .type('application/json; charset=utf-8')
      .send({ detail: validationDetail(err) });
  }
  if (err instanceof ValidationFailure) {
    return reply.code(422).type('application/json; charset=utf-8').send({ detail: err.detail });
  }
  if (err instanceof ApiError) {
    reply.headers(err.headers);
    return send(reply, err.statusCode, err.message, err.fields);
  }
  const status = err.statusCode ?? 500;
  // Fastify's own client errors (malformed JSON, unsupported media type, body too large) describe the
  // request, not the server: safe to pass on.
  if (status >= 400 && status < 500 && typeof err.code === 'string' && err.code.startsWith('FST_')) {
    return send(reply, status, err.message);
  }
  if (isRetryable(err) || status === 503) {
    request.log.warn({ err }, 'Failed request on a temporary fault');
    reply.header('retry-after', '1');
    return send(
      reply,
      503,
      `The service is temporarily unavailable; retry with exponential backoff (request id ${request.id}).`,
    );
  }
  request.log.error({ err }, 'Failed request');
  return send(
    reply,
    500,
    `The server failed to answer this request; retry later, and quote request id ${request.id} if it persists.`,
  );
}

export const errorsPlugin = unencapsulated(async (app: FastifyInstance) => {
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) =>
    send(
      reply,
      404,
      `No route ${request.method} ${(request.url.split('?')[0] ?? '').slice(0, 200)}; see /docs for the API.`,
    ),
  );
}, 'pmdata-errors');
