/**
 * beta's book feed (ingest/venues/beta/feed.ts) against the socket replica: the books rebuilt from
 * `beta_book_ticks` (snapshot rows, then deltas in (ts, sid, seq) order) equal the world's at sampled
 * times, also after a dropped message (the gap found, get_snapshot, resync rows) and a disconnect
 * (reconnected, resubscribed, resync rows); the rebuilt books stored as `ws` snapshots; gaps and
 * reconnects counted in /metrics; opens and closes followed; the feed's position on the status page; the
 * job under its lease.
 */
import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedResyncs } from '../core/metrics.ts';
import { readSnapshot } from '../core/ops/snapshot.ts';
import { createHttpClient } from '../ingest/http/client.ts';
import { runStream } from '../ingest/rest/runner.ts';
import { ingestSources } from '../ingest/sources.ts';
import { rebuildBooks, type TickBook, type TickRow, yesBook } from '../ingest/venues/beta/book-ticks.ts';
import { createBetaClient } from '../ingest/venues/beta/client.ts';
import {
  BETA_FEED_LEASE,
  BETA_FEED_SOURCE,
  type BetaFeedOptions,
  type BetaFeedSummary,
  createBetaFeed,
} from '../ingest/venues/beta/feed.ts';
import { beta } from '../ingest/venues/beta/index.ts';
import { createOpsSampler } from '../jobs/ops-sampler.ts';
import { FEED_LEASE_MS } from '../jobs/processors/venue-feeds.ts';
import { VENUE_JOBS, VENUE_SOURCES } from '../jobs/venues.ts';
import { betaSocketUrl } from '../sim/venues/beta/socket.ts';
import { type Replicas, startReplicas } from '../sim/venues/index.ts';
import { type Catalog, generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState, type WorldState } from '../sim/world/state.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

const START = Date.UTC(2026, 3, 1);

let deps: TestDeps;
let catalog: Catalog;
let state: WorldState;
let replicas: Replicas;
let url: string;

beforeAll(async () => {
  catalog = generateCatalog({ seed: 'beta-feed', size: 'small', startTime: START });
  state = createWorldState(catalog, { alpha: 'self' });
  state.tick(START + 3_600_000);
  replicas = await startReplicas({ catalog, state });
  url = betaSocketUrl(replicas.urls.beta);
  deps = await createTestDeps('beta_feed', { env: { BETA_WS_URL: url } });
  const client = createBetaClient({
    http: createHttpClient({
      baseUrl: replicas.urls.beta,
      timeoutMs: 5_000,
      baseDelayMs: 20,
      maxDelayMs: 100,
    }),
  });
  await runStream(beta, 'markets', { ...deps, client }, { mode: 'poll' });
}, 120_000);

afterAll(async () => {
  await replicas?.close();
  await deps?.close();
});

/** The world's book of a ticker as the ticks carry it. */
function truth(ticker: string): string {
  const side = (i: number) =>
    state
      .book('beta', ticker, i)
      .bids.map((l) => `${l.price.toFixed(4)}:${l.size.toFixed(2)}`)
      .sort();
  return JSON.stringify([side(0), side(1)]);
}

function text(b: TickBook | undefined): string {
  if (!b) return 'none';
  const side = (m: Map<number, number>) =>
    [...m].map(([p, s]) => `${(p / 10_000).toFixed(4)}:${(s / 100).toFixed(2)}`).sort();
  return JSON.stringify([side(b.yes), side(b.no)]);
}

interface StoredTick extends TickRow {
  resync: boolean;
}

async function ticks(): Promise<StoredTick[]> {
  const rows = await deps.clickhouse.query<{
    ticker: string;
    ts: string;
    sid: number;
    seq: string;
    side: 'yes' | 'no';
    price: string;
    delta: string;
    is_snapshot: boolean;
    resync: boolean;
  }>(
    'test.ticks',
    `SELECT ticker, toString(toUnixTimestamp64Milli(ts)) AS ts, sid, seq, toString(side) AS side,
            toString(price) AS price, toString(delta) AS delta, is_snapshot, resync
     FROM beta_book_ticks FINAL`,
  );
  return rows.map((r) => ({ ...r, ts: Number(r.ts), seq: Number(r.seq), sid: Number(r.sid) }));
}

/** The books the stored rows give at world time `at` (rows with ts ≤ at). */
async function rebuiltAt(at = Number.POSITIVE_INFINITY): Promise<Map<string, TickBook>> {
  return rebuildBooks((await ticks()).filter((r) => r.ts <= at));
}

const open = (tickers: readonly string[]) => tickers.filter((t) => state.status('beta', t).status === 'open');

