/**
 * Venue beta's ingestion under the replica's faults (sim/venues/faults.ts), one kind at a time and all at
 * rates, in a frozen world: a 429's Retry-After is waited out before the next request (the gap measured);
 * a 5xx and a hung request (short timeout) are retried; a malformed market or trade is quarantined by its
 * ticker or trade id and the listing goes on (its page read again, the clean record stored); a duplicated,
 * overlapping or late ("skip") page of markets or trades is noticed from the repeat it causes and read
 * again; trades missing from the table are found by the reconciliation (Σ count against the market's
 * volume) and only those tickers rescanned. After each sync (and, at rates, after the reconciliation)
 * the tables equal the fault-free truth, each record stored once.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpClient } from '../ingest/http/client.ts';
import { createBetaClient } from '../ingest/venues/beta/client.ts';
import { type BetaSyncMode, pollBetaTrades, syncBeta } from '../ingest/venues/beta/sync.ts';
import type { Fault, FaultKind } from '../sim/venues/faults.ts';
import { type Replicas, startReplicas } from '../sim/venues/index.ts';
import { type Catalog, generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState, type WorldState } from '../sim/world/state.ts';
import { betaDifferences, betaTruth, doubled } from './support/beta-truth.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

const START = Date.UTC(2026, 3, 1);
const HOUR = 3_600_000;
const MARKETS_PAGE = 3;
const TRADES_PAGE = 50;

let catalog: Catalog;
let state: WorldState;
let replicas: Replicas;
let deps: TestDeps;

interface Logged {
  path: string;
  cursor: string | null;
  ticker: string | null;
  start: number;
  end: number;
  status: number | null;
}

/**
 * Syncs logging every request; `afterFirstPage` is queued once the first page of `path` has been
 * answered, so a paging fault lands on that listing's second page.
 */
function syncer(
  opts: {
    timeoutMs?: number;
    afterFirstPage?: { path: string; fault: Fault };
    pages?: { markets: number; trades: number };
  } = {},
) {
  const log: Logged[] = [];
  let armed = opts.afterFirstPage;
  const http = createHttpClient({
    baseUrl: replicas.urls.beta,
    timeoutMs: opts.timeoutMs ?? 5_000,
    baseDelayMs: 20,
    maxDelayMs: 100,
    fetch: async (input, init) => {
      const url = new URL(String(input));
      const entry: Logged = {
        path: url.pathname,
        cursor: url.searchParams.get('cursor'),
        ticker: url.searchParams.get('ticker'),
        start: Date.now(),
        end: 0,
        status: null,
      };
      log.push(entry);
      try {
        const res = await fetch(input, init);
        entry.status = res.status;
        return res;
      } finally {
        entry.end = Date.now();
        if (armed && entry.path === armed.path && entry.cursor === null && entry.status === 200) {
          replicas.faults.enqueue('beta', { ...armed.fault, path: armed.path });
          armed = undefined;
        }
      }
    },
  });
  const client = createBetaClient({
    http,
    marketsPageSize: opts.pages?.markets ?? MARKETS_PAGE,
    eventsPageSize: 4,
    tradesPageSize: opts.pages?.trades ?? TRADES_PAGE,
  });
  return {
    log,
    sync: (mode: BetaSyncMode = 'poll') => syncBeta({ ...deps, client }, { mode }),
    trades: () => pollBetaTrades({ ...deps, client }),
  };
}

const truth = () => betaTruth(catalog, state);
const quarantined = () =>
  deps.clickhouse.query<{ kind: string; record_id: string }>(
    'test.quarantine',
    "SELECT kind, record_id FROM quarantine FINAL WHERE source = 'beta' ORDER BY kind, record_id",
  );

async function expectTruth(parts: { trades?: boolean } = {}) {
  expect(await betaDifferences(deps.clickhouse, truth(), parts)).toEqual([]);
  expect(await doubled(deps.clickhouse)).toEqual([]);
}

