/**
 * Reads of venue beta's API over the shared HTTP client (ingest/http/client.ts). Lists page with an
 * opaque `cursor` ('' on the last page):
 *
 * - `markets({minUpdatedTs})`: `/markets`, `limit` = 1000 (the upstream's maximum), all statuses; with
 *   `min_updated_ts` (Unix s) only the markets changed since (a trade or a status change), with
 *   `event_ticker` one event's markets;
 * - `events()`: `/events`, 200 a page; `event(ticker)`: `/events/{event_ticker}` (null on 404);
 * - `series()`: `/series?include_volume=true`, one unpaged answer;
 * - `trades({ticker, stopBefore})`: `/markets/trades`, 1000 a page, newest first with the upstream's
 *   keyset cursor, down to the first page holding a trade older than `stopBefore` (Unix ms), or to the end.
 *
 * Every record is checked on its own (payloads.ts) and records are deduplicated by their natural key. A
 * paging fault serves a page that does not start where it should: a duplicated or overlapping page repeats
 * records of the page before it, a page starting late skips records — and the page after it then repeats
 * the late page's tail. So when two adjacent pages share a record, both are read again until two reads of
 * each agree (and the check moves back a page); so is a page holding a record that failed its schema, and
 * the page a listing ends on (the repeat that would reveal a late last page never comes). Records of every
 * read are kept (union), so one clean read of each page is enough for the listing to hold all its records.
 * What this cannot see (every read of a page faulty alike) the reconciliation finds (read.ts).
 *
 * - `orderbooks(tickers)`: `/markets/orderbooks` for at most 100 tickers, each market's `orderbook_fp`
 *   checked on its own; a call holding a failed book is made again (up to `rereads` times) and a clean
 *   read of that ticker replaces it; each book comes with the `Date` of the answer that served it.
 */
import { RetryableError } from '../../../core/errors.ts';
import { type HttpClient, HttpPermanentError, type QueryValue } from '../../http/client.ts';
import type { ReadCounts, RecordChecker } from '../../rest/records.ts';
import {
  CHECKERS,
  type EventPayload,
  type InvalidRecord,
  type MarketPayload,
  type OrderbookPayload,
  type SeriesPayload,
  type TradePayload,
} from './payloads.ts';

export interface ListRead<T> extends ReadCounts {
  /** Records by natural key, in first-seen order. */
  records: T[];
}

export interface BetaClient {
  /** The upstream's clock, Unix ms (HttpClient.clock): stamps the observations. */
  clock(): number;
  markets(options?: { minUpdatedTs?: number; eventTicker?: string }): Promise<ListRead<MarketPayload>>;
  events(): Promise<ListRead<EventPayload>>;
  /** One event; `event` is null when the upstream answers 404 or the record failed every read. */
  event(eventTicker: string): Promise<ReadCounts & { event: EventPayload | null; gone: boolean }>;
  series(): Promise<ListRead<SeriesPayload>>;
  trades(options?: { ticker?: string; stopBefore?: number | null }): Promise<ListRead<TradePayload>>;
  /** The books of ≤ 100 tickers (unknown tickers are not served), each with its answer's `Date`. */
  orderbooks(tickers: readonly string[]): Promise<ReadCounts & { books: DatedBook[] }>;
}

/** A book as served, with the `Date` (Unix ms) of its answer (null when unreadable). */
export interface DatedBook {
  book: OrderbookPayload;
  date: number | null;
}

/** Tickers per `/markets/orderbooks` call (the upstream's maximum). */
export const ORDERBOOKS_PER_CALL = 100;

export interface BetaClientOptions {
  http: HttpClient;
  /** Records per page (defaults: the upstream's maxima, markets and trades 1000, events 200). */
  marketsPageSize?: number;
  eventsPageSize?: number;
  tradesPageSize?: number;
  /** Extra reads of one page while its reads disagree or a record fails (default 3). */
  rereads?: number;
}

interface PageRead<T> {
  records: T[];
  /** Keys of every record served (failed ones by their readable id), in order. */
  keys: string[];
  invalid: InvalidRecord[];
  cursor: string;
}

