/**
 * Venue gamma's ingestion under the replica's faults (sim/venues/faults.ts), one kind at a time and all
 * at rates: a 429's Retry-After is waited out before the next request (the gap measured); a 5xx and a
 * hung request (short VENUE_HTTP_TIMEOUT_MS) are retried; a malformed record is quarantined by its slug
 * and the listing goes on (these four through the faults suite, test/support/venue-faults-suite.ts); a
 * duplicated or overlapping page is read again; a page served half a page late
 * (records skipped) is noticed from the listing's count and the missing entries are read by slug. After
 * each sync (and, at rates, after the reconciliation) the tables equal the fault-free truth of the frozen
 * world, each record stored once.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpClient } from '../ingest/http/client.ts';
import { runStream } from '../ingest/rest/runner.ts';
import { createGammaClient } from '../ingest/venues/gamma/client.ts';
import { type GammaSyncMode, gamma } from '../ingest/venues/gamma/index.ts';
import type { Fault, FaultKind } from '../sim/venues/faults.ts';
import { type Replicas, startReplicas } from '../sim/venues/index.ts';
import { type Catalog, generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState, type WorldState } from '../sim/world/state.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { activeEvents, doubled, gammaDifferences, gammaTruth, isGroup } from './support/gamma-truth.ts';
import { venueTransportFaults } from './support/venue-faults-suite.ts';

const START = Date.UTC(2026, 3, 1);
const HOUR = 3_600_000;
const PAGE = 4;

let catalog: Catalog;
let state: WorldState;
let replicas: Replicas;
let deps: TestDeps;

interface Logged {
  path: string;
  page: string | null;
  start: number;
  end: number;
  status: number | null;
}

/**
 * A sync logging every request; `afterFirstPage` is queued once page 1 has been answered, so a paging
 * fault lands on page 2 (page 1's "previous page" is itself).
 */
function syncer(opts: { timeoutMs?: number; afterFirstPage?: Fault; pageSize?: number } = {}) {
  const log: Logged[] = [];
  let armed = opts.afterFirstPage;
  const http = createHttpClient({
    baseUrl: replicas.urls.gamma,
    timeoutMs: opts.timeoutMs ?? 5_000,
    baseDelayMs: 20,
    maxDelayMs: 100,
    fetch: async (input, init) => {
      const url = new URL(String(input));
      const entry: Logged = {
        path: url.pathname,
        page: url.searchParams.get('page'),
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
        if (armed && entry.page === '1' && entry.status === 200) {
          replicas.faults.enqueue('gamma', armed);
          armed = undefined;
        }
      }
    },
  });
  const client = createGammaClient({ http, pageSize: opts.pageSize ?? PAGE });
  return {
    log,
    run: (mode: GammaSyncMode = 'poll') => runStream(gamma, 'markets', { ...deps, client }, { mode }),
  };
}

const truth = () => gammaTruth(catalog, state);
const quarantined = () =>
  deps.clickhouse.query<{ kind: string; record_id: string }>(
    'test.quarantine',
    "SELECT kind, record_id FROM quarantine FINAL WHERE source = 'gamma' ORDER BY kind, record_id",
  );

async function expectTruth() {
  expect(await gammaDifferences(deps.clickhouse, truth())).toEqual([]);
  expect(await doubled(deps.clickhouse)).toEqual([]);
}

beforeAll(async () => {
  catalog = generateCatalog({ seed: 'gamma-b', size: 'small', startTime: START });
  state = createWorldState(catalog, { alpha: 'self' });
  state.tick(START + 2 * HOUR);
  replicas = await startReplicas({ catalog, state });
  deps = await createTestDeps('gamma_faults');
  // Several pages, so that paging faults have a page to repeat, overlap or skip.
  expect(activeEvents(catalog, state).length).toBeGreaterThan(2 * PAGE);
}, 120_000);

afterAll(async () => {
  await replicas?.close();
  await deps?.close();
});

beforeEach(async () => {
  replicas.faults.clear();
  for (const t of ['gamma_markets', 'gamma_events', 'quarantine', 'watermarks']) {
    await deps.clickhouse.command('test.truncate', `TRUNCATE TABLE ${t}`);
  }
});

describe('gamma sync under faults', () => {
  venueTransportFaults({
    venue: 'gamma',
    replicas: () => replicas,
    syncer: (o) => syncer(o),
    listing: '/markets/active',
    quarantined,
    // The first entry of page 1 (newest first): its first text field became a number.
    malformed: () => {
      const first = [...activeEvents(catalog, state)].sort(
        (a, b) => b.createdAt - a.createdAt || Number(b.id) - Number(a.id),
      )[0]!;
      return isGroup(first)
        ? { kind: 'group', record_id: first.id }
        : { kind: 'market', record_id: state.market('gamma', first.marketKeys[0]!).slug };
    },
    expectTruth,
  });

  for (const kind of ['duplicate_page', 'overlap_page'] as FaultKind[]) {
    it(`${kind}: reads the page again, each record stored once`, async () => {
      const s = syncer({ afterFirstPage: { kind, path: '/markets/active' } });
      const summary = await s.run();
      expect(replicas.faults.injected('gamma')[kind]).toBe(1);
      expect(s.log.filter((l) => l.page === '2')).toHaveLength(2);
      expect(summary.rereads).toBe(1);
      expect(summary.filled).toBe(0);
      await expectTruth();
    });
  }

  it('skip_page: notices the missing entries from the count and reads them by slug', async () => {
    const s = syncer({ afterFirstPage: { kind: 'skip_page', path: '/markets/active' } });
    const summary = await s.run();
    expect(replicas.faults.injected('gamma').skip_page).toBe(1);
    expect(summary.filled).toBe(PAGE / 2);
    expect(s.log.filter((l) => l.path === '/markets/active/slugs')).toHaveLength(1);
    await expectTruth();
    // A reconciliation finds nothing to change.
    const r = await syncer().run('reconcile');
    expect([r.written, r.events.written, r.filled]).toEqual([0, 0, 0]);
  });

  it('all at rates: after the reconciliation the tables equal the fault-free truth', async () => {
    replicas.faults.set('gamma', {
      rate429: 0.2,
      rate5xx: 0.05,
      rateHang: 0.05,
      rateMalformed: 0.1,
      rateDuplicatePage: 0.1,
      rateOverlapPage: 0.1,
      rateSkipPage: 0.1,
      retryAfterS: 1,
    });
    // Pages of 2 and two polls before the reconciliation: enough requests for every kind to be drawn.
    const s = syncer({ timeoutMs: 300, pageSize: 2 });
    await s.run('poll');
    await s.run('poll');
    const reconcile = await s.run('reconcile');
    const injected = replicas.faults.injected('gamma');
    replicas.faults.clear();
    expect(reconcile.requests).toBeGreaterThan(0);
    for (const kind of Object.keys(injected) as FaultKind[]) expect(injected[kind], kind).toBeGreaterThan(0);
    // Every 429 was waited out (≥ 1 s before the next request left).
    for (let i = 0; i < s.log.length - 1; i++) {
      if (s.log[i]!.status === 429) expect(s.log[i + 1]!.start - s.log[i]!.end).toBeGreaterThanOrEqual(1_000);
    }
    // Markets and groups by their slug or id (a slug-list record whose slug was the corrupted field has none).
    const q = await quarantined();
    expect(q.length).toBeGreaterThan(0);
    for (const r of q) if (r.kind !== 'active_slug') expect(r.record_id).not.toBe('');
    await expectTruth();
  });
});