beforeAll(async () => {
  catalog = generateCatalog({ seed: 'beta-b', size: 'small', startTime: START });
  state = createWorldState(catalog, { alpha: 'self' });
  state.tick(START + 2 * HOUR);
  replicas = await startReplicas({ catalog, state });
  deps = await createTestDeps('beta_faults');
  // Several pages of markets and of trades, so that paging faults have a page to repeat, overlap or skip.
  expect(catalog.venues.beta.markets.length).toBeGreaterThan(4 * MARKETS_PAGE);
  expect(state.trades('beta').length).toBeGreaterThan(4 * TRADES_PAGE);
}, 120_000);

afterAll(async () => {
  await replicas?.close();
  await deps?.close();
});

beforeEach(async () => {
  replicas.faults.clear();
  for (const t of ['beta_markets', 'beta_events', 'beta_series', 'beta_trades', 'quarantine', 'watermarks']) {
    await deps.clickhouse.command('test.truncate', `TRUNCATE TABLE ${t}`);
  }
});

describe('beta sync under faults', () => {
  it('rate_limit: waits out Retry-After before the next request', async () => {
    replicas.faults.enqueue('beta', { kind: 'rate_limit', retryAfterS: 1 });
    const s = syncer();
    await s.sync();
    const i = s.log.findIndex((l) => l.status === 429);
    expect(i).toBe(0);
    const gap = s.log[i + 1]!.start - s.log[i]!.end;
    expect(gap).toBeGreaterThanOrEqual(1_000);
    expect(s.log[i + 1]).toMatchObject({ path: s.log[i]!.path, cursor: s.log[i]!.cursor, status: 200 });
    await s.trades();
    await expectTruth();
  });

  it('server_error: retries after a backoff', async () => {
    replicas.faults.enqueue(
      'beta',
      { kind: 'server_error', status: 502, path: '/markets' },
      { kind: 'server_error', status: 503, path: '/markets' },
    );
    const s = syncer();
    await s.sync();
    const markets = s.log.filter((l) => l.path === '/markets');
    expect(markets.slice(0, 3).map((l) => [l.cursor, l.status])).toEqual([
      [null, 502],
      [null, 503],
      [null, 200],
    ]);
    await s.trades();
    await expectTruth();
  });

  it('hang: gives up on the attempt at the timeout and retries', async () => {
    replicas.faults.enqueue('beta', { kind: 'hang', path: '/markets/trades' });
    const s = syncer({ timeoutMs: 300 });
    await s.sync();
    await s.trades();
    const i = s.log.findIndex((l) => l.path === '/markets/trades');
    const hung = s.log[i]!;
    expect(hung.status).toBeNull();
    expect(hung.end - hung.start).toBeGreaterThanOrEqual(290);
    expect(hung.end - hung.start).toBeLessThan(2_000);
    expect(s.log[i + 1]).toMatchObject({ path: '/markets/trades', cursor: null, status: 200 });
    await expectTruth();
  });

  it('malformed: quarantines the market and the trade by id, the listing goes on', async () => {
    replicas.faults.enqueue('beta', { kind: 'malformed', path: '/markets' });
    const s = syncer();
    const summary = await s.sync();
    replicas.faults.enqueue('beta', { kind: 'malformed', path: '/markets/trades' });
    const trades = await s.trades();
    // The first market listed and the newest trade are the malformed ones (a field of the wrong type).
    const firstMarket = catalog.venues.beta.markets[0]!.key;
    const log = state.trades('beta');
    const newestTrade = log[log.length - 1]!.id;
    expect(await quarantined()).toEqual([
      { kind: 'market', record_id: firstMarket },
      { kind: 'trade', record_id: newestTrade },
    ]);
    expect([summary.quarantined, trades.quarantined]).toEqual([1, 1]);
    // The first page of each was read again and the clean record stored.
    expect(s.log.filter((l) => l.path === '/markets' && l.cursor === null).length).toBeGreaterThanOrEqual(2);
    expect(
      s.log.filter((l) => l.path === '/markets/trades' && l.cursor === null).length,
    ).toBeGreaterThanOrEqual(2);
    await expectTruth();
  });

  for (const kind of ['duplicate_page', 'overlap_page', 'skip_page'] as FaultKind[]) {
    for (const path of ['/markets', '/markets/trades']) {
      it(`${kind} on ${path}: notices the repeat, reads the pages again, each record stored once`, async () => {
        const before = replicas.faults.injected('beta')[kind];
        const s = syncer({ afterFirstPage: { path, fault: { kind } } });
        const markets = await s.sync();
        const summary = path === '/markets' ? markets : await s.trades();
        expect(replicas.faults.injected('beta')[kind] - before).toBe(1);
        expect(summary.rereads).toBeGreaterThan(1);
        // The faulty read was the second page; it (or, for a late page, the page after it) was read again.
        const pages = s.log.filter((l) => l.path === path);
        const second = pages[1]!.cursor;
        expect(second).not.toBeNull();
        expect(pages.filter((l) => l.cursor === second).length).toBeGreaterThanOrEqual(2);
        await expectTruth({ trades: path !== '/markets' });
      });
    }
  }

  it('reconciliation: rescans the trades of the tickers whose Σ count differs from their volume', async () => {
    const s = syncer();
    await s.sync();
    await s.trades();
    await expectTruth();
    // Trades a poll missed: two tickers lose some of their trades.
    const tickers = [...new Set(state.trades('beta').map((t) => t.marketKey))].slice(0, 2);
    await deps.clickhouse.command(
      'test.drop-trades',
      `ALTER TABLE beta_trades DELETE WHERE ticker IN ('${tickers.join("','")}') AND cityHash64(trade_id) % 2 = 0
       SETTINGS mutations_sync = 1`,
    );
    expect(
      (await betaDifferences(deps.clickhouse, truth())).some((d) => d.endsWith('trades not stored')),
    ).toBe(true);
    s.log.length = 0;
    const r = await s.sync('reconcile');
    expect(r.trades).toMatchObject({ mismatched: 2, stillMismatched: [] });
    expect(r.trades!.written).toBeGreaterThan(0);
    const rescanned = new Set(s.log.filter((l) => l.path === '/markets/trades').map((l) => l.ticker));
    expect([...rescanned].sort()).toEqual([...tickers].sort());
    await expectTruth();
    // Nothing left to rescan.
    const again = await s.sync('reconcile');
    expect(again.trades).toMatchObject({ mismatched: 0, written: 0 });
    expect([again.written, again.events.written, again.series.written]).toEqual([0, 0, 0]);
  });

  it('all at rates: after the reconciliation the tables equal the fault-free truth', async () => {
    replicas.faults.set('beta', {
      rate429: 0.2,
      rate5xx: 0.05,
      rateHang: 0.05,
      rateMalformed: 0.1,
      rateDuplicatePage: 0.1,
      rateOverlapPage: 0.1,
      rateSkipPage: 0.1,
      retryAfterS: 1,
    });
    // Pages of 4 markets and 100 trades (a few pages each; every 429 costs its 1 s Retry-After).
    const s = syncer({ timeoutMs: 300, pages: { markets: 4, trades: 100 } });
    await s.sync('poll');
    await s.trades();
    const reconcile = await s.sync('reconcile');
    const injected = replicas.faults.injected('beta');
    replicas.faults.clear();
    expect(reconcile.requests).toBeGreaterThan(0);
    for (const kind of Object.keys(injected) as FaultKind[]) expect(injected[kind], kind).toBeGreaterThan(0);
    // Every 429 was waited out (≥ 1 s before the next request left).
    for (let i = 0; i < s.log.length - 1; i++) {
      if (s.log[i]!.status === 429) expect(s.log[i + 1]!.start - s.log[i]!.end).toBeGreaterThanOrEqual(1_000);
    }
    const q = await quarantined();
    expect(q.length).toBeGreaterThan(0);
    for (const r of q) expect(r.record_id).not.toBe('');
    await expectTruth();
  }, 120_000);
});