interface ListSpec<T> {
  path: string;
  field: string;
  checker: RecordChecker<T>;
  keyOf: (r: T) => string;
  query: Record<string, QueryValue>;
  limit: number;
  /** The listing ends on the first page for which this holds (besides the last page). */
  stop?: (records: T[]) => boolean;
}

const invalidKey = (r: InvalidRecord) => `${r.kind}\u0000${r.recordId}`;

export function createBetaClient(options: BetaClientOptions): BetaClient {
  const { http } = options;
  const rereads = options.rereads ?? 3;
  const marketsLimit = options.marketsPageSize ?? 1000;
  const eventsLimit = options.eventsPageSize ?? 200;
  const tradesLimit = options.tradesPageSize ?? 1000;

  async function readPage<T>(spec: ListSpec<T>, cursor: string): Promise<PageRead<T>> {
    const body = (await http.getJson(spec.path, {
      ...spec.query,
      limit: spec.limit,
      cursor: cursor === '' ? undefined : cursor,
    })) as Record<string, unknown> | null;
    const raw = body?.[spec.field];
    if (!body || !Array.isArray(raw) || typeof body.cursor !== 'string') {
      throw new RetryableError(`Expected {${spec.field}, cursor} from ${spec.path}`);
    }
    const out: PageRead<T> = { records: [], keys: [], invalid: [], cursor: body.cursor };
    for (const r of raw) {
      const c = spec.checker.check(r);
      if (c.ok) {
        out.records.push(c.value);
        out.keys.push(spec.keyOf(c.value));
      } else {
        out.invalid.push(c.invalid);
        if (c.invalid.recordId !== '') out.keys.push(c.invalid.recordId);
      }
    }
    return out;
  }

  async function list<T>(spec: ListSpec<T>): Promise<ListRead<T>> {
    const held = new Map<string, T>();
    const invalid = new Map<string, InvalidRecord>();
    let requests = 0;
    let again = 0;
    const read = async (cursor: string) => {
      requests++;
      const page = await readPage(spec, cursor);
      for (const r of page.records) held.set(spec.keyOf(r), r);
      for (const bad of page.invalid) invalid.set(invalidKey(bad), bad);
      return page;
    };
    /** Reads a page again until two consecutive reads serve the same keys, the later one all valid. */
    const settle = async (cursor: string, first: PageRead<T>) => {
      let prev = first;
      for (let i = 0; i < rereads; i++) {
        again++;
        const next = await read(cursor);
        if (next.invalid.length === 0 && sameKeys(prev.keys, next.keys)) return next;
        prev = next;
      }
      return prev;
    };
    /** Each page's cursor and the read taken for it (settled: confirmed by a second read). */
    const pages: { cursor: string; read: PageRead<T>; settled: boolean }[] = [];
    const settlePage = async (i: number) => {
      const p = pages[i] as (typeof pages)[number];
      if (p.settled) return false;
      p.read = await settle(p.cursor, p.read);
      p.settled = true;
      return true;
    };
    /**
     * Two adjacent pages never share a record: when they do, one of them started early (duplicate,
     * overlap) or the earlier one late (skip), so both are settled, and the check moves back a page
     * (a settled page may now overlap a late page before it).
     */
    const walkBack = async (from: number) => {
      for (let k = from; k > 0; k--) {
        const a = pages[k - 1] as (typeof pages)[number];
        const b = pages[k] as (typeof pages)[number];
        const earlier = new Set(a.read.keys);
        if (!b.read.keys.some((key) => earlier.has(key))) break;
        const later = await settlePage(k);
        const before = await settlePage(k - 1);
        if (!later && !before) break;
      }
    };
    const ends = (p: PageRead<T>) => p.cursor === '' || (spec.stop?.(p.records) ?? false);
    let cursor = '';
    for (;;) {
      const first = await read(cursor);
      pages.push({ cursor, read: first, settled: false });
      const i = pages.length - 1;
      // A failed record, or the listing's last page (no later page would reveal it started late).
      if (first.invalid.length > 0 || ends(first)) await settlePage(i);
      await walkBack(i);
      const current = (pages[i] as (typeof pages)[number]).read;
      if (ends(current)) break;
      if (current.cursor === cursor) throw new RetryableError(`${spec.path} served the same cursor again`);
      cursor = current.cursor;
    }
    return { records: [...held.values()], invalid: [...invalid.values()], requests, rereads: again };
  }

  return {
    clock: () => http.clock(),
    markets(opts = {}) {
      return list({
        path: '/markets',
        field: 'markets',
        checker: CHECKERS.market,
        keyOf: (m) => m.ticker,
        query: { min_updated_ts: opts.minUpdatedTs, event_ticker: opts.eventTicker },
        limit: marketsLimit,
      });
    },

    events() {
      return list({
        path: '/events',
        field: 'events',
        checker: CHECKERS.event,
        keyOf: (e) => e.event_ticker,
        query: {},
        limit: eventsLimit,
      });
    },

    async event(eventTicker) {
      const invalid: InvalidRecord[] = [];
      let requests = 0;
      for (let attempt = 0; attempt <= rereads; attempt++) {
        requests++;
        let body: { event?: unknown } | null;
        try {
          body = (await http.getJson(`/events/${encodeURIComponent(eventTicker)}`)) as {
            event?: unknown;
          } | null;
        } catch (err) {
          if (err instanceof HttpPermanentError && err.status === 404) {
            return { event: null, gone: true, invalid, requests, rereads: attempt };
          }
          throw err;
        }
        const c = CHECKERS.event.check(body?.event);
        if (c.ok) return { event: c.value, gone: false, invalid, requests, rereads: attempt };
        if (!invalid.some((x) => invalidKey(x) === invalidKey(c.invalid))) invalid.push(c.invalid);
      }
      return { event: null, gone: false, invalid, requests, rereads };
    },

    async series() {
      const held = new Map<string, SeriesPayload>();
      const invalid = new Map<string, InvalidRecord>();
      let requests = 0;
      for (let attempt = 0; attempt <= rereads; attempt++) {
        requests++;
        const body = (await http.getJson('/series', { include_volume: true })) as { series?: unknown } | null;
        if (!body || !Array.isArray(body.series)) throw new RetryableError('Expected {series} from /series');
        let failed = 0;
        for (const r of body.series) {
          const c = CHECKERS.series.check(r);
          if (c.ok) held.set(c.value.ticker, c.value);
          else {
            failed++;
            invalid.set(invalidKey(c.invalid), c.invalid);
          }
        }
        // Read again while a record failed and has no clean read yet.
        if (failed === 0 || [...invalid.values()].every((x) => held.has(x.recordId))) break;
      }
      return { records: [...held.values()], invalid: [...invalid.values()], requests, rereads: requests - 1 };
    },

    async orderbooks(tickers) {
      if (tickers.length > ORDERBOOKS_PER_CALL) {
        throw new RangeError(`At most ${ORDERBOOKS_PER_CALL} tickers a call, not ${tickers.length}`);
      }
      const held = new Map<string, DatedBook>();
      const invalid = new Map<string, InvalidRecord>();
      let requests = 0;
      for (let attempt = 0; attempt <= rereads; attempt++) {
        requests++;
        const { body, date } = await http.getJsonDated('/markets/orderbooks', { tickers: [...tickers] });
        const raw = (body as { orderbooks?: unknown } | null)?.orderbooks;
        if (!Array.isArray(raw)) throw new RetryableError('Expected {orderbooks} from /markets/orderbooks');
        let failed = 0;
        for (const r of raw) {
          const c = CHECKERS.orderbook.check(r);
          if (c.ok) held.set(c.value.ticker, { book: c.value, date });
          else {
            failed++;
            invalid.set(invalidKey(c.invalid), c.invalid);
          }
        }
        // Read again while a book failed and the served books miss a ticker asked for.
        if (failed === 0 || tickers.every((t) => held.has(t))) break;
      }
      return { books: [...held.values()], invalid: [...invalid.values()], requests, rereads: requests - 1 };
    },

    trades(opts = {}) {
      const stopBefore = opts.stopBefore ?? null;
      return list({
        path: '/markets/trades',
        field: 'trades',
        checker: CHECKERS.trade,
        keyOf: (t) => t.trade_id,
        query: { ticker: opts.ticker },
        limit: tradesLimit,
        stop:
          stopBefore === null
            ? undefined
            : (records) => records.some((t) => Date.parse(t.created_time) < stopBefore),
      });
    },
  };
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((k, i) => k === b[i]);
}
