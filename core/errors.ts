/**
 * The error hierarchy. Every error says whether a retry can help: `RetryableError` (a timeout, a
 * connection reset, an upstream 429/5xx) or `PermanentError` (bad config, bad input, a bug). Retry
 * decisions are taken in one place, `isRetryable`, never by matching message strings elsewhere.
 */

export class PmdataError extends Error {
  override readonly name: string = 'PmdataError';
  readonly retryable: boolean = false;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export class RetryableError extends PmdataError {
  override readonly name: string = 'RetryableError';
  override readonly retryable: boolean = true;
}

export class PermanentError extends PmdataError {
  override readonly name: string = 'PermanentError';
}

/** A configuration value is missing or malformed. Names the variable and the accepted form. */
export class ConfigError extends PermanentError {
  override readonly name = 'ConfigError';
  readonly problems: readonly { variable: string; message: string }[];

  constructor(problems: readonly { variable: string; message: string }[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n')}`);
    this.problems = problems;
  }
}

/** A ClickHouse statement failed. `code` is ClickHouse's numeric error code when it gave one. */
export class ClickHouseQueryError extends PmdataError {
  override readonly name = 'ClickHouseQueryError';
  override readonly retryable: boolean;
  readonly label: string;
  readonly code: number | undefined;
  readonly type: string | undefined;

  constructor(label: string, cause: unknown) {
    const c = cause as { code?: string | number; type?: string; message?: string };
    const code = c?.code !== undefined && /^\d+$/.test(String(c.code)) ? Number(c.code) : undefined;
    super(`ClickHouse query "${label}" failed: ${c?.message ?? String(cause)}`, { cause });
    this.label = label;
    this.code = code;
    this.type = c?.type;
    this.retryable = isRetryable(cause);
  }
}

/** A required external program or service is not available. */
export class DependencyError extends PermanentError {
  override readonly name = 'DependencyError';
}

/**
 * ClickHouse error codes worth retrying: the server was busy, a network hop failed, a replica was
 * read-only for a moment, or an insert's outcome is unknown (inserts are idempotent by natural key).
 */
const RETRYABLE_CLICKHOUSE_CODES = new Set([
  3, // UNEXPECTED_END_OF_FILE
  159, // TIMEOUT_EXCEEDED
  164, // READONLY (replica in read-only mode while recovering)
  202, // TOO_MANY_SIMULTANEOUS_QUERIES
  203, // NO_FREE_CONNECTION
  209, // SOCKET_TIMEOUT
  210, // NETWORK_ERROR
  242, // TABLE_IS_READ_ONLY
  252, // TOO_MANY_PARTS
  285, // TOO_FEW_LIVE_REPLICAS
  319, // UNKNOWN_STATUS_OF_INSERT
  425, // SYSTEM_ERROR
  999, // KEEPER_EXCEPTION
]);

const RETRYABLE_NODE_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** The one place that decides whether an error is worth retrying. */
export function isRetryable(err: unknown): boolean {
  if (err instanceof PmdataError) return err.retryable;
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; cause?: unknown; name?: string };
  // Before the numeric codes: a DOMException's `code` (20 for AbortError, 23 for TimeoutError) is not
  // a ClickHouse error code.
  if (e.name === 'AbortError' || e.name === 'TimeoutError') return true;
  if (typeof e.code === 'string' && RETRYABLE_NODE_CODES.has(e.code)) return true;
  if (e.code !== undefined && /^\d+$/.test(String(e.code))) {
    return RETRYABLE_CLICKHOUSE_CODES.has(Number(e.code));
  }
  if (e.cause !== undefined && e.cause !== err) return isRetryable(e.cause);
  return false;
}

/** Process exit code for a fatal error: 75 (EX_TEMPFAIL) when a later retry may succeed, else 1. */
export function exitCodeFor(err: unknown): number {
  return isRetryable(err) ? 75 : 1;
}
