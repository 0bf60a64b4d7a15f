/**
 * What a JSON-RPC failure means for the pipeline, decided in one place:
 * - `RangeTooLargeError`: the node refused or could not serve a log range (too many results, response
 *   too large, a timeout on a big range): shrink the range and try again;
 * - a `RetryableError`: a transient failure (network, 429, 5xx, a lagging node) worth retrying as is;
 * - a `PermanentError`: retrying cannot help (bad params, method missing).
 * Nodes phrase "too many results" differently; matching their messages happens here and only here.
 */
import { PermanentError, RetryableError } from '../../core/errors.ts';

export class RangeTooLargeError extends RetryableError {
  override readonly name = 'RangeTooLargeError';
}

/** The node's chain diverged from what the pipeline saw (a log's block hash is not the header's). */
export class ReorgDetectedError extends RetryableError {
  override readonly name = 'ReorgDetectedError';
  constructor(
    message: string,
    readonly blockNumber: number,
  ) {
    super(message);
  }
}

const TOO_LARGE_MESSAGES =
  /more than \d+ results|too many (results|logs)|query returned more than|response (size|is too big)|exceed(s|ed)? .*(limit|size)|block range (is )?too (large|wide)|range too large|log response size|query timeout|timed? ?out/i;

interface ViemLikeError {
  name?: string;
  code?: number | string;
  status?: number;
  message?: string;
  details?: string;
  shortMessage?: string;
  cause?: unknown;
}

function chain(err: unknown): ViemLikeError[] {
  const out: ViemLikeError[] = [];
  let e = err as ViemLikeError | undefined;
  for (let i = 0; e && typeof e === 'object' && i < 8; i++) {
    out.push(e);
    e = e.cause as ViemLikeError | undefined;
  }
  return out;
}

/**
 * Classifies an error thrown by a viem request. `forLogRange` turns size-like failures (and timeouts,
 * which on eth_getLogs mostly mean "too much work") into RangeTooLargeError.
 */
export function classifyRpcError(err: unknown, forLogRange: boolean): Error {
  if (err instanceof RangeTooLargeError || err instanceof PermanentError || err instanceof RetryableError)
    return err;
  const links = chain(err);
  const text = links.map((l) => `${l.details ?? ''} ${l.shortMessage ?? ''} ${l.message ?? ''}`).join(' ');
  const names = new Set(links.map((l) => l.name));
  const codes = links.map((l) => l.code).filter((c) => c !== undefined);
  const status = links.find((l) => typeof l.status === 'number')?.status;
  const message = (err as Error)?.message?.split('\n')[0] ?? String(err);

  if (forLogRange) {
    if (names.has('ResponseBodyTooLargeError') || codes.includes(-32005) || TOO_LARGE_MESSAGES.test(text)) {
      return new RangeTooLargeError(message, { cause: err });
    }
    if (names.has('TimeoutError')) return new RangeTooLargeError(message, { cause: err });
  }
  if (names.has('TimeoutError') || names.has('AbortError'))
    return new RetryableError(message, { cause: err });
  if (status !== undefined) {
    if (status === 429 || status === 408 || status >= 500) return new RetryableError(message, { cause: err });
    return new PermanentError(message, { cause: err });
  }
  if (names.has('HttpRequestError') || names.has('WebSocketRequestError') || names.has('SocketClosedError')) {
    return new RetryableError(message, { cause: err });
  }
  // JSON-RPC error codes: invalid request/params and missing methods cannot be fixed by retrying.
  if (codes.some((c) => c === -32600 || c === -32601 || c === -32602 || c === 4200)) {
    return new PermanentError(message, { cause: err });
  }
  // Internal errors, "header not found" from a lagging node behind a balancer, rate limits: transient.
  if (codes.length > 0) return new RetryableError(message, { cause: err });
  const code = (err as { code?: string })?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return new RetryableError(message, { cause: err });
  return new PermanentError(message, { cause: err });
}
