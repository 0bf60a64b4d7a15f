/**
 * Reads of venue gamma's API over the shared HTTP client (ingest/http/client.ts):
 *
 * - `active()`: every page of `/markets/active` (`page` from 1, `limit` = `pageSize`, the upstream's
 *   maximum 25, `sortBy=newest`), each entry checked (payloads.ts: a single market, or a group whose
 *   nested markets are checked one by one), entries deduplicated by slug across pages. The last page is
 *   the one reaching `totalMarketsCount` (returned as `total`, so a caller can see records were skipped).
 * - `activeSlugs()`: `/markets/active/slugs`, one unpaged answer naming every active entry (read again,
 *   up to `rereads` times, while a record in it fails its schema).
 * - `entry(slug)`: `/markets/{slug}`, one market or group; null when the upstream answers 404.
 *
 * - `orderbook(slug)`: `/markets/{slug}/orderbook`, a clob market's YES book with the answer's `Date`
 *   (null with `amm` when the upstream answers 400: a pool market has no book; null with `gone` on 404);
 *   a book that fails its schema is read again (up to `rereads` times) and quarantined under its slug.
 *
 * Duplicate and overlapping pages: a page holding an entry already read on an earlier page, or a record
 * that failed its schema, is read again (up to `rereads` times); each read adds the entries not yet held,
 * a clean version replacing one whose nested markets failed. What still repeats is dropped; what still
 * fails stays in `invalid` for the quarantine.
 */
import { RetryableError } from '../../../core/errors.ts';
import { type HttpClient, HttpPermanentError } from '../../http/client.ts';
import type { ReadCounts } from '../../rest/records.ts';
import {
  type ActiveSlugPayload,
  CHECKERS,
  type GroupPayload,
  type InvalidRecord,
  isGroupEntry,
  type MarketPayload,
  type OrderbookPayload,
} from './payloads.ts';

/** One entry of the active list (or a by-slug answer): a single market, or a group with its markets. */
export type GammaEntry =
  | { kind: 'market'; slug: string; market: MarketPayload }
  | {
      kind: 'group';
      slug: string;
      group: GroupPayload;
      /** The nested markets that passed their schema, in the upstream's order. */
      markets: MarketPayload[];
      /** Every nested market's slug as served (those that failed included, when readable). */
      marketSlugs: string[];
    };

export interface ActiveRead extends ReadCounts {
  entries: GammaEntry[];
  /** `totalMarketsCount` of the last page read (entries the listing holds). */
  total: number;
}

export interface GammaClient {
  /** The upstream's clock, Unix ms (HttpClient.clock): stamps the observations. */
  clock(): number;
  active(): Promise<ActiveRead>;
  activeSlugs(): Promise<ReadCounts & { slugs: ActiveSlugPayload[] }>;
  /** `gone`: the upstream answered 404; `entry` is null then, or when every read failed its schema. */
  entry(slug: string): Promise<ReadCounts & { entry: GammaEntry | null; gone: boolean }>;
  orderbook(
    slug: string,
  ): Promise<
    ReadCounts & { book: OrderbookPayload | null; date: number | null; amm: boolean; gone: boolean }
  >;
}

export interface GammaClientOptions {
  http: HttpClient;
  /** Entries per page (default 25, the upstream's maximum). */
  pageSize?: number;
  /** Extra reads of a page that repeats earlier entries or holds a failed record (default 3). */
  rereads?: number;
}

interface Checked {
  entry: GammaEntry | null;
  invalid: InvalidRecord[];
  clean: boolean;
}

/** An entry checked: the group and each nested market on its own. */
export function checkEntry(raw: unknown): Checked {
  if (isGroupEntry(raw)) {
    const g = CHECKERS.group.check(raw);
    if (!g.ok) return { entry: null, invalid: [g.invalid], clean: false };
    const invalid: InvalidRecord[] = [];
    const markets: MarketPayload[] = [];
    const marketSlugs: string[] = [];
    for (const m of g.value.markets) {
      const slug = (m as { slug?: unknown } | null)?.slug;
      if (typeof slug === 'string' && slug !== '') marketSlugs.push(slug);
      const c = CHECKERS.market.check(m);
      if (c.ok) markets.push(c.value);
      else invalid.push(c.invalid);
    }
    return {
      entry: { kind: 'group', slug: g.value.slug, group: g.value, markets, marketSlugs },
      invalid,
      clean: invalid.length === 0,
    };
  }
  const m = CHECKERS.market.check(raw);
  if (!m.ok) return { entry: null, invalid: [m.invalid], clean: false };
  return { entry: { kind: 'market', slug: m.value.slug, market: m.value }, invalid: [], clean: true };
}

const invalidKey = (r: InvalidRecord) => `${r.kind}\u0000${r.recordId}`;

