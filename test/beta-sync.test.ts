/**
 * Venue beta's ingestion against the sim's replica (sim/venues/beta/index.ts), compared with the world's
 * truth (test/support/beta-truth.ts). The sync suite (test/support/venue-sync-suite.ts) checks what every
 * venue's stream does (after the first sync every market and event is stored once, equal in ids, titles,
 * status, prices, volume; an idle poll writes nothing; a resolution shows after the next poll); this file
 * adds beta's own: its series and trades stream (every trade so far once, an idle trades poll writing
 * nothing, every trade of several live polls stored exactly once), the checkpoint trailing the newest
 * change by a margin and the polls reading only the markets changed since it (`min_updated_ts`), a
 * status change without a trade included, and the other markets of an event that gained a market read
 * again (their group label changes).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWatermarks } from '../core/watermarks.ts';
import { createHttpClient } from '../ingest/http/client.ts';
import { runStream } from '../ingest/rest/runner.ts';
import { createBetaClient } from '../ingest/venues/beta/client.ts';
import { type BetaSyncMode, type BetaSyncSummary, beta } from '../ingest/venues/beta/index.ts';
import { MARKETS_MARGIN_MS } from '../ingest/venues/beta/read.ts';
import { type Replicas, startReplicas } from '../sim/venues/index.ts';
import { type Catalog, generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState, type WorldState } from '../sim/world/state.ts';
import { betaDifferences, betaTruth, doubled, tradeDifferences } from './support/beta-truth.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { type SyncHooks, venueSyncSuite } from './support/venue-sync-suite.ts';

const START = Date.UTC(2026, 3, 1);
const HOUR = 3_600_000;

let catalog: Catalog;
let state: WorldState;
let replicas: Replicas;
let deps: TestDeps;
/** Every request the syncs sent (path and query). */
const requests: URL[] = [];

const client = () =>
  createBetaClient({
    marketsPageSize: 5,
    eventsPageSize: 4,
    tradesPageSize: 100,
    http: createHttpClient({
      baseUrl: replicas.urls.beta,
      timeoutMs: 5_000,
      baseDelayMs: 20,
      maxDelayMs: 100,
      fetch: (input, init) => {
        requests.push(new URL(String(input)));
        return fetch(input, init);
      },
    }),
  });

const sync = (at: number, mode: BetaSyncMode = 'poll', hooks?: SyncHooks) => {
  state.tick(at);
  requests.length = 0;
  return runStream(
    beta,
    'markets',
    { ...deps, client: client(), now: () => at, watermarks: hooks?.watermarks },
    { mode, onProgress: hooks?.onProgress },
  );
};
const trades = (at: number) =>
  runStream(beta, 'trades', { ...deps, client: client(), now: () => at }, { mode: 'poll' });
const truth = () => betaTruth(catalog, state);
const rowCount = async (table: string) =>
  Number((await deps.clickhouse.query<{ n: string }>('test.n', `SELECT count() AS n FROM ${table}`))[0]?.n);

beforeAll(async () => {
  catalog = generateCatalog({ seed: 'beta-a', size: 'small', startTime: START });
  state = createWorldState(catalog, { alpha: 'self' });
  replicas = await startReplicas({ catalog, state });
  deps = await createTestDeps('beta_sync');
}, 120_000);

afterAll(async () => {
  await replicas?.close();
  await deps?.close();
});

