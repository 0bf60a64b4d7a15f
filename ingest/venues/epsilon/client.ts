/**
 * Reads of venue epsilon's public API (under `/public/api/v1`) over the shared HTTP client
 * (ingest/http/client.ts):
 *
 * - `markets(active)`: every page of `/markets/` (`page` from 1, `limit` = `pageSize`, the upstream's
 *   maximum 100; `active=true`, or every market when null) until `pagination.hasMore` is false, each
 *   market checked, deduplicated by id. When the pages held fewer markets than `pagination.total` (a
 *   page served late skips records), the whole listing is read again (up to `passes` times in all).
 * - `events(status)`: every page of `/events/` (`status` active or all), a plain list: the last page is
 *   the first shorter than `limit`; deduplicated by id.
 * - `tags()`: `/tags/`, one unpaged list (read again while a record fails).
 * - `market(id)`, `event(id)`: `/markets/{id}`, `/events/{id}`; `gone` when the upstream answers 404.
 * - `book(tokenId)`: `/book?token_id=`, the token's order book with the answer's `Date` (null when
 *   unreadable or 404).
 *
 * A page holding a record already read on an earlier page, or a record that failed its schema, is read
 * again (up to `rereads` times) — unless the read again repeats the same records, which means the
 * earlier page was served late and held them; a failed read is quarantined even when a later read is clean.
 */
import { RetryableError } from '../../../core/errors.ts';
import { type HttpClient, HttpPermanentError, type QueryValue } from '../../http/client.ts';
import type { ReadCounts } from '../../rest/records.ts';
import {
  type BookPayload,
  CHECKERS,
  type EventPayload,
  type InvalidRecord,
  type MarketPayload,
  type TagPayload,
} from './payloads.ts';

const BASE = '/public/api/v1';

export interface EpsilonClient {
  /** The upstream's clock, Unix ms (HttpClient.clock): stamps the observations. */
  clock(): number;
  markets(active: boolean | null): Promise<ReadCounts & { markets: MarketPayload[]; total: number }>;
  events(status: 'active' | 'all'): Promise<ReadCounts & { events: EventPayload[] }>;
  tags(): Promise<ReadCounts & { tags: TagPayload[] }>;
  market(id: string): Promise<ReadCounts & { market: MarketPayload | null; gone: boolean }>;
  event(id: string): Promise<ReadCounts & { event: EventPayload | null; gone: boolean }>;
  /** The token's book with the answer's `Date` (Unix ms; null when unreadable). */
  book(tokenId: string): Promise<ReadCounts & { book: BookPayload | null; date: number | null }>;
}

export interface EpsilonClientOptions {
  http: HttpClient;
  /** Records per page (default 100, the upstream's maximum). */
  pageSize?: number;
  /** Extra reads of a page that repeats earlier records or holds a failed record (default 3). */
  rereads?: number;
  /** Reads of the whole markets listing while it holds fewer than its `total` (default 3). */
  passes?: number;
}

type Checker<T> = { check(raw: unknown): { ok: true; value: T } | { ok: false; invalid: InvalidRecord } };

const invalidKey = (r: InvalidRecord) => `${r.kind}\u0000${r.recordId}`;
const newCounts = (): ReadCounts => ({ invalid: [], requests: 0, rereads: 0 });

