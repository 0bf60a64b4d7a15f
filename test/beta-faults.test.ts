/**
 * Venue beta's ingestion under the replica's faults (sim/venues/faults.ts), one kind at a time and all at
 * rates, in a frozen world. The faults suite (test/support/venue-faults-suite.ts) checks what every venue
 * survives, on beta's markets listing (cursor-paged, after the series): a 429's Retry-After waited out, a
 * 5xx retried, a hung request (here the trades listing's, short timeout) retried, a malformed market
 * quarantined by its ticker while the listing goes on. This file adds beta's own: a malformed trade
 * quarantined by its trade id; a duplicated, overlapping or late ("skip") page of markets or trades noticed
 * from the repeat it causes and read again; trades missing from the table found by the reconciliation
 * (Σ count against the market's volume) and only those tickers rescanned. After each sync (and, at rates,
 * after the reconciliation) the tables equal the fault-free truth, each record stored once.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpClient } from '../ingest/http/client.ts';
import { runStream } from '../ingest/rest/runner.ts';
import { createBetaClient } from '../ingest/venues/beta/client.ts';
import { type BetaSyncMode, beta } from '../ingest/venues/beta/index.ts';
import type { Fault, FaultKind } from '../sim/venues/faults.ts';
import { type Replicas, startReplicas } from '../sim/venues/index.ts';
import { type Catalog, generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState, type WorldState } from '../sim/world/state.ts';
import { betaDifferences, betaTruth, doubled } from './support/beta-truth.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { type LoggedRequest, venueTransportFaults } from './support/venue-faults-suite.ts';

const START = Date.UTC(2026, 3, 1);
const HOUR = 3_600_000;
const MARKETS_PAGE = 3;
const TRADES_PAGE = 50;

let catalog: Catalog;
let state: WorldState;
let replicas: Replicas;
let deps: TestDeps;

interface Logged extends LoggedRequest {
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
        // A cursor-paged listing: the cursor is the page asked for (null: the first).
        page: url.searchParams.get('cursor'),
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
    sync: (mode: BetaSyncMode = 'poll') => runStream(beta, 'markets', { ...deps, client }, { mode }),
    trades: () => runStream(beta, 'trades', { ...deps, client }, { mode: 'poll' }),
    /** Both streams, the markets then the trades. */
    async run() {
      const m = await runStream(beta, 'markets', { ...deps, client }, { mode: 'poll' });
      const t = await runStream(beta, 'trades', { ...deps, client }, { mode: 'poll' });
      return { quarantined: m.quarantined + t.quarantined };
    },
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
  venueTransportFaults({
    venue: 'beta',
    replicas: () => replicas,
    syncer: (o) => syncer(o),
    listing: '/markets',
    listingFirst: false,
    firstPage: null,
    // The trades listing: its first request hangs (the markets' listing is the suite's other faults).
    hangPath: '/markets/trades',
    quarantined,
    // The first market listed: a field of the wrong type.
    malformed: () => ({ kind: 'market', record_id: catalog.venues.beta.markets[0]!.key }),
    expectTruth,
  });

  it('malformed trade: quarantines the trade by its id, the trades listing goes on', async () => {
    replicas.faults.enqueue('beta', { kind: 'malformed', path: '/markets/trades' });
    const s = syncer();
    await s.sync();
    const trades = await s.trades();
    // The newest trade is the malformed one (a field of the wrong type).
    const log = state.trades('beta');
    expect(await quarantined()).toEqual([{ kind: 'trade', record_id: log[log.length - 1]!.id }]);
    expect(trades.quarantined).toBe(1);
    // The first page was read again and the clean record stored.
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