describe('beta sync against the replica', () => {
  venueSyncSuite<BetaSyncSummary>({
    venue: beta,
    deps: () => deps,
    sync,
    tables: ['beta_markets', 'beta_events', 'beta_series', 'beta_trades'],
    counts: () => {
      const t = truth();
      return { markets: t.markets.size, events: t.events.size };
    },
    // The markets stream's tables (the trades are the trades stream's, checked by the hooks after it).
    expectTruth: async () =>
      expect(await betaDifferences(deps.clickhouse, truth(), { trades: false })).toEqual([]),
    doubled: () => doubled(deps.clickhouse),
    first: {
      at: START + HOUR,
      mode: 'poll',
      mark: () => {
        // The checkpoint trails the newest change by the margin, in whole seconds.
        const t = truth();
        const newest = Math.max(
          ...[...t.markets.keys()].map((k) => state.price('beta', k).lastTradeTime ?? 0),
        );
        return { stream: 'markets', time: Math.floor((newest - MARKETS_MARGIN_MS) / 1000) * 1000 };
      },
      async check(s) {
        const t = truth();
        expect(t.markets.size).toBeGreaterThan(20);
        expect(s.since).toBeNull();
        expect(s.series).toEqual({ read: t.series.size, written: t.series.size });
        // Pages of 5 markets, every one read, the last one twice (its check); no min_updated_ts on a first sync.
        const pages = Math.ceil(t.markets.size / 5);
        const marketReads = requests.filter((u) => u.pathname === '/markets');
        expect(marketReads).toHaveLength(pages + 1);
        expect(marketReads.every((u) => !u.searchParams.has('min_updated_ts'))).toBe(true);
        // A mutually exclusive event's markets carry their label.
        const labelled = await deps.clickhouse.query<{ n: string }>(
          'test.labels',
          'SELECT count() AS n FROM beta_markets FINAL WHERE group_label IS NOT NULL',
        );
        expect(Number(labelled[0]?.n)).toBe(
          [...t.markets.values()].filter((m) => m.group_label !== null).length,
        );
        // The trades stream: every trade so far, once.
        const tr = await trades(START + HOUR);
        expect(t.trades.size).toBeGreaterThan(100);
        expect(tr.quarantined).toBe(0);
        expect([tr.read, tr.written, tr.stopBefore]).toEqual([t.trades.size, t.trades.size, null]);
        expect(await betaDifferences(deps.clickhouse, truth())).toEqual([]);
        expect(await doubled(deps.clickhouse)).toEqual([]);
      },
    },
    async idle(s) {
      expect(s.series.written).toBe(0);
      // The poll asked only for markets changed since the checkpoint.
      const since = Number((await createWatermarks(deps.clickhouse).read('beta', 'markets'))?.time) / 1000;
      expect(s.since).toBe(since);
      const marketReads = requests.filter((u) => u.pathname === '/markets');
      expect(marketReads.every((u) => u.searchParams.get('min_updated_ts') === String(since))).toBe(true);
      expect(s.read).toBeLessThan(truth().markets.size);
      // An idle trades poll writes nothing either.
      const before = await rowCount('beta_trades');
      const tr = await trades(START + HOUR);
      expect(tr.written).toBe(0);
      expect(await rowCount('beta_trades')).toBe(before);
    },
    between: () => {
      it('relabels the other markets of an event that gained a market', async () => {
        // A market the next poll lists again (changed within the checkpoint's margin) in a mutually exclusive
        // event, made new by deleting it; a sibling the poll does not list stored without its label, as when the
        // event had one market.
        await sync(state.now());
        const since = Number((await createWatermarks(deps.clickhouse).read('beta', 'markets'))?.time);
        const changed = (k: string) => (state.price('beta', k).lastTradeTime ?? 0) >= since;
        const v = catalog.venues.beta;
        const event = v.events.find(
          (e) => e.mutuallyExclusive && e.marketKeys.some(changed) && e.marketKeys.some((k) => !changed(k)),
        )!;
        expect(event).toBeDefined();
        const added = event.marketKeys.find(changed)!;
        const sibling = event.marketKeys.find((k) => !changed(k))!;
        await deps.clickhouse.command(
          'test.forget',
          `ALTER TABLE beta_markets DELETE WHERE ticker = {t:String} SETTINGS mutations_sync = 1`,
          { t: added },
        );
        await deps.clickhouse.command(
          'test.unlabel',
          `ALTER TABLE beta_markets UPDATE group_label = NULL, content_hash = '' WHERE ticker = {t:String}
         SETTINGS mutations_sync = 1`,
          { t: sibling },
        );
        const s = await sync(state.now());
        expect(requests.some((u) => u.searchParams.get('event_ticker') === event.key)).toBe(true);
        expect(s.written).toBeGreaterThanOrEqual(2);
        expect(await betaDifferences(deps.clickhouse, truth(), { trades: false })).toEqual([]);
      });
    },
    // Past the first resolution: some markets resolved, others traded meanwhile.
    changed: {
      at: () =>
        Math.min(...catalog.venues.beta.markets.filter((m) => m.resolution).map((m) => m.resolution!.time)) +
        HOUR / 4,
      async check(s) {
        const v = catalog.venues.beta;
        const at = state.now();
        const resolved = v.markets.filter((m) => state.status('beta', m.key).status === 'resolved');
        expect(resolved.length).toBeGreaterThan(0);
        expect(s.since).not.toBeNull();
        const tr = await trades(at);
        expect(tr.written).toBeGreaterThan(0);
        expect(tr.stopBefore).not.toBeNull();
        expect(await betaDifferences(deps.clickhouse, truth())).toEqual([]);
        const stored = await deps.clickhouse.query<{ status: string; result: string | null }>(
          'test.resolved',
          'SELECT status, result FROM beta_markets FINAL WHERE ticker = {t:String}',
          { t: resolved[0]!.key },
        );
        expect(stored[0]?.status).toBe('resolved');
        expect(stored[0]?.result).toMatch(/^(yes|no)$/);

        // A market whose only change is its status (no trade since) shows too: closed without trading after.
        const later = v.markets.find((m) => m.endTime > at && state.status('beta', m.key).status === 'open')!;
        await sync(later.endTime + 1_000);
        const st = await deps.clickhouse.query<{ status: string }>(
          'test.closed',
          'SELECT status FROM beta_markets FINAL WHERE ticker = {t:String}',
          { t: later.key },
        );
        expect(st[0]?.status).toBe(truth().markets.get(later.key)!.status);
        expect(st[0]?.status).not.toBe('open');
        expect(await betaDifferences(deps.clickhouse, truth(), { trades: false })).toEqual([]);
      },
    },
  });

  it('stores every trade of several live polls exactly once', async () => {
    let at = state.now();
    let written = 0;
    for (let i = 0; i < 4; i++) {
      at += 7 * 60_000;
      state.tick(at);
      const tr = await trades(at);
      expect(tr.quarantined).toBe(0);
      written += tr.written;
      // Each poll reads down to the newest stored trade (minus the overlap), not the whole history.
      expect(tr.read).toBeLessThan(truth().trades.size / 2);
    }
    expect(written).toBeGreaterThan(0);
    expect(await tradeDifferences(deps.clickhouse, truth())).toEqual([]);
    expect(await doubled(deps.clickhouse)).toEqual([]);
  });
});
