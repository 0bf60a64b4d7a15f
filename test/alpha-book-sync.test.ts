/**
 * The alpha book sync against the sim's book replica: rows equal the world's books, calls stay within
 * their batch size, and the upstream faults (429 with Retry-After, 5xx, hangs, a malformed record, a 4xx)
 * are handled by the REST ingestion rules.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { currentPrices } from '../analytics/shared/current-price.ts';
import { PermanentError, RetryableError } from '../core/errors.ts';
import { HttpPermanentError, HttpRetryableError } from '../ingest/http/client.ts';
import { createAlphaBookClient } from '../ingest/venues/alpha/book/client.ts';
import { type AlphaBookSyncOptions, syncAlphaBooks } from '../ingest/venues/alpha/book/sync.ts';
import type { CatalogMarket } from '../sim/world/catalog.ts';
import { startWorld, type World } from './sim-replicas-support.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

let w: World;
let deps: TestDeps;

beforeAll(async () => {
  [w, deps] = await Promise.all([startWorld('alpha-book-sync'), createTestDeps('alpha_book_sync')]);
});
afterEach(() => w.replicas.faults.clear());
afterAll(async () => {
  await w?.replicas.close();
  await deps?.close();
});

/** What the sync sent and got, for the timing and batch-size checks (the requests themselves are real). */
interface Exchange {
  startedAt: number;
  endedAt: number;
  tokens: number;
  status: number | null;
  retryAfterS: number | null;
}

function recordingFetch(log: Exchange[]): typeof fetch {
  return async (input, init) => {
    const entry: Exchange = {
      startedAt: performance.now(),
      endedAt: Number.NaN,
      tokens: JSON.parse(String(init?.body ?? '[]')).length,
      status: null,
      retryAfterS: null,
    };
    log.push(entry);
    try {
      const res = await fetch(input, init);
      entry.status = res.status;
      const after = res.headers.get('retry-after');
      entry.retryAfterS = after === null ? null : Number(after);
      // The answer as received whole (its end is when the client can know it), handed on unchanged.
      const text = await res.text();
      return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
    } finally {
      entry.endedAt = performance.now();
    }
  };
}

/**
 * Requests that started while a 429's Retry-After was running, counted from the 429's arrival, less 1 ms:
 * the client's clock (Date.now) counts whole milliseconds.
 */
function requestsDuringRetryAfter(log: Exchange[]): Exchange[] {
  const limits = log.filter((x) => x.status === 429);
  return log.filter((x) =>
    limits.some((l) => x.startedAt > l.endedAt && x.startedAt < l.endedAt + (l.retryAfterS ?? 0) * 1000 - 1),
  );
}

let clock = Date.UTC(2026, 3, 2);
/** A distinct observation time per sync, so each test reads its own rows. */
const nextObservation = () => (clock += 60_000);

function options(log: Exchange[], extra: Partial<AlphaBookSyncOptions> = {}): AlphaBookSyncOptions {
  const at = nextObservation();
  return {
    url: w.replicas.urls.alpha_book,
    fetch: recordingFetch(log),
    baseDelayMs: 10,
    maxDelayMs: 50,
    timeoutMs: 2_000,
    clock: () => at,
    ...extra,
  };
}

type Quote = {
  token_id: string;
  condition_id: string;
  book_time: string;
  best_bid: number | null;
  best_ask: number | null;
  mid: number | null;
  bid_prices: number[];
  bid_sizes: number[];
  ask_prices: number[];
  ask_sizes: number[];
  tick_size: string;
};

async function quotesAt(observedAt: number): Promise<Map<string, Quote>> {
  const rows = await deps.clickhouse.query<Quote>(
    'test.book_quotes',
    `SELECT token_id, condition_id, toString(toUnixTimestamp64Milli(book_time)) AS book_time, best_bid, best_ask,
            mid, bid_prices, bid_sizes, ask_prices, ask_sizes, tick_size
     FROM alpha_book_quotes FINAL WHERE observed_at = fromUnixTimestamp64Milli({at:Int64}, 'UTC')`,
    { at: observedAt },
  );
  return new Map(rows.map((r) => [r.token_id, r]));
}

const alphaMarkets = () => w.catalog.venues.alpha.markets;
const isOpen = (m: CatalogMarket) => w.state.status('alpha', m.key).status === 'open';
const allTokens = () => alphaMarkets().flatMap((m) => m.tokenIds);
const openTokens = () =>
  alphaMarkets()
    .filter(isOpen)
    .flatMap((m) => m.tokenIds);

/** The replica's decimals: prices with 4 places, sizes with 2. */
const r4 = (x: number) => Number(x.toFixed(4));
const r2 = (x: number) => Number(x.toFixed(2));

