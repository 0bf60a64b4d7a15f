/**
 * Venue delta's ingestion under the replica's faults (sim/venues/faults.ts), one kind at a time and all
 * at rates: a 429's Retry-After is waited out before the next request (the gap measured); a 5xx and a
 * hung request (short VENUE_HTTP_TIMEOUT_MS) are retried; a malformed market is quarantined by its
 * marketId and the listing goes on (these four through the faults suite,
 * test/support/venue-faults-suite.ts); a duplicated or overlapping page is read again; a page served half a
 * page late is noticed from the listing's `total` and the listing read again, and when a poll still misses
 * entries the reconciliation stores them. An answer whose `{code,msg,result}` envelope carries `code` ≠ 0
 * (the replica has no such fault: a small server in front of it answers it) is read again, and raised as
 * a retryable error when it persists, nothing written. After each sync (and, at rates, after the
 * reconciliation) the tables equal the fault-free truth of the frozen world, each record stored once.
 */

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RetryableError } from '../core/errors.ts';
import { createWatermarks } from '../core/watermarks.ts';
import { createHttpClient } from '../ingest/http/client.ts';
import { runStream } from '../ingest/rest/runner.ts';
import { createDeltaClient, DeltaUpstreamError } from '../ingest/venues/delta/client.ts';
import { type DeltaSyncMode, delta } from '../ingest/venues/delta/index.ts';
import type { Fault, FaultKind } from '../sim/venues/faults.ts';
import { type Replicas, startReplicas } from '../sim/venues/index.ts';
import { type Catalog, type CatalogEvent, generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState, type WorldState } from '../sim/world/state.ts';
import {
  activatedTopics,
  deltaDifferences,
  deltaDoubled,
  deltaTruth,
  isCategorical,
} from './support/delta-truth.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { venueTransportFaults } from './support/venue-faults-suite.ts';

const START = Date.UTC(2026, 3, 1);
const HOUR = 3_600_000;
const PAGE = 2;
/** Entries a page served half a page late skips. */
const SKIPPED = PAGE / 2;
const LISTING = '/market';

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

interface SyncerOptions {
  timeoutMs?: number;
  /** Queued once page 1 of the listing has been answered, so a paging fault lands on page 2. */
  afterFirstPage?: Fault;
  pageSize?: number;
  passes?: number;
  /** Base URL (default the replica's). */
  baseUrl?: string;
}

/** A sync logging every request. */
function syncer(opts: SyncerOptions = {}) {
  const log: Logged[] = [];
  let armed = opts.afterFirstPage;
  const http = createHttpClient({
    baseUrl: opts.baseUrl ?? replicas.urls.delta,
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
        if (armed && entry.path === LISTING && entry.page === '1' && entry.status === 200) {
          replicas.faults.enqueue('delta', armed);
          armed = undefined;
        }
      }
    },
  });
  const client = createDeltaClient({
    http,
    pageSize: opts.pageSize ?? PAGE,
    codeRetryMs: 200,
    ...(opts.passes ? { passes: opts.passes } : {}),
  });
  return {
    log,
    listing: () => log.filter((l) => l.path === LISTING),
    run: (mode: DeltaSyncMode = 'reconcile') => runStream(delta, 'markets', { ...deps, client }, { mode }),
  };
}

const quarantined = () =>
  deps.clickhouse.query<{ kind: string; record_id: string }>(
    'test.quarantine',
    "SELECT kind, record_id FROM quarantine FINAL WHERE source = 'delta' ORDER BY kind, record_id",
  );

const count = async (table: string) =>
  Number(
    (await deps.clickhouse.query<{ n: string }>('test.count', `SELECT count() AS n FROM ${table}`))[0]!.n,
  );

/** The replica's listing order (sortBy=1): newest first, then the larger id. */
const newestFirst = (topics: readonly CatalogEvent[]) =>
  [...topics].sort((a, b) => b.createdAt - a.createdAt || Number(b.id) - Number(a.id));

/** A listed entry's marketId: a categorical market's own id, a binary market's. */
const entryId = (e: CatalogEvent) => (isCategorical(e) ? e.id : state.market('delta', e.marketKeys[0]!).id);

async function expectTruth(topics?: readonly CatalogEvent[]) {
  expect(await deltaDifferences(deps.clickhouse, deltaTruth(catalog, state, topics))).toEqual([]);
  expect(await deltaDoubled(deps.clickhouse)).toEqual([]);
}

/**
 * A server in front of the replica answering `{code, msg, result: null}` with `code` ≠ 0 (HTTP 200, as
 * the upstream does) to the first `failures` requests of the listing, and passing every other request on.
 */
async function codeServer(failures: number) {
  let left = failures;
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === LISTING && left > 0) {
      left--;
      const body = JSON.stringify({ code: 10_403, msg: 'system busy, try again later', result: null });
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      return;
    }
    const upstream = await fetch(`${replicas.urls.delta}${req.url}`);
    res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

beforeAll(async () => {
  catalog = generateCatalog({ seed: 'delta-b', size: 'small', startTime: START });
  state = createWorldState(catalog, { alpha: 'self' });
  state.tick(START + 6 * HOUR);
  replicas = await startReplicas({ catalog, state });
  deps = await createTestDeps('delta_faults');
  // Several pages of activated topics, so that paging faults have a page to repeat, overlap or skip.
  expect(activatedTopics(catalog, state).length).toBeGreaterThan(3 * PAGE);
}, 120_000);