export function createGammaClient(options: GammaClientOptions): GammaClient {
  const { http } = options;
  const pageSize = options.pageSize ?? 25;
  const rereads = options.rereads ?? 3;

  return {
    clock: () => http.clock(),
    async active() {
      const held = new Map<string, { entry: GammaEntry; clean: boolean }>();
      const invalid = new Map<string, InvalidRecord>();
      let requests = 0;
      let again = 0;
      let total = 0;
      for (let page = 1; ; page++) {
        const before = new Set(held.keys());
        let length = 0;
        for (let attempt = 0; attempt <= rereads; attempt++) {
          if (attempt > 0) again++;
          requests++;
          const body = (await http.getJson('/markets/active', {
            page,
            limit: pageSize,
            sortBy: 'newest',
          })) as { data?: unknown; totalMarketsCount?: unknown } | null;
          if (!body || !Array.isArray(body.data) || typeof body.totalMarketsCount !== 'number') {
            throw new RetryableError('Expected {data, totalMarketsCount} from /markets/active');
          }
          total = body.totalMarketsCount;
          length = body.data.length;
          let repeated = 0;
          let failed = 0;
          for (const raw of body.data) {
            const r = checkEntry(raw);
            for (const bad of r.invalid) invalid.set(invalidKey(bad), bad);
            if (!r.clean) failed++;
            if (r.entry === null) continue;
            if (before.has(r.entry.slug)) {
              repeated++;
              continue;
            }
            const cur = held.get(r.entry.slug);
            if (!cur || (!cur.clean && r.clean)) held.set(r.entry.slug, { entry: r.entry, clean: r.clean });
          }
          if (repeated === 0 && failed === 0) break;
        }
        if (length === 0 || page * pageSize >= total) break;
      }
      return {
        entries: [...held.values()].map((h) => h.entry),
        total,
        invalid: [...invalid.values()],
        requests,
        rereads: again,
      };
    },

    async activeSlugs() {
      const held = new Map<string, ActiveSlugPayload>();
      const invalid = new Map<string, InvalidRecord>();
      let requests = 0;
      for (let attempt = 0; attempt <= rereads; attempt++) {
        requests++;
        const body = await http.getJson('/markets/active/slugs');
        if (!Array.isArray(body)) throw new RetryableError('Expected a list from /markets/active/slugs');
        let failed = 0;
        for (const raw of body) {
          const r = CHECKERS.active_slug.check(raw);
          if (r.ok) held.set(r.value.slug, r.value);
          else {
            failed++;
            invalid.set(invalidKey(r.invalid), r.invalid);
          }
        }
        if (failed === 0) break;
      }
      return { slugs: [...held.values()], invalid: [...invalid.values()], requests, rereads: requests - 1 };
    },

    async orderbook(slug) {
      const invalid: InvalidRecord[] = [];
      let requests = 0;
      const none = { book: null, date: null, amm: false, gone: false };
      for (let attempt = 0; attempt <= rereads; attempt++) {
        requests++;
        let answer: { body: unknown; date: number | null };
        try {
          answer = await http.getJsonDated(`/markets/${encodeURIComponent(slug)}/orderbook`);
        } catch (err) {
          if (err instanceof HttpPermanentError && (err.status === 400 || err.status === 404)) {
            const end = { invalid, requests, rereads: attempt };
            return err.status === 400 ? { ...none, amm: true, ...end } : { ...none, gone: true, ...end };
          }
          throw err;
        }
        const c = CHECKERS.orderbook.check(answer.body);
        if (c.ok) return { ...none, book: c.value, date: answer.date, invalid, requests, rereads: attempt };
        if (invalid.length === 0) invalid.push({ ...c.invalid, recordId: slug });
      }
      return { ...none, invalid, requests, rereads: requests - 1 };
    },

    async entry(slug) {
      const invalid = new Map<string, InvalidRecord>();
      let best: Checked | null = null;
      let requests = 0;
      for (let attempt = 0; attempt <= rereads; attempt++) {
        requests++;
        let body: unknown;
        try {
          body = await http.getJson(`/markets/${encodeURIComponent(slug)}`);
        } catch (err) {
          if (err instanceof HttpPermanentError && err.status === 404) {
            return { entry: null, gone: true, invalid: [...invalid.values()], requests, rereads: attempt };
          }
          throw err;
        }
        const r = checkEntry(body);
        for (const bad of r.invalid) invalid.set(invalidKey(bad), bad);
        if (r.entry !== null && (best === null || best.entry === null || (!best.clean && r.clean))) best = r;
        if (r.clean) break;
      }
      return {
        entry: best?.entry ?? null,
        gone: false,
        invalid: [...invalid.values()],
        requests,
        rereads: requests - 1,
      };
    },
  };
}