describe('alpha book sync', () => {
  it('writes one row per open token equal to the world book, in calls of at most the batch size', async () => {
    const log: Exchange[] = [];
    const o = options(log, { batchSize: 7 });
    const tokens = allTokens();
    const open = openTokens();
    expect(open.length).toBeGreaterThan(10);
    expect(open.length).toBeLessThan(tokens.length); // some markets closed or resolved: no book

    const result = await syncAlphaBooks(deps, [...tokens, ...tokens.slice(0, 5)], o);
    expect(result).toEqual({
      tokens: tokens.length,
      calls: Math.ceil(tokens.length / 7),
      written: open.length,
      quarantined: 0,
      missing: tokens.length - open.length,
    });
    expect(log.map((x) => x.tokens).every((n) => n >= 1 && n <= 7)).toBe(true);
    expect(log.reduce((s, x) => s + x.tokens, 0)).toBe(tokens.length);

    const rows = await quotesAt(o.clock!());
    expect(rows.size).toBe(open.length);
    for (const m of alphaMarkets().filter(isOpen)) {
      m.tokenIds.forEach((token, outcome) => {
        const b = w.state.book('alpha', m.key, outcome);
        const row = rows.get(token)!;
        const bid = b.bids[0] ? r4(b.bids[0].price) : null;
        const ask = b.asks[0] ? r4(b.asks[0].price) : null;
        expect(row).toEqual({
          token_id: token,
          condition_id: m.alpha!.conditionId,
          book_time: String(b.timestamp),
          best_bid: bid,
          best_ask: ask,
          mid: bid !== null && ask !== null ? Number(((bid + ask) / 2).toFixed(10)) : null,
          bid_prices: b.bids.map((l) => r4(l.price)),
          bid_sizes: b.bids.map((l) => r2(l.size)),
          ask_prices: b.asks.map((l) => r4(l.price)),
          ask_sizes: b.asks.map((l) => r2(l.size)),
          // The payload's tick size, as served (the market's: 0.01 or 0.001).
          tick_size: String(m.tickSize),
        });
      });
    }
    expect(new Set([...rows.values()].map((r) => r.tick_size))).toEqual(new Set(['0.01', '0.001']));
  });

  it('asks for at most 100 tokens a call by default, and the client refuses more', async () => {
    const log: Exchange[] = [];
    const tokens = openTokens();
    // Enough ids for three calls: the open tokens, then unknown ones (the replica has no book for them).
    const ids = [...tokens, ...Array.from({ length: 250 - tokens.length }, (_, i) => `9${i}`)];
    const result = await syncAlphaBooks(deps, ids, options(log));
    expect(log.map((x) => x.tokens).sort((a, b) => b - a)).toEqual([100, 100, 50]);
    expect(result.written).toBe(tokens.length);
    const client = createAlphaBookClient({
      url: w.replicas.urls.alpha_book,
      log: deps.log,
      fetch: recordingFetch(log),
    });
    await expect(client.books(ids.slice(0, 101))).rejects.toBeInstanceOf(PermanentError);
    expect(log).toHaveLength(3);
  });

  it('waits the Retry-After of a 429 before asking again', async () => {
    const log: Exchange[] = [];
    w.replicas.faults.enqueue('alpha_book', { kind: 'rate_limit', retryAfterS: 1 });
    const o = options(log);
    const tokens = openTokens().slice(0, 20);
    const result = await syncAlphaBooks(deps, tokens, o);
    expect(log.map((x) => x.status)).toEqual([429, 200]);
    expect(log[1]!.startedAt - log[0]!.endedAt).toBeGreaterThanOrEqual(999);
    expect(requestsDuringRetryAfter(log)).toEqual([]);
    expect(result.written).toBe(20);
    expect((await quotesAt(o.clock!())).size).toBe(20);
  });

  for (const rate of ['rate429', 'rate5xx', 'rateHang'] as const) {
    it(`ends with the rows of a fault-free sync under a 20 % ${rate}, no request during a Retry-After`, async () => {
      const tokens = allTokens();
      const clean = options([], { batchSize: 3 });
      await syncAlphaBooks(deps, tokens, clean);
      const log: Exchange[] = [];
      w.replicas.faults.set('alpha_book', { [rate]: 0.2, retryAfterS: 1, path: '/books' });
      const faulty = options(log, { batchSize: 3, maxAttempts: 10, timeoutMs: 300 });
      const kind = ({ rate429: 'rate_limit', rate5xx: 'server_error', rateHang: 'hang' } as const)[rate];
      const before = w.replicas.faults.injected('alpha_book')[kind];
      const result = await syncAlphaBooks(deps, tokens, faulty);
      expect(w.replicas.faults.injected('alpha_book')[kind]).toBeGreaterThan(before);
      expect(log.length).toBeGreaterThan(result.calls);
      expect(requestsDuringRetryAfter(log)).toEqual([]);
      const [want, got] = [await quotesAt(clean.clock!()), await quotesAt(faulty.clock!())];
      expect(got.size).toBe(openTokens().length);
      expect(got).toEqual(want);
    });
  }

  it('quarantines a malformed book by its token id and writes the rest of the batch', async () => {
    const log: Exchange[] = [];
    w.replicas.faults.enqueue('alpha_book', { kind: 'malformed' });
    const o = options(log);
    const tokens = openTokens().slice(0, 30);
    const result = await syncAlphaBooks(deps, tokens, o);
    expect(result).toMatchObject({ written: 29, quarantined: 1, missing: 0 });
    const rows = await quotesAt(o.clock!());
    expect(rows.size).toBe(29);
    // The replica corrupts the first record of the answer: the first token asked.
    expect(rows.has(tokens[0]!)).toBe(false);
    const q = await deps.clickhouse.query<{ source: string; kind: string; reason: string; payload: string }>(
      'test.quarantine',
      `SELECT source, kind, reason, payload FROM quarantine FINAL WHERE record_id = {id:String}`,
      { id: tokens[0]! },
    );
    expect(q).toHaveLength(1);
    expect(q[0]).toMatchObject({ source: 'alpha-book', kind: 'book' });
    expect(q[0]!.reason).toMatch(/market/);
    expect(JSON.parse(q[0]!.payload).asset_id).toBe(tokens[0]);
  });

  it('retries 5xx answers and a hung request with backoff, then succeeds', async () => {
    const log: Exchange[] = [];
    w.replicas.faults.enqueue(
      'alpha_book',
      { kind: 'server_error', status: 503 },
      { kind: 'hang' },
      { kind: 'server_error', status: 502 },
    );
    const result = await syncAlphaBooks(deps, openTokens().slice(0, 5), options(log, { timeoutMs: 300 }));
    expect(log.map((x) => x.status)).toEqual([503, null, 502, 200]);
    expect(result.written).toBe(5);
  });

  it('fails the sync with a retryable error once the attempts are spent, writing nothing of the failed call', async () => {
    const log: Exchange[] = [];
    const o = options(log, { maxAttempts: 3 });
    w.replicas.faults.enqueue(
      'alpha_book',
      { kind: 'server_error' },
      { kind: 'server_error' },
      { kind: 'server_error' },
    );
    const err = await syncAlphaBooks(deps, openTokens().slice(0, 5), o).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpRetryableError);
    expect(err).toBeInstanceOf(RetryableError);
    expect(log.map((x) => x.status)).toEqual([503, 503, 503]);
    expect((await quotesAt(o.clock!())).size).toBe(0);
  });

  it('treats another 4xx as permanent: one request, no retry', async () => {
    const log: Exchange[] = [];
    w.replicas.faults.enqueue('alpha_book', { kind: 'server_error', status: 400 });
    const err = await syncAlphaBooks(deps, openTokens().slice(0, 5), options(log)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpPermanentError);
    expect(err).toBeInstanceOf(PermanentError);
    expect(log).toHaveLength(1);
  });
});

