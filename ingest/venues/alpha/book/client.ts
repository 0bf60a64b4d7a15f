/**
 * Venue alpha's book API client: `POST /books` for up to 100 tokens a call (the upstream takes 500; 100
 * keeps each answer small and a failed call cheap to repeat), through the shared JSON client
 * (ingest/http/client.ts: timeouts, retries, Retry-After, one rate-limit gate for every call of this
 * client). Answers are returned as the raw records: the sync checks each one (payloads.ts) so that one
 * malformed record does not cost the others.
 */
import { PermanentError } from '../../../../core/errors.ts';
import type { Logger } from '../../../../core/logger.ts';
import { createHttpClient, type HttpClientOptions } from '../../../http/client.ts';
import type { BookRequest } from './payloads.ts';

/** Tokens per `POST /books` call, at most. */
export const MAX_BOOKS_PER_CALL = 100;

export interface AlphaBookClient {
  /** The books of up to MAX_BOOKS_PER_CALL tokens (tokens without a book are absent), unchecked. */
  books(tokenIds: readonly string[]): Promise<unknown[]>;
  /** The book API's clock, Unix ms (HttpClient.clock): stamps the observations. */
  clock(): number;
}

/** The shared client's retry settings (attempts, backoff, Retry-After bounds, injectables). */
export type AlphaBookHttpOptions = Partial<Omit<HttpClientOptions, 'baseUrl' | 'headers' | 'onRetry'>>;

export interface AlphaBookClientOptions extends AlphaBookHttpOptions {
  /** The book API's base URL (ALPHA_BOOK_URL). */
  url: string;
  log: Logger;
}

export function createAlphaBookClient(options: AlphaBookClientOptions): AlphaBookClient {
  const { url, log, ...http } = options;
  const client = createHttpClient({
    timeoutMs: 10_000,
    ...http,
    baseUrl: url,
    onRetry: (info) => log.debug({ ...info }, 'Retrying book request'),
  });
  return {
    clock: () => client.clock(),
    async books(tokenIds) {
      if (tokenIds.length > MAX_BOOKS_PER_CALL) {
        throw new PermanentError(
          `At most ${MAX_BOOKS_PER_CALL} tokens per /books call, got ${tokenIds.length}`,
        );
      }
      if (tokenIds.length === 0) return [];
      const body: BookRequest[] = tokenIds.map((token_id) => ({ token_id }));
      const answer = await client.postJson('/books', body);
      if (!Array.isArray(answer)) {
        throw new PermanentError(`POST ${url}/books answered ${typeof answer}, not an array of books`);
      }
      return answer;
    },
  };
}
