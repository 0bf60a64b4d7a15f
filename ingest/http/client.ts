/**
 * A JSON HTTP client for REST upstreams, shared by the venue ingestors (it knows no venue).
 *
 * - Every attempt has its own timeout (`timeoutMs`, body included).
 * - Retryable failures only are retried: 5xx, timeouts, network errors and a body that is not JSON (a
 *   cut connection), up to `maxAttempts` attempts, waiting a full-jitter exponential backoff between
 *   them (`random() * min(maxDelayMs, baseDelayMs * 2^(attempt-1))`); then `HttpRetryableError`
 *   naming the URL.
 * - A 429 waits at least its `Retry-After` (seconds or an HTTP date; the backoff when absent) before the
 *   next request of this client — any request, not only the retry — never earlier. 429s have their own
 *   budget (`maxRateLimitWaits`); a Retry-After longer than `maxRetryAfterMs` is not waited for: the
 *   call fails retryable at once.
 * - Any other 4xx is `HttpPermanentError` (not retried).
 * `sleep`, `now`, `random` and `fetch` are injectable for tests.
 */
import { PermanentError, RetryableError } from '../../core/errors.ts';

export class HttpRetryableError extends RetryableError {
  override readonly name = 'HttpRetryableError';
  constructor(
    readonly url: string,
    readonly status: number | null,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${message}: ${url}`, options);
  }
}

export class HttpPermanentError extends PermanentError {
  override readonly name = 'HttpPermanentError';
  constructor(
    readonly url: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(`HTTP ${status} from ${url}: ${body.slice(0, 200)}`);
  }
}

export type QueryValue = string | number | boolean | readonly (string | number)[] | undefined;

export interface HttpClientOptions {
  baseUrl: string;
  /** Timeout of one attempt, headers and body. */
  timeoutMs: number;
  /** Attempts of one call for 5xx, timeouts and network errors (default 5). */
  maxAttempts?: number;
  /** Backoff base and cap (defaults 250 ms and 10 s). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** 429 answers one call waits out before giving up (default 10). */
  maxRateLimitWaits?: number;
  /** Longest Retry-After waited for (default 120 s). */
  maxRetryAfterMs?: number;
  headers?: Record<string, string>;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  random?: () => number;
  fetch?: typeof fetch;
  /** Called before each wait (for logs and metrics). */
  onRetry?: (info: { url: string; status: number | null; reason: string; waitMs: number }) => void;
}

/** An answer's body with its `Date` header (Unix ms; null when absent or unreadable). */
export interface DatedJson {
  body: unknown;
  date: number | null;
}

export interface HttpClient {
  getJson(path: string, query?: Record<string, QueryValue>): Promise<unknown>;
  /** `getJson` with the answer's `Date` (the time of a payload that carries none: a book's `ts`). */
  getJsonDated(path: string, query?: Record<string, QueryValue>): Promise<DatedJson>;
  postJson(path: string, body: unknown, query?: Record<string, QueryValue>): Promise<unknown>;
  /**
   * The upstream's clock, Unix ms: a venue's "now" (core/now.ts), which stamps its observations. The wall
   * clock, moved by how far the `Date` of the upstream's newest answer lay from it when that is more than
   * CLOCK_SKEW_MS (a simulated world answers in its own time); the wall clock before any answer. Strictly
   * increasing per upstream within the process.
   */
  clock(): number;
}

/**
 * The newest time each upstream's clock gave in this process (by base URL): a clock never gives a time
 * twice nor goes back, so that observations stamped by it (ReplacingMergeTree by observed_at) stay ordered
 * even while a simulated world stands still (its Date does not move).
 */
const newestClock = new Map<string, number>();

/** An upstream `Date` this close to the wall clock is the wall clock (the header has whole seconds). */
export const CLOCK_SKEW_MS = 5_000;

/** The offset of an answer's `Date` header from the wall clock `now` (0 within CLOCK_SKEW_MS or unreadable). */
export function clockOffsetMs(date: string | null, now: number): number {
  if (date === null) return 0;
  const t = Date.parse(date);
  if (!Number.isFinite(t) || Math.abs(t - now) <= CLOCK_SKEW_MS) return 0;
  return t - now;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Retry-After in ms from now: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const t = Date.parse(v);
  return Number.isFinite(t) ? Math.max(0, t - now) : null;
}

export function buildUrl(baseUrl: string, path: string, query: Record<string, QueryValue> = {}): string {
  const url = new URL(baseUrl.replace(/\/+$/, '') + path);
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const item of v) url.searchParams.append(k, String(item));
    else url.searchParams.set(k, String(v));
  }
  return url.toString();
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const maxAttempts = options.maxAttempts ?? 5;
  const baseDelay = options.baseDelayMs ?? 250;
  const maxDelay = options.maxDelayMs ?? 10_000;
  const maxRateLimitWaits = options.maxRateLimitWaits ?? 10;
  const maxRetryAfter = options.maxRetryAfterMs ?? 120_000;
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const doFetch = options.fetch ?? fetch;
  /** No request of this client leaves before this time (set by a 429's Retry-After). */
  let notBefore = 0;
  /** The upstream's clock minus the wall clock, from the newest answer's Date header. */
  let offset = 0;

  const gate = async () => {
    for (let t = now(); t < notBefore; t = now()) await sleep(notBefore - t);
  };

  const backoff = (attempt: number) => random() * Math.min(maxDelay, baseDelay * 2 ** (attempt - 1));

  async function call(method: 'GET' | 'POST', url: string, body: unknown): Promise<DatedJson> {
    let attempt = 0;
    let rateLimited = 0;
    for (;;) {
      await gate();
      attempt++;
      let status: number | null = null;
      let reason: string;
      let cause: unknown;
      try {
        const res = await doFetch(url, {
          method,
          headers: {
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...options.headers,
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        status = res.status;
        offset = clockOffsetMs(res.headers.get('date'), now());
        if (status === 429) {
          // The wait starts from the answer's headers, before its body is read: a concurrent call
          // retrying meanwhile must not leave before Retry-After.
          rateLimited++;
          attempt--; // a 429 has its own budget
          const wait = retryAfterMs(res.headers.get('retry-after'), now()) ?? backoff(rateLimited);
          if (rateLimited <= maxRateLimitWaits && wait <= maxRetryAfter) {
            notBefore = Math.max(notBefore, now() + wait);
          }
          await res.text().catch(() => '');
          if (rateLimited > maxRateLimitWaits || wait > maxRetryAfter) {
            throw new HttpRetryableError(
              url,
              429,
              `Rate limited ${rateLimited} times (Retry-After ${wait} ms)`,
            );
          }
          options.onRetry?.({ url, status, reason: 'rate limited', waitMs: wait });
          continue;
        }
        const text = await res.text();
        if (res.ok) {
          try {
            const date = Date.parse(res.headers.get('date') ?? '');
            return { body: JSON.parse(text) as unknown, date: Number.isFinite(date) ? date : null };
          } catch (err) {
            reason = 'a body that is not JSON';
            cause = err;
          }
        } else if (status >= 500) {
          reason = `HTTP ${status}`;
        } else {
          throw new HttpPermanentError(url, status, text);
        }
      } catch (err) {
        if (err instanceof HttpPermanentError || err instanceof HttpRetryableError) throw err;
        const e = err as { name?: string; message?: string };
        reason = e.name === 'TimeoutError' ? `timed out after ${options.timeoutMs} ms` : `${e.message}`;
        cause = err;
      }
      if (attempt >= maxAttempts) {
        throw new HttpRetryableError(url, status, `Gave up after ${attempt} attempts (${reason})`, { cause });
      }
      const wait = backoff(attempt);
      options.onRetry?.({ url, status, reason, waitMs: wait });
      await sleep(wait);
    }
  }

  return {
    getJson: async (path, query) =>
      (await call('GET', buildUrl(options.baseUrl, path, query), undefined)).body,
    getJsonDated: (path, query) => call('GET', buildUrl(options.baseUrl, path, query), undefined),
    postJson: async (path, body, query) =>
      (await call('POST', buildUrl(options.baseUrl, path, query), body)).body,
    clock() {
      const t = Math.max(now() + offset, (newestClock.get(options.baseUrl) ?? Number.NEGATIVE_INFINITY) + 1);
      newestClock.set(options.baseUrl, t);
      return t;
    },
  };
}
