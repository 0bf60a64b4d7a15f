/**
 * Venue epsilon's ingestion under the replica's faults (sim/venues/faults.ts), one kind at a time and all
 * at rates: a 429's Retry-After is waited out before the next request (the gap measured); a 5xx and a
 * hung request (short VENUE_HTTP_TIMEOUT_MS) are retried; a malformed market is quarantined by its slug
 * (its id was the corrupted field) and the listing goes on (these four through the faults suite,
 * test/support/venue-faults-suite.ts); a duplicated or overlapping page is read
 * again; a markets page served half a page late is noticed from `pagination.total` and the listing read
 * again, an events page served late is made good by reading the events the markets name. After each sync
 * (and, at rates, after the reconciliation) the tables equal the fault-free truth of the frozen world,
 * each record stored once.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpClient } from '../ingest/http/client.ts';
import { runStream } from '../ingest/rest/runner.ts';
import { createEpsilonClient } from '../ingest/venues/epsilon/client.ts';
import { type EpsilonSyncMode, epsilon } from '../ingest/venues/epsilon/index.ts';
import type { Fault, FaultKind } from '../sim/venues/faults.ts';
import { type Replicas, startReplicas } from '../sim/venues/index.ts';
import { type Catalog, generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState, type WorldState } from '../sim/world/state.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { epsilonDifferences, epsilonDoubled, epsilonTruth } from './support/epsilon-truth.ts';
import { venueTransportFaults } from './support/venue-faults-suite.ts';

const START = Date.UTC(2026, 3, 1);
const HOUR = 3_600_000;
const PAGE = 2;
/** Records a page served half a page late skips. */
const SKIPPED = Math.max(1, Math.floor(PAGE / 2));
const MARKETS = '/public/api/v1/markets/';
const EVENTS = '/public/api/v1/events/';

let catalog: Catalog;
let state: WorldState;
let replicas: Replicas;
let deps: TestDeps;

interface Logged {
  path: string;
  page: string | null;
  /** performance.now() when the request left and when its answer's headers came. */
  start: number;
  end: number;
  status: number | null;
}

/**
 * A sync logging every request; `afterFirstPage` is queued once page 1 of its path has been answered, so
 * a paging fault lands on page 2 (page 1's "previous page" is itself).
 */
function syncer(opts: { timeoutMs?: number; afterFirstPage?: Fault; pageSize?: number } = {}) {
  const log: Logged[] = [];
  let armed = opts.afterFirstPage;
  const http = createHttpClient({
    baseUrl: replicas.urls.epsilon,
    timeoutMs: opts.timeoutMs ?? 5_000,
    baseDelayMs: 20,
    maxDelayMs: 100,
    fetch: async (input, init) => {
      const url = new URL(String(input));
      const entry: Logged = {
        path: url.pathname,
        page: url.searchParams.get('page'),
        start: performance.now(),
        end: 0,
        status: null,
      };
      log.push(entry);
      try {
        const res = await fetch(input, init);
        entry.status = res.status;
        return res;
      } finally {
        entry.end = performance.now();
        if (armed && entry.path === armed.path && entry.page === '1' && entry.status === 200) {
          replicas.faults.enqueue('epsilon', armed);
          armed = undefined;
        }
      }
    },
  });
  const client = createEpsilonClient({ http, pageSize: opts.pageSize ?? PAGE });
  return {
    log,
    run: (mode: EpsilonSyncMode = 'reconcile') =>
      runStream(epsilon, 'markets', { ...deps, client }, { mode }),
  };
}

const quarantined = () =>
  deps.clickhouse.query<{ kind: string; record_id: string }>(
    'test.quarantine',
    "SELECT kind, record_id FROM quarantine FINAL WHERE source = 'epsilon' ORDER BY kind, record_id",
  );

async function expectTruth() {
  expect(await epsilonDifferences(deps.clickhouse, epsilonTruth(catalog, state))).toEqual([]);
  expect(await epsilonDoubled(deps.clickhouse)).toEqual([]);
}

beforeAll(async () => {
  catalog = generateCatalog({ seed: 'epsilon-b', size: 'small', startTime: START });
  state = createWorldState(catalog, { alpha: 'self' });
  state.tick(START + 6 * HOUR);
  replicas = await startReplicas({ catalog, state });
  deps = await createTestDeps('epsilon_faults');
  // Several pages of markets and of events, so that paging faults have a page to repeat, overlap or skip.
  expect(catalog.venues.epsilon.markets.length).toBeGreaterThan(3 * PAGE);
  expect(catalog.venues.epsilon.events.length).toBeGreaterThan(2 * PAGE);
}, 120_000);

afterAll(async () => {
  await replicas?.close();
  await deps?.close();
});

beforeEach(async () => {
  replicas.faults.clear();
  for (const t of ['epsilon_markets', 'epsilon_events', 'epsilon_tags', 'quarantine', 'watermarks']) {
    await deps.clickhouse.command('test.truncate', `TRUNCATE TABLE ${t}`);
  }
});

