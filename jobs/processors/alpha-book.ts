/**
 * `alpha.book-sync` (queue `venues`), every ALPHA_BOOK_INTERVAL_S: the order books of every open alpha
 * market's tokens (`alpha_markets`, not closed) from the book API, ≤ 100 tokens per call, one
 * `alpha_book_quotes` row per token (ingest/venues/alpha/book/sync.ts). A Redis lease keeps one at a time.
 */
import { createDataVersions } from '../../core/data-version.ts';
import { withLease } from '../../core/lease.ts';
import { syncAlphaBooks } from '../../ingest/venues/alpha/book/sync.ts';
import { alphaConfig } from '../../ingest/venues/alpha/config.ts';
import { defineJob, type Schedule, schedule } from '../define.ts';
import { enqueueDependents } from '../products.ts';

export const ALPHA_BOOK_LEASE = 'alpha:book:lease';

export type AlphaBookJobResult =
  | { ran: false }
  | { ran: true; tokens: number; written: number; quarantined: number; missing: number };

export const alphaBookJob = defineJob<Record<string, never>, AlphaBookJobResult>({
  name: 'alpha.book-sync',
  queue: 'venues',
  attempts: 3,
  async process({ deps, log, enqueue }) {
    const run = await withLease(deps.redis, ALPHA_BOOK_LEASE, 60_000, async () => {
      const rows = await deps.clickhouse.query<{ token_id: string }>(
        'alpha.book.tokens',
        'SELECT DISTINCT arrayJoin(clob_token_ids) AS token_id FROM alpha_markets FINAL WHERE NOT closed',
      );
      const a = alphaConfig.of(deps.config);
      const r = await syncAlphaBooks(
        { clickhouse: deps.clickhouse, log },
        rows.map((x) => x.token_id),
        { url: a.bookUrl, timeoutMs: a.httpTimeoutMs },
      );
      return {
        ran: true as const,
        tokens: r.tokens,
        written: r.written,
        quarantined: r.quarantined,
        missing: r.missing,
      };
    });
    // The books moved: the products that read them follow (the catalog lists).
    if (run)
      await enqueueDependents({ enqueue, deps }, { source: 'alpha-book', stream: 'books', kind: 'head' });
    if (run?.written) await createDataVersions({ redis: deps.redis }).bump('books:alpha'); // the history's cache
    return run ?? { ran: false };
  },
});

export const BOOK_SCHEDULES: readonly Schedule[] = [
  schedule('alpha:book-sync', alphaBookJob, (c) => alphaConfig.of(c).bookIntervalS * 1000, {}),
];