export function createEpsilonClient(options: EpsilonClientOptions): EpsilonClient {
  const { http } = options;
  const pageSize = Math.min(100, options.pageSize ?? 100);
  const rereads = options.rereads ?? 3;
  const passes = options.passes ?? 3;

  /**
   * Paged reads of one listing: `read(page)` gives the page's raw records and whether more follow; each
   * page is read again while it repeats an earlier page's record or holds a failed one.
   */
  async function paged<T extends { id: string | number }>(
    checker: Checker<T>,
    read: (page: number) => Promise<{ records: unknown[]; more: boolean; total: number | null }>,
    counts: ReadCounts,
    invalid: Map<string, InvalidRecord>,
    held: Map<string, T>,
  ): Promise<number | null> {
    const thisPass = new Set<string>();
    let total: number | null = null;
    for (let page = 1; ; page++) {
      const before = new Set(thisPass);
      let more = false;
      let previous = '';
      for (let attempt = 0; attempt <= rereads; attempt++) {
        if (attempt > 0) counts.rereads++;
        const r = await read(page);
        more = r.more;
        total = r.total;
        let repeated = 0;
        let failed = 0;
        const ids: string[] = [];
        for (const raw of r.records) {
          const c = checker.check(raw);
          if (!c.ok) {
            failed++;
            invalid.set(invalidKey(c.invalid), c.invalid);
            continue;
          }
          const id = String(c.value.id);
          ids.push(id);
          if (before.has(id)) {
            repeated++;
            continue;
          }
          thisPass.add(id);
          held.set(id, c.value);
        }
        // The same repeats twice in a row: the earlier page was served late (it held this page's first
        // records), not this one; reading it again would change nothing.
        const same = ids.join(',') === previous;
        previous = ids.join(',');
        if (failed === 0 && (repeated === 0 || same)) break;
      }
      if (!more) break;
    }
    return total;
  }

  async function get(path: string, query: Record<string, QueryValue>, counts: ReadCounts) {
    counts.requests++;
    return http.getJson(`${BASE}${path}`, query);
  }

  /** One record by id, read again while it fails; null + gone on 404. */
  async function one<T>(checker: Checker<T>, path: string) {
    const counts = newCounts();
    const invalid = new Map<string, InvalidRecord>();
    for (let attempt = 0; attempt <= rereads; attempt++) {
      if (attempt > 0) counts.rereads++;
      let body: unknown;
      try {
        body = await get(path, {}, counts);
      } catch (err) {
        if (err instanceof HttpPermanentError && err.status === 404) {
          return { value: null, gone: true, ...counts, invalid: [...invalid.values()] };
        }
        throw err;
      }
      const c = checker.check(body);
      if (c.ok) return { value: c.value, gone: false, ...counts, invalid: [...invalid.values()] };
      invalid.set(invalidKey(c.invalid), c.invalid);
    }
    return { value: null, gone: false, ...counts, invalid: [...invalid.values()] };
  }

  return {
    clock: () => http.clock(),
    async markets(active) {
      const counts = newCounts();
      const invalid = new Map<string, InvalidRecord>();
      const held = new Map<string, MarketPayload>();
      let total = 0;
      for (let pass = 0; pass < passes; pass++) {
        if (pass > 0) counts.rereads++;
        total =
          (await paged(
            CHECKERS.market,
            async (page) => {
              const body = (await get(
                '/markets/',
                { page, limit: pageSize, ...(active === null ? {} : { active }) },
                counts,
              )) as { markets?: unknown; pagination?: { hasMore?: unknown; total?: unknown } } | null;
              if (!body || !Array.isArray(body.markets) || typeof body.pagination?.hasMore !== 'boolean') {
                throw new RetryableError('Expected {markets, pagination.hasMore} from epsilon /markets/');
              }
              const t = body.pagination.total;
              return {
                records: body.markets,
                more: body.pagination.hasMore && body.markets.length > 0,
                total: typeof t === 'number' ? t : null,
              };
            },
            counts,
            invalid,
            held,
          )) ?? held.size;
        if (held.size >= total) break;
      }
      return { markets: [...held.values()], total, ...counts, invalid: [...invalid.values()] };
    },

    async events(status) {
      const counts = newCounts();
      const invalid = new Map<string, InvalidRecord>();
      const held = new Map<string, EventPayload>();
      await paged(
        CHECKERS.event,
        async (page) => {
          const body = await get('/events/', { page, limit: pageSize, status }, counts);
          if (!Array.isArray(body)) throw new RetryableError('Expected a list from epsilon /events/');
          return { records: body, more: body.length >= pageSize, total: null };
        },
        counts,
        invalid,
        held,
      );
      return { events: [...held.values()], ...counts, invalid: [...invalid.values()] };
    },

    async tags() {
      const counts = newCounts();
      const invalid = new Map<string, InvalidRecord>();
      const held = new Map<string, TagPayload>();
      for (let attempt = 0; attempt <= rereads; attempt++) {
        if (attempt > 0) counts.rereads++;
        const body = await get('/tags/', {}, counts);
        if (!Array.isArray(body)) throw new RetryableError('Expected a list from epsilon /tags/');
        let failed = 0;
        for (const raw of body) {
          const c = CHECKERS.tag.check(raw);
          if (c.ok) held.set(String(c.value.id), c.value);
          else {
            failed++;
            invalid.set(invalidKey(c.invalid), c.invalid);
          }
        }
        if (failed === 0) break;
      }
      return { tags: [...held.values()], ...counts, invalid: [...invalid.values()] };
    },

    async market(id) {
      const r = await one(CHECKERS.market, `/markets/${encodeURIComponent(id)}`);
      return { market: r.value, gone: r.gone, requests: r.requests, rereads: r.rereads, invalid: r.invalid };
    },

    async event(id) {
      const r = await one(CHECKERS.event, `/events/${encodeURIComponent(id)}`);
      return { event: r.value, gone: r.gone, requests: r.requests, rereads: r.rereads, invalid: r.invalid };
    },

    async book(tokenId) {
      const counts = newCounts();
      for (let attempt = 0; attempt <= rereads; attempt++) {
        if (attempt > 0) counts.rereads++;
        let answer: { body: unknown; date: number | null };
        try {
          counts.requests++;
          answer = await http.getJsonDated(`${BASE}/book`, { token_id: tokenId });
        } catch (err) {
          if (err instanceof HttpPermanentError && err.status === 404)
            return { book: null, date: null, ...counts };
          throw err;
        }
        const c = CHECKERS.book.check(answer.body);
        if (c.ok) return { book: c.value, date: answer.date, ...counts };
        // A book that fails its schema is read again, not quarantined (it is no record of the venue's).
      }
      return { book: null, date: null, ...counts };
    },
  };
}
