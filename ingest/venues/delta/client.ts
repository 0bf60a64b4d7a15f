/**
 * Reads of venue delta's API over the shared HTTP client (ingest/http/client.ts). Every answer is
 * unwrapped from `{code, msg, result}`: `code` ≠ 0 is an upstream error, read again (up to `codeRetries`
 * times, `codeRetryMs` apart) and then thrown as `DeltaUpstreamError` (retryable), like a 5xx.
 *
 * - `list(status)`: every page of `/market?marketType=2` (binary and categorical; `page` from 1, `limit`
 *   = `pageSize`, the upstream's maximum 20, `sortBy=1` newest first), `status=activated` or every status
 *   (null), each entry checked (payloads.ts: the market, and a categorical market's children one by one),
 *   entries deduplicated by marketId. A page holding an entry already read on an earlier page, or a
 *   record that failed its schema, is read again (up to `rereads` times; a read again repeating the same
 *   entries is accepted: the earlier page was served late and held them). The last page is the one
 *   reaching `total`; a failed read is quarantined even when a later read is clean (the payload as
 *   served is the evidence). When the pages held fewer entries than `total` (a page served late skips records),
 *   the whole listing is read again (up to `passes` times in all), adding what was missed.
 * - `market(id, categorical)`: `/market/{id}` or `/market/categorical/{id}`; `gone` when the upstream
 *   answers 404.
 * - `latestPrice(tokenId)`: `/token/latest-price`, the token's last trade price (null when unreadable).
 * - `orderbook(tokenId)`: `/token/orderbook`, the token's book with the answer's `Date`; a book that fails
 *   its schema is read again (up to `rereads` times) and quarantined (null when no read was clean).
 */
import { RetryableError } from '../../../core/errors.ts';
import { type HttpClient, HttpPermanentError, type QueryValue } from '../../http/client.ts';
import type { ReadCounts } from '../../rest/records.ts';
import {
  CHECKERS,
  type ChildPayload,
  type Envelope,
  type InvalidRecord,
  type MarketPayload,
  type OrderbookPayload,
} from './payloads.ts';

/** One listed market: a binary market, or a categorical parent with its children. */
export interface DeltaEntry {
  market: MarketPayload;
  /** A categorical market's children that passed their schema, in the upstream's order. */
  children: ChildPayload[];
  /** Every child's marketId as served (failed ones included, when readable). */
  childIds: string[];
}

export interface ListRead extends ReadCounts {
  entries: DeltaEntry[];
  /** `total` of the last page read. */
  total: number;
}

export interface DeltaClient {
  /** The upstream's clock, Unix ms (HttpClient.clock): stamps the observations. */
  clock(): number;
  list(status: 'activated' | null): Promise<ListRead>;
  market(id: string, categorical: boolean): Promise<ReadCounts & { entry: DeltaEntry | null; gone: boolean }>;
  latestPrice(tokenId: string): Promise<ReadCounts & { price: number | null }>;
  orderbook(tokenId: string): Promise<ReadCounts & { book: OrderbookPayload | null; date: number | null }>;
}

export interface DeltaClientOptions {
  http: HttpClient;
  /** Entries per page (default 20, the upstream's maximum). */
  pageSize?: number;
  /** Extra reads of a page that repeats earlier entries or holds a failed record (default 3). */
  rereads?: number;
  /** Reads of the whole listing while it holds fewer entries than its `total` (default 3). */
  passes?: number;
  /** Extra reads of an answer with `code` ≠ 0 (default 3), `codeRetryMs` apart (default 1,000). */
  codeRetries?: number;
  codeRetryMs?: number;
}

/** An answer whose `code` is not 0 (or not the `{code, msg, result}` wrapper at all). */
export class DeltaUpstreamError extends RetryableError {
  constructor(
    readonly path: string,
    readonly code: number | null,
    msg: string,
  ) {
    super(`delta ${path}: upstream error ${code ?? '(no code)'}: ${msg}`);
  }
}

interface Checked {
  entry: DeltaEntry | null;
  invalid: InvalidRecord[];
  clean: boolean;
}

/** An entry checked: the market, and each child of a categorical market on its own. */
export function checkEntry(raw: unknown): Checked {
  const m = CHECKERS.market.check(raw);
  if (!m.ok) return { entry: null, invalid: [m.invalid], clean: false };
  const invalid: InvalidRecord[] = [];
  const children: ChildPayload[] = [];
  const childIds: string[] = [];
  for (const c of m.value.childMarkets ?? []) {
    const id = (c as { marketId?: unknown } | null)?.marketId;
    if (typeof id === 'number' && Number.isInteger(id)) childIds.push(String(id));
    const r = CHECKERS.child.check(c);
    if (r.ok) children.push(r.value);
    else invalid.push(r.invalid);
  }
  return { entry: { market: m.value, children, childIds }, invalid, clean: invalid.length === 0 };
}