describe('epsilon sync under faults', () => {
  it('the fault-free listing equals the truth (the baseline of the tests below)', async () => {
    const s = syncer();
    const summary = await s.run();
    expect(summary.quarantined).toBe(0);
    expect(summary.rereads).toBe(0);
    await expectTruth();
  });

  venueTransportFaults({
    venue: 'epsilon',
    replicas: () => replicas,
    syncer: (o) => syncer(o),
    listing: MARKETS,
    minGapMs: 999,
    quarantined,
    // The first market of page 1: its id (the first text field) became a number.
    malformed: () => ({ kind: 'market', record_id: catalog.venues.epsilon.markets[0]!.slug }),
    expectTruth,
  });

  it('malformed: quarantines an event by its slug, the listing goes on', async () => {
    replicas.faults.enqueue('epsilon', { kind: 'malformed', path: EVENTS });
    const s = syncer();
    const summary = await s.run();
    const first = catalog.venues.epsilon.events[0]!;
    expect(await quarantined()).toEqual([{ kind: 'event', record_id: first.ticker }]);
    expect(summary.quarantined).toBe(1);
    expect(s.log.filter((l) => l.path === EVENTS && l.page === '1')).toHaveLength(2);
    await expectTruth();
  });

  for (const kind of ['duplicate_page', 'overlap_page'] as FaultKind[]) {
    for (const path of [MARKETS, EVENTS]) {
      it(`${kind} on ${path}: reads the page again, each record stored once`, async () => {
        const before = replicas.faults.injected('epsilon')[kind];
        const s = syncer({ afterFirstPage: { kind, path } });
        const summary = await s.run();
        expect(replicas.faults.injected('epsilon')[kind] - before).toBe(1);
        expect(s.log.filter((l) => l.path === path && l.page === '2')).toHaveLength(2);
        expect(summary.rereads).toBe(1);
        await expectTruth();
      });
    }
  }

  it('skip_page on the markets: notices the short listing from its total and reads it again', async () => {
    const before = replicas.faults.injected('epsilon').skip_page;
    const s = syncer({ afterFirstPage: { kind: 'skip_page', path: MARKETS } });
    const summary = await s.run();
    expect(replicas.faults.injected('epsilon').skip_page - before).toBe(1);
    // A second pass over the markets pages; the page after the late one (it repeats the late page's last
    // record) read once more, found the same, and accepted.
    expect(s.log.filter((l) => l.path === MARKETS && l.page === '1')).toHaveLength(2);
    expect(s.log.filter((l) => l.path === MARKETS && l.page === '3')).toHaveLength(3);
    expect(summary.rereads).toBe(2);
    await expectTruth();
    // A reconciliation finds nothing to change.
    const r = await syncer().run('reconcile');
    expect([r.written, r.events.written, r.tags.written]).toEqual([0, 0, 0]);
  });

  it('skip_page on the events: the events the markets name are read by id', async () => {
    const before = replicas.faults.injected('epsilon').skip_page;
    const s = syncer({ afterFirstPage: { kind: 'skip_page', path: EVENTS } });
    const summary = await s.run();
    expect(replicas.faults.injected('epsilon').skip_page - before).toBe(1);
    const byId = s.log.filter((l) => l.path.startsWith(EVENTS) && l.path !== EVENTS);
    expect(byId).toHaveLength(SKIPPED);
    expect(summary.reread).toBe(SKIPPED);
    await expectTruth();
  });

  it('all at rates: after the reconciliation the tables equal the fault-free truth', async () => {
    const before = replicas.faults.injected('epsilon');
    replicas.faults.set('epsilon', {
      rate429: 0.2,
      rate5xx: 0.05,
      rateHang: 0.05,
      rateMalformed: 0.1,
      rateDuplicatePage: 0.1,
      rateOverlapPage: 0.1,
      rateSkipPage: 0.1,
      retryAfterS: 1,
    });
    // Two polls, then the reconciliation: enough requests for every kind to be drawn.
    const s = syncer({ timeoutMs: 300, pageSize: 3 });
    await s.run('poll');
    await s.run('poll');
    const reconcile = await s.run('reconcile');
    const after = replicas.faults.injected('epsilon');
    replicas.faults.clear();
    expect(reconcile.requests).toBeGreaterThan(0);
    for (const kind of Object.keys(after) as FaultKind[])
      expect(after[kind] - before[kind], kind).toBeGreaterThan(0);
    // Every 429 was waited out (≥ 1 s before any next request left).
    // Books are read 4 at a time: no request left in the second after a 429's answer (requests already
    // in flight then do not count; 1 ms allowed, the client's clock counts whole ms).
    const limited = s.log.filter((l) => l.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    for (const l of limited) {
      expect(s.log.filter((x) => x !== l && x.start >= l.end && x.start < l.end + 999)).toEqual([]);
    }
    const q = await quarantined();
    expect(q.length).toBeGreaterThan(0);
    for (const r of q) expect(r.record_id, r.kind).not.toBe('');
    await expectTruth();
  });
});