async function waitFor(what: string, pred: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until the stored rows give every ticker's world book. */
async function caughtUp(tickers: readonly string[]) {
  await waitFor('the ticks to give the world books', async () => {
    const books = await rebuiltAt();
    return tickers.every((t) => text(books.get(t)) === truth(t));
  });
}

async function counted(reason: 'gap' | 'reconnect'): Promise<number> {
  const m = await feedResyncs.get();
  return m.values.find((v) => v.labels.feed === BETA_FEED_SOURCE && v.labels.reason === reason)?.value ?? 0;
}

async function openTickers(): Promise<string[]> {
  const rows = await deps.clickhouse.query<{ ticker: string }>(
    'test.open',
    "SELECT ticker FROM beta_markets FINAL WHERE status = 'open' ORDER BY ticker",
  );
  return rows.map((r) => r.ticker);
}

function startFeed(o: Partial<BetaFeedOptions> = {}) {
  const stop = new AbortController();
  const feed = createBetaFeed(deps, {
    url,
    flushMs: 30,
    refreshMs: 200,
    snapshotMs: 0,
    backoffMs: [20, 100],
    ...o,
  });
  const done = feed.run({ signal: stop.signal });
  return {
    done,
    stop: (): Promise<BetaFeedSummary> => {
      stop.abort();
      return done;
    },
  };
}

describe('beta book feed', () => {
  it('rebuilds the world books from beta_book_ticks at sampled times, through a dropped message and a disconnect', async () => {
    const tickers = await openTickers();
    expect(tickers.length).toBeGreaterThan(3);
    const gapsBefore = await counted('gap');
    const reconnectsBefore = await counted('reconnect');
    const samples: { at: number; books: Map<string, string> }[] = [];
    const sample = () => samples.push({ at: state.now(), books: new Map(tickers.map((t) => [t, truth(t)])) });
    sample();
    const feed = startFeed();
    try {
      await run();
    } finally {
      await feed.stop();
    }
    async function run() {
      await caughtUp(tickers);
      const first = await ticks();
      // One snapshot message per ticker, none a resync; the first rows are all snapshots.
      expect(new Set(first.filter((r) => r.is_snapshot).map((r) => r.ticker))).toEqual(new Set(tickers));
      expect(first.some((r) => r.resync)).toBe(false);

      for (let i = 0; i < 3; i++) {
        state.advanceTime(70_000);
        await caughtUp(tickers);
        sample();
      }

      // A dropped message: the next one shows the gap, the feed asks the snapshots again (resync rows).
      replicas.faults.enqueue('beta', { kind: 'drop_message' });
      state.advanceTime(70_000);
      await waitFor('the gap', async () => (await counted('gap')) > gapsBefore);
      await caughtUp(tickers);
      sample();
      const afterGap = await ticks();
      expect(afterGap.some((r) => r.is_snapshot && r.resync)).toBe(true);
      expect(replicas.faults.injectedSocket('beta').drop_message).toBe(1);
      state.advanceTime(70_000);
      await caughtUp(tickers);
      sample();

      // A disconnect: the feed reconnects and resubscribes (new sids, resync rows).
      const sidsBefore = Math.max(...(await ticks()).map((r) => r.sid));
      replicas.faults.enqueue('beta', { kind: 'disconnect' });
      state.advanceTime(70_000);
      await waitFor('the reconnect', async () => (await counted('reconnect')) > reconnectsBefore);
      await caughtUp(tickers);
      sample();
      const resubscribed = (await ticks()).filter((r) => r.sid > sidsBefore);
      expect(new Set(resubscribed.filter((r) => r.is_snapshot && r.resync).map((r) => r.ticker))).toEqual(
        new Set(open(tickers)),
      );
      state.advanceTime(70_000);
      await caughtUp(tickers);
      sample();
    }

    const summary = await feed.done;
    expect(summary).toMatchObject({ gaps: 1, reconnects: 1, connections: 2 });
    expect(await counted('gap')).toBe(gapsBefore + 1);
    expect(await counted('reconnect')).toBe(reconnectsBefore + 1);

    // Every sampled time: the rows up to it give the books the world had then.
    for (const s of samples) {
      const books = await rebuiltAt(s.at);
      for (const t of tickers) expect(text(books.get(t)), `${t} at ${s.at}`).toBe(s.books.get(t));
    }
    // Exact decimals: prices at 4 places at most, sizes at 2.
    const all = await ticks();
    expect(all.every((r) => /^\d+(\.\d{1,4})?$/.test(r.price) && /^-?\d+(\.\d{1,2})?$/.test(r.delta))).toBe(
      true,
    );
  }, 120_000);

  it('stores the rebuilt books as ws snapshots (YES bids descending, asks 1 − NO bids ascending)', async () => {
    const tickers = await openTickers();
    const feed = startFeed({ snapshotMs: 100 });
    state.advanceTime(70_000);
    await caughtUp(tickers);
    try {
      await waitFor('ws snapshots', async () => {
        const [r] = await deps.clickhouse.query<{ n: string }>(
          'test.ws',
          `SELECT uniqExact(market) AS n FROM orderbook_snapshots WHERE venue = 'beta' AND source = 'ws'`,
        );
        return Number(r?.n) >= tickers.length;
      });
    } finally {
      await feed.stop();
    }
    const rows = await deps.clickhouse.query<{
      market: string;
      bid_prices: string[];
      bid_sizes: string[];
      ask_prices: string[];
      ask_sizes: string[];
    }>(
      'test.ws.rows',
      `SELECT market, arrayMap(x -> toString(x), argMax(bid_prices, sequence)) AS bid_prices,
              arrayMap(x -> toString(x), argMax(bid_sizes, sequence)) AS bid_sizes,
              arrayMap(x -> toString(x), argMax(ask_prices, sequence)) AS ask_prices,
              arrayMap(x -> toString(x), argMax(ask_sizes, sequence)) AS ask_sizes
       FROM orderbook_snapshots WHERE venue = 'beta' AND source = 'ws' GROUP BY market`,
    );
    expect(rows.length).toBe(tickers.length);
    for (const r of rows) {
      const yes = state.book('beta', r.market, 0);
      const n = (x: number) => String(Number(x.toFixed(4)));
      expect(r.bid_prices, r.market).toEqual(yes.bids.map((l) => n(l.price)));
      expect(r.bid_sizes).toEqual(yes.bids.map((l) => String(Number(l.size.toFixed(2)))));
      expect(r.ask_prices).toEqual(yes.asks.map((l) => n(l.price)));
      expect(r.ask_sizes).toEqual(yes.asks.map((l) => String(Number(l.size.toFixed(2)))));
    }
    // The same books as the rows rebuild.
    const books = await rebuiltAt();
    const one = rows[0]!;
    expect(yesBook(books.get(one.market)!).bids.map((l) => String(Number(l.price)))).toEqual(one.bid_prices);
  }, 60_000);

  it('follows opens and closes: a ticker removed is no longer written, one added is snapshotted', async () => {
    const all = await openTickers();
    let list = all.slice(0, 3);
    const feed = startFeed({ tickers: async () => list });
    const dropped = list[0]!;
    const added = all[3]!;
    let since = 0;
    try {
      await caughtUp(list);
      const sidBefore = Math.max(...(await ticks()).map((r) => r.sid));
      list = [...list.slice(1), added];
      await waitFor('the new ticker', async () =>
        (await ticks()).some((r) => r.ticker === added && r.is_snapshot && r.sid > sidBefore),
      );
      since = state.now();
      state.advanceTime(120_000);
      await caughtUp(list);
    } finally {
      await feed.stop();
    }
    const rows = await ticks();
    expect(rows.filter((r) => r.ticker === dropped && r.ts > since)).toEqual([]);
    expect(rows.some((r) => r.ticker === added && r.is_snapshot)).toBe(true);
  }, 60_000);

  it("shows the feed's lag on the status page: the upstream's now − the newest message's ts", async () => {
    const feed = startFeed();
    try {
      state.advanceTime(70_000);
      await caughtUp(await openTickers());
    } finally {
      await feed.stop();
    }
    const sources = ingestSources(deps, VENUE_SOURCES).filter((s) => s.source === BETA_FEED_SOURCE);
    expect(sources.map((s) => s.kind)).toEqual(['feed']);
    const queues = { get: () => ({ getJobCounts: async () => ({}) }) } as never;
    const sampler = createOpsSampler({ deps, queues, sources, products: [] });
    await sampler.sample();
    const snap = await readSnapshot(deps.redis);
    const src = snap!.sources.find((s) => s.source === BETA_FEED_SOURCE)!;
    const newest = Math.max(...(await ticks()).map((r) => r.ts));
    expect(Date.parse(src.checkpoint_time!)).toBe(newest);
    // The replica answers in world time: the lag is measured on its clock (a few seconds at most here).
    expect(src.lag_seconds).toBeGreaterThanOrEqual(0);
    expect(src.lag_seconds).toBeLessThan(state.now() - newest + 60);
  }, 60_000);

  it('runs as job beta.feed under its lease: a second run finds it held; a lost lease stops the feed', async () => {
    const job = VENUE_JOBS.find((j) => j.name === 'beta.feed')!;
    expect(job).toMatchObject({ name: 'beta.feed', queue: 'venues', attempts: 1 });
    const ctx = (signal: AbortSignal, data: object = {}) =>
      ({
        deps,
        job: { data } as Job,
        log: deps.log,
        signal,
        enqueue: async () => undefined,
      }) as never;
    const shutdown = new AbortController();
    const running = job.process(ctx(shutdown.signal));
    await waitFor('the lease', async () => (await deps.redis.get(BETA_FEED_LEASE)) !== null);
    expect(await job.process(ctx(new AbortController().signal))).toEqual({ ran: false });
    // Another holder takes the lease (as after an expiry): the feed stops within a renewal.
    await deps.redis.set(BETA_FEED_LEASE, 'someone-else', 'PX', FEED_LEASE_MS);
    const r = (await running) as { ran: boolean; lost: boolean };
    expect(r).toMatchObject({ ran: true, lost: true });
    expect(await deps.redis.get(BETA_FEED_LEASE)).toBe('someone-else');
    await deps.redis.del(BETA_FEED_LEASE);
    // Shutdown: the run completes and releases the lease.
    const stop = new AbortController();
    const again = job.process(ctx(stop.signal));
    await waitFor('the lease', async () => (await deps.redis.get(BETA_FEED_LEASE)) !== null);
    stop.abort();
    expect(await again).toMatchObject({ ran: true, lost: false });
    expect(await deps.redis.get(BETA_FEED_LEASE)).toBeNull();
  }, 60_000);
});
