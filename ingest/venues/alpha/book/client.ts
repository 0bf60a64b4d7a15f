/**
 * Venue alpha's book API client: `POST /books` for up to 100 tokens a call (the upstream takes 500; 100
 * keeps each answer small and a failed call cheap to repeat). Answers are returned as the raw records:
 * the sync checks each one (payloads.ts) so that one malformed record does not cost the others.
 */
import { PermanentError } from '../../../../core/errors.ts';
import type { Logger } from '../../../../core/logger.ts';
import { createRequestGate, type HttpRetryOptions, requestJson } from './http.ts';
import type { BookRequest } from './payloads.ts';

/** Tokens per `POST /books` call, at most. */
export const MAX_BOOKS_PER_CALL = 100;

export interface AlphaBookClient {
  /** The books of up to MAX_BOOKS_PER_CALL tokens (tokens without a book are absent), unchecked. */
  books(tokenIds: readonly string[]): Promise<unknown[]>;
}

export interface AlphaBookClientOptions extends HttpRetryOptions {
  /** The book API's base URL (ALPHA_BOOK_URL), without a trailing slash. */
  url: string;
  log: Logger;
}

export function createAlphaBookClient(options: AlphaBookClientOptions): AlphaBookClient {
  const base = options.url.replace(/\/+$/, '');
  // One rate limit holds back every call of this client.
  const http = { ...options, gate: options.gate ?? createRequestGate() };
  return {
    async books(tokenIds) {
      if (tokenIds.length > MAX_BOOKS_PER_CALL) {
        throw new PermanentError(
          `At most ${MAX_BOOKS_PER_CALL} tokens per /books call, got ${tokenIds.length}`,
        );
      }
      if (tokenIds.length === 0) return [];
      const body: BookRequest[] = tokenIds.map((token_id) => ({ token_id }));
      const answer = await requestJson({ method: 'POST', url: `${base}/books`, body }, options.log, http);
      if (!Array.isArray(answer)) {
        throw new PermanentError(`POST ${base}/books answered ${typeof answer}, not an array of books`);
      }
      return answer;
    },
  };
}