const invalidKey = (r: InvalidRecord) => `${r.kind}\u0000${r.recordId}`;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function createDeltaClient(options: DeltaClientOptions): DeltaClient {
  const { http } = options;
  const pageSize = Math.min(20, options.pageSize ?? 20);
  const rereads = options.rereads ?? 3;
  const passes = options.passes ?? 3;
  const codeRetries = options.codeRetries ?? 3;
  const codeRetryMs = options.codeRetryMs ?? 1_000;

  /** GET, unwrapped; `counts.requests` counts every request, `counts.rereads` the `code` ≠ 0 repeats. */
  async function get(path: string, query: Record<string, QueryValue>, counts: ReadCounts): Promise<unknown> {
    return (await getDated(path, query, counts)).result;
  }

  /** `get` with the answer's `Date`. */
  async function getDated(
    path: string,
    query: Record<string, QueryValue>,
    counts: ReadCounts,
  ): Promise<{ result: unknown; date: number | null }> {
    for (let attempt = 0; ; attempt++) {
      counts.requests++;
      const { body, date } = await http.getJsonDated(path, query);
      const env = envelopeOf(body);
      if (env !== null && env.code === 0) return { result: env.result, date };
      if (attempt >= codeRetries) {
        throw new DeltaUpstreamError(
          path,
          env?.code ?? null,
          typeof env?.msg === 'string' ? env.msg : 'not a {code, msg, result} answer',
        );
      }
      counts.rereads++;
      await sleep(codeRetryMs);
    }
  }

  return {
    clock: () => http.clock(),
    async list(status) {
      const counts: ReadCounts = { invalid: [], requests: 0, rereads: 0 };
      const held = new Map<string, { entry: DeltaEntry; clean: boolean }>();
      const invalid = new Map<string, InvalidRecord>();
      let total = 0;
      for (let pass = 0; pass < passes; pass++) {
        if (pass > 0) counts.rereads++;
        const seenThisPass = new Set<string>();
        for (let page = 1; ; page++) {
          const before = new Set(seenThisPass);
          let length = 0;
          let previous = '';
          for (let attempt = 0; attempt <= rereads; attempt++) {
            if (attempt > 0) counts.rereads++;
            const result = (await get(
              '/market',
              { page, limit: pageSize, marketType: 2, sortBy: 1, ...(status ? { status } : {}) },
              counts,
            )) as { list?: unknown; total?: unknown } | null;
            if (!result || !Array.isArray(result.list) || typeof result.total !== 'number') {
              throw new DeltaUpstreamError('/market', 0, 'expected {total, list} in result');
            }
            total = result.total;
            length = result.list.length;
            let repeated = 0;
            let failed = 0;
            const ids: string[] = [];
            for (const raw of result.list) {
              const r = checkEntry(raw);
              for (const bad of r.invalid) invalid.set(invalidKey(bad), bad);
              if (!r.clean) failed++;
              if (r.entry === null) continue;
              const id = String(r.entry.market.marketId);
              ids.push(id);
              if (before.has(id)) {
                repeated++;
                continue;
              }
              seenThisPass.add(id);
              const cur = held.get(id);
              if (!cur?.clean || r.clean) held.set(id, { entry: r.entry, clean: r.clean });
            }
            // The same repeats twice in a row: the earlier page was served late (it held this page's
            // first entries), not this one; reading it again would change nothing.
            const same = ids.join(',') === previous;
            previous = ids.join(',');
            if (failed === 0 && (repeated === 0 || same)) break;
          }
          if (length === 0 || page * pageSize >= total) break;
        }
        if (held.size >= total) break;
      }
      return {
        entries: [...held.values()].map((h) => h.entry),
        total,
        invalid: [...invalid.values()],
        requests: counts.requests,
        rereads: counts.rereads,
      };
    },

    async market(id, categorical) {
      const counts: ReadCounts = { invalid: [], requests: 0, rereads: 0 };
      const invalid = new Map<string, InvalidRecord>();
      let best: Checked | null = null;
      const path = categorical ? `/market/categorical/${id}` : `/market/${id}`;
      for (let attempt = 0; attempt <= rereads; attempt++) {
        if (attempt > 0) counts.rereads++;
        let result: unknown;
        try {
          result = await get(path, {}, counts);
        } catch (err) {
          if (err instanceof HttpPermanentError && err.status === 404) {
            return { entry: null, gone: true, ...counts, invalid: [...invalid.values()] };
          }
          throw err;
        }
        const r = checkEntry((result as { data?: unknown } | null)?.data);
        for (const bad of r.invalid) invalid.set(invalidKey(bad), bad);
        if (r.entry !== null && (best === null || best.entry === null || (!best.clean && r.clean))) best = r;
        if (r.clean) break;
      }
      return { entry: best?.entry ?? null, gone: false, ...counts, invalid: [...invalid.values()] };
    },

    async latestPrice(tokenId) {
      const counts: ReadCounts = { invalid: [], requests: 0, rereads: 0 };
      for (let attempt = 0; attempt <= rereads; attempt++) {
        if (attempt > 0) counts.rereads++;
        const r = CHECKERS.latest_price.check(
          await get('/token/latest-price', { token_id: tokenId }, counts),
        );
        if (r.ok) return { price: Number(r.value.price), ...counts };
        counts.invalid = [r.invalid];
      }
      return { price: null, ...counts };
    },

    async orderbook(tokenId) {
      const counts: ReadCounts = { invalid: [], requests: 0, rereads: 0 };
      for (let attempt = 0; attempt <= rereads; attempt++) {
        if (attempt > 0) counts.rereads++;
        const { result, date } = await getDated('/token/orderbook', { token_id: tokenId }, counts);
        const r = CHECKERS.orderbook.check(result);
        if (r.ok) return { book: r.value, date, ...counts };
        if (counts.invalid.length === 0) counts.invalid = [{ ...r.invalid, recordId: tokenId }];
      }
      return { book: null, date: null, ...counts };
    },
  };
}

function envelopeOf(body: unknown): Envelope | null {
  const r = CHECKERS.envelope.check(body);
  return r.ok ? r.value : null;
}