describe("the book's observation time: the upstream's clock (the world's, months before the wall clock)", () => {
  it("answers every replica request with the world's time in its Date header", async () => {
    const world = w.state.now();
    expect(Date.now() - world).toBeGreaterThan(30 * 86_400_000);
    for (const url of Object.values(w.replicas.urls)) {
      const res = await fetch(`${url}/no-such-path`);
      await res.text();
      expect(res.headers.get('date'), url).toBe(new Date(world).toUTCString());
    }
  });

  it('stamps observed_at with the world time, so the current price of now takes the book', async () => {
    const world = w.state.now();
    const tokens = openTokens().slice(0, 12);
    const { clock: _c, ...o } = options([]);
    const result = await syncAlphaBooks(deps, tokens, o);
    expect(result.written).toBe(tokens.length);
    const rows = await deps.clickhouse.read<[string, string, number | null]>(
      'test.book_observed',
      `SELECT token_id, toString(toUnixTimestamp64Milli(observed_at)), mid FROM alpha_book_quotes
       WHERE token_id IN {tokens:Array(String)}
         AND observed_at >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')
         AND observed_at < fromUnixTimestamp64Milli({to:Int64}, 'UTC')`,
      // The Date header has whole seconds; the sync reads the clock right after the answer.
      { tokens, from: world - 1000, to: world + 5000 },
    );
    expect(rows).toHaveLength(tokens.length);
    expect(new Set(rows.map(([t]) => t)).size).toBe(tokens.length);
    const prices = await currentPrices(deps.clickhouse, tokens, world + 5000);
    const withMid = rows.filter(([, , mid]) => mid !== null);
    expect(withMid.length).toBeGreaterThan(0);
    for (const [token, , mid] of withMid)
      expect(prices.get(token), token).toEqual({ price: mid, source: 'book' });
  });
});