afterAll(async () => {
  await replicas?.close();
  await deps?.close();
});

beforeEach(async () => {
  replicas.faults.clear();
  for (const t of ['delta_markets', 'delta_events', 'quarantine', 'watermarks']) {
    await deps.clickhouse.command('test.truncate', `TRUNCATE TABLE ${t}`);
  }
});

describe('delta sync under faults', () => {
  venueTransportFaults({
    venue: 'delta',
    replicas: () => replicas,
    syncer: (o) => syncer(o),
    listing: LISTING,
    quarantined,
    // The first entry of page 1 (every status, newest first): its title became a number.
    malformed: () => ({ kind: 'market', record_id: entryId(newestFirst(catalog.venues.delta.events)[0]!) }),
    expectTruth,
  });

  for (const kind of ['duplicate_page', 'overlap_page'] as FaultKind[]) {
    it(`${kind}: reads the page again, each record stored once`, async () => {
      const s = syncer({ afterFirstPage: { kind, path: LISTING } });
      const summary = await s.run();
      expect(replicas.faults.injected('delta')[kind]).toBe(1);
      expect(s.listing().filter((l) => l.page === '2')).toHaveLength(2);
      expect(summary.rereads).toBe(1);
      await expectTruth();
    });
  }

  it('skip_page: notices the short listing from its total and reads it again', async () => {
    const s = syncer({ afterFirstPage: { kind: 'skip_page', path: LISTING } });
    const summary = await s.run('poll');
    expect(replicas.faults.injected('delta').skip_page).toBe(1);
    // A second pass over the listing.
    expect(s.listing().filter((l) => l.page === '1')).toHaveLength(2);
    expect(summary.rereads).toBeGreaterThanOrEqual(1);
    await expectTruth(activatedTopics(catalog, state));
  });

  it('skip_page: entries a poll missed are stored by the reconciliation', async () => {
    // A client reading the listing once: the skipped entries stay missing after the poll.
    const s = syncer({ afterFirstPage: { kind: 'skip_page', path: LISTING }, passes: 1 });
    await s.run('poll');
    const activated = newestFirst(activatedTopics(catalog, state));
    const skipped = activated.slice(PAGE, PAGE + SKIPPED);
    const missing = await deltaDifferences(deps.clickhouse, deltaTruth(catalog, state, activated));
    const expected = skipped.flatMap((e) =>
      e.marketKeys.map((k) => `market ${state.market('delta', k).id}: not stored`),
    );
    expect(missing.filter((d) => d.startsWith('market')).sort()).toEqual(expected.sort());
    expect(await createWatermarks(deps.clickhouse).read('delta', 'reconcile')).toBeNull();

    const r = await syncer().run('reconcile');
    expect(r.written).toBeGreaterThanOrEqual(expected.length);
    await expectTruth();
    expect(await createWatermarks(deps.clickhouse).read('delta', 'reconcile')).not.toBeNull();
  });

  it('code ≠ 0 in the envelope: read again, the listing goes on', async () => {
    const front = await codeServer(2);
    try {
      const s = syncer({ baseUrl: front.url });
      const summary = await s.run();
      const first = s.listing().slice(0, 3);
      expect(first.map((l) => [l.page, l.status])).toEqual([
        ['1', 200],
        ['1', 200],
        ['1', 200],
      ]);
      // Read again codeRetryMs (200 ms) apart.
      expect(first[1]!.start - first[0]!.end).toBeGreaterThanOrEqual(190);
      expect(summary.rereads).toBe(2);
      await expectTruth();
    } finally {
      await front.close();
    }
  });

  it('code ≠ 0 that persists: a retryable DeltaUpstreamError, nothing written', async () => {
    const front = await codeServer(100);
    try {
      const s = syncer({ baseUrl: front.url });
      const err = await s.run().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DeltaUpstreamError);
      expect(err).toBeInstanceOf(RetryableError);
      expect((err as DeltaUpstreamError).code).toBe(10_403);
      expect((err as Error).message).toContain('system busy');
      // The first read and codeRetries (3) more, then given up.
      expect(s.listing()).toHaveLength(4);
      expect(await count('delta_markets')).toBe(0);
      expect(await createWatermarks(deps.clickhouse).read('delta', 'reconcile')).toBeNull();
    } finally {
      await front.close();
    }
  });

  it('all at rates: after the reconciliation the tables equal the fault-free truth', async () => {
    replicas.faults.set('delta', {
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
    const s = syncer({ timeoutMs: 300, pageSize: 2 });
    await s.run('poll');
    await s.run('poll');
    const reconcile = await s.run('reconcile');
    const injected = replicas.faults.injected('delta');
    replicas.faults.clear();
    expect(reconcile.requests).toBeGreaterThan(0);
    for (const kind of Object.keys(injected) as FaultKind[]) expect(injected[kind], kind).toBeGreaterThan(0);
    // Every 429 was waited out: no request left within 1 s after one came back (price reads run
    // concurrently, so a request already on its way may finish later; one leaving in the very ms the 429
    // came back left before it: the client waits from its headers).
    for (const l of s.log.filter((x) => x.status === 429)) {
      const early = s.log.filter((x) => x !== l && x.start > l.end && x.start < l.end + 1_000);
      expect(early).toEqual([]);
    }
    const q = await quarantined();
    expect(q.length).toBeGreaterThan(0);
    for (const r of q) expect(r.record_id, r.kind).toMatch(/^\d+$/);
    await expectTruth();
  });
});
