/**
 * JSON over HTTP with the upstream retry rules of the REST ingestion (issue 35), private to the book sync
 * until a shared client exists:
 * - 429: waits at least its Retry-After (seconds or an HTTP date; backoff when absent), then retries; a
 *   gate shared by the requests of one client holds all of them back until then (a rate limit is the
 *   client's, not one request's);
 * - 5xx, timeouts and network errors: retried after an exponential backoff with jitter;
 * - when the attempts are spent: RetryableError (the job fails and BullMQ retries it later);
 * - a 2xx whose body is not JSON counts as a 5xx (a cut answer);
 * - any other 4xx: PermanentError (a retry cannot help).
 * Every request carries a timeout (AbortSignal.timeout) covering the answer's body too.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { PermanentError, RetryableError } from '../../../../core/errors.ts';
import type { Logger } from '../../../../core/logger.ts';

export interface HttpRetryOptions {
  /** Per request, ms (default 10,000). */
  timeoutMs?: number;
  /** Requests per call, the first included (default 5). */
  attempts?: number;
  /** Backoff before the second request, ms; doubles per attempt (default 500). */
  baseDelayMs?: number;
  /** Longest backoff, ms (default 30,000). */
  maxDelayMs?: number;
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch;
  /** A number in [0, 1) for the jitter (default Math.random). */
  random?: () => number;
  /** Shared by the requests that one rate limit holds back (default: this request's own). */
  gate?: RequestGate;
}

/** The time before which no request may start (performance.now() ms: monotonic, sub-ms): set by a 429. */
export interface RequestGate {
  notBefore: number;
}

export const createRequestGate = (): RequestGate => ({ notBefore: 0 });

/**
 * Waits until the gate is open (another 429 meanwhile may move it later). Checked again after each sleep:
 * a timer may fire a fraction of a millisecond early.
 */
async function passGate(gate: RequestGate): Promise<void> {
  for (let wait = gate.notBefore - performance.now(); wait > 0; wait = gate.notBefore - performance.now()) {
    await sleep(wait);
  }
}

/** An upstream answer a retry cannot fix, with its status. */
export class UpstreamRequestError extends PermanentError {
  override readonly name = 'UpstreamRequestError';
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

/** The upstream kept failing (429, 5xx, timeouts) until the attempts were spent. */
export class UpstreamUnavailableError extends RetryableError {
  override readonly name = 'UpstreamUnavailableError';
  constructor(
    message: string,
    readonly status: number | null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Retry-After in ms: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const s = header.trim();
  if (/^[0-9]+$/.test(s)) return Number(s) * 1000;
  const at = Date.parse(s);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Half the exponential delay fixed, half drawn: never 0, never above the cap. */
function backoffMs(attempt: number, o: Required<Omit<HttpRetryOptions, 'fetch' | 'gate'>>): number {
  const d = Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** (attempt - 1));
  return d / 2 + o.random() * (d / 2);
}

export interface JsonRequest {
  method: 'GET' | 'POST';
  url: string;
  body?: unknown;
}

/** The parsed JSON answer of a request, retried by the rules above. */
export async function requestJson(
  req: JsonRequest,
  log: Logger,
  options: HttpRetryOptions = {},
): Promise<unknown> {
  const o = {
    timeoutMs: options.timeoutMs ?? 10_000,
    attempts: options.attempts ?? 5,
    baseDelayMs: options.baseDelayMs ?? 500,
    maxDelayMs: options.maxDelayMs ?? 30_000,
    random: options.random ?? Math.random,
  };
  const doFetch = options.fetch ?? fetch;
  const gate = options.gate ?? createRequestGate();
  const what = `${req.method} ${req.url}`;
  let last: { status: number | null; message: string; cause?: unknown } = { status: null, message: '' };
  for (let attempt = 1; attempt <= o.attempts; attempt++) {
    let wait: number;
    await passGate(gate);
    try {
      const res = await doFetch(req.url, {
        method: req.method,
        headers:
          req.body === undefined
            ? { accept: 'application/json' }
            : { 'content-type': 'application/json', accept: 'application/json' },
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
        signal: AbortSignal.timeout(o.timeoutMs),
      });
      // Before anything else is awaited: no call of this client may start once a 429 has come back.
      const after = res.status === 429 ? retryAfterMs(res.headers.get('retry-after')) : null;
      if (after !== null) gate.notBefore = Math.max(gate.notBefore, performance.now() + after);
      const text = await res.text();
      if (res.ok) {
        try {
          return JSON.parse(text);
        } catch (cause) {
          // A cut or garbled answer (a proxy, a reset mid-body): another request can get a whole one.
          wait = backoffMs(attempt, o);
          last = {
            status: res.status,
            message: `${what} answered ${res.status} with a body that is not JSON`,
            cause,
          };
        }
      } else if (res.status === 429) {
        // At least the Retry-After, plus a little jitter so that callers waiting together do not return together.
        wait = after === null ? backoffMs(attempt, o) : after + o.random() * Math.min(1000, after / 10 + 50);
        last = { status: 429, message: `${what} answered 429` };
      } else if (res.status >= 500) {
        wait = backoffMs(attempt, o);
        last = { status: res.status, message: `${what} answered ${res.status}` };
      } else {
        throw new UpstreamRequestError(`${what} answered ${res.status}: ${text.slice(0, 200)}`, res.status);
      }
    } catch (e) {
      if (e instanceof UpstreamRequestError) throw e;
      // A timeout (AbortSignal.timeout's TimeoutError) or a network failure.
      wait = backoffMs(attempt, o);
      const timedOut = (e as Error)?.name === 'TimeoutError';
      last = {
        status: null,
        message: timedOut
          ? `${what} timed out after ${o.timeoutMs} ms`
          : `${what} failed: ${(e as Error)?.message}`,
        cause: e,
      };
    }
    if (attempt < o.attempts) {
      log.debug(
        { url: req.url, attempt, status: last.status, wait_ms: Math.round(wait) },
        'Retrying upstream request',
      );
      await sleep(wait);
    }
  }
  throw new UpstreamUnavailableError(`${last.message} (${o.attempts} attempts)`, last.status, {
    cause: last.cause,
  });
}
