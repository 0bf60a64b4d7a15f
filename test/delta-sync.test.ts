/**
 * Venue delta's ingestion against the sim's replica (sim/venues/delta/index.ts), compared with the world's
 * truth (test/support/delta-truth.ts). The sync suite (test/support/venue-sync-suite.ts) checks what every
 * venue's stream does (the first poll stores every activated market, a categorical market's children
 * included, and every categorical event once; an idle poll writes nothing; trades show after the next
 * poll); this file adds delta's own: the price reads (one per market not resolved, none on an idle poll,
 * only for markets that traded after), a categorical market's children carrying their parent, a market
 * that stopped trading read by id until it is resolved, then no more, and a reconciliation adding the
 * markets the activated listing never showed.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWatermarks } from '../core/watermarks.ts';
import { createHttpClient } from '../ingest/http/client.ts';
import { runStream } from '../ingest/rest/runner.ts';
import { createDeltaClient } from '../ingest/venues/delta/client.ts';
import { type DeltaSyncMode, type DeltaSyncSummary, delta } from '../ingest/venues/delta/index.ts';
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
import { type SyncHooks, venueSyncSuite } from './support/venue-sync-suite.ts';

const START = Date.UTC(2026, 3, 1);
const HOUR = 3_600_000;

let catalog: Catalog;
let state: WorldState;
let replicas: Replicas;
let deps: TestDeps;
/** Every request the syncs sent (path). */
const requests: string[] = [];
/** Topics listed as activated at some poll: the ones the tables must hold. */
const seen = new Map<string, CatalogEvent>();

const client = () =>
  createDeltaClient({
    pageSize: 3,
    http: createHttpClient({
      baseUrl: replicas.urls.delta,
      timeoutMs: 5_000,
      baseDelayMs: 20,
      maxDelayMs: 100,
      fetch: (input, init) => {
        requests.push(new URL(String(input)).pathname);
        return fetch(input, init);
      },
    }),
  });

async function sync(at: number, mode: DeltaSyncMode = 'poll', hooks?: SyncHooks) {
  state.tick(at);
  for (const e of activatedTopics(catalog, state)) seen.set(e.key, e);
  requests.length = 0;
  return runStream(
    delta,
    'markets',
    { ...deps, client: client(), now: () => at, watermarks: hooks?.watermarks },
    { mode, onProgress: hooks?.onProgress },
  );
}

const truth = () => deltaTruth(catalog, state, [...seen.values()]);
const priceReads = () => requests.filter((p) => p === '/token/latest-price').length;
const byIdReads = () => requests.filter((p) => p !== '/market' && p.startsWith('/market/'));

beforeAll(async () => {
  catalog = generateCatalog({ seed: 'delta-a', size: 'small', startTime: START });
  state = createWorldState(catalog, { alpha: 'self' });
  replicas = await startReplicas({ catalog, state });
  deps = await createTestDeps('delta_sync');
}, 120_000);

afterAll(async () => {
  await replicas?.close();
  await deps?.close();
});

describe('delta sync against the replica', () => {
  let before: ReturnType<typeof truth>;
  venueSyncSuite<DeltaSyncSummary>({
    venue: delta,
    deps: () => deps,
    sync,
    tables: ['delta_markets', 'delta_events'],
    counts: () => {
      const t = truth();
      return { markets: t.markets.size, events: t.events.size };
    },
    expectTruth: async () => expect(await deltaDifferences(deps.clickhouse, truth())).toEqual([]),
    doubled: () => deltaDoubled(deps.clickhouse),
    first: {
      at: START + HOUR,
      mode: 'poll',
      mark: () => ({ stream: 'markets', time: START + HOUR }),
      async check(s) {
        const t = truth();
        // One price read per market not resolved.
        expect(s.prices).toBe([...t.markets.values()].filter((m) => m.status !== 'resolved').length);
        // A categorical market's children carry their parent; a binary market none.
        const cat = [...seen.values()].find(isCategorical)!;
        const rows = await deps.clickhouse.query<{
          event_id: string;
          group_label: string | null;
          market_type: string;
        }>(
          'test.children',
          `SELECT toString(event_id) AS event_id, group_label, market_type FROM delta_markets FINAL
            WHERE event_key = {k:String}`,
          { k: cat.id },
        );
        expect(rows).toHaveLength(cat.marketKeys.length);
        expect(
          rows.every((r) => r.event_id === cat.id && r.group_label && r.market_type === 'categorical'),
        ).toBe(true);
      },
    },
    async idle(s) {
      // No price read either.
      expect(s.prices).toBe(0);
      expect(priceReads()).toBe(0);
      before = truth();
    },
    changed: {
      at: () => START + 3 * HOUR,
      async check(s) {
        // Prices read only for the markets that traded.
        const traded = [...truth().markets.values()].filter(
          (m) => m.status !== 'resolved' && m.volume_usd !== before.markets.get(m.market_id)?.volume_usd,
        );
        expect(traded.length).toBeGreaterThan(0);
        expect(s.prices).toBe(traded.length);
      },
    },
  });

  it('reads a market that stopped trading by id until it is resolved, then no more', async () => {
    const v = catalog.venues.delta;
    const single = v.events.find(
      (e) => !isCategorical(e) && seen.has(e.key) && state.market('delta', e.marketKeys[0]!).resolution,
    )!;
    const m = state.market('delta', single.marketKeys[0]!);
    const closedAt = m.endTime + HOUR / 4;
    expect(m.resolution!.time).toBeGreaterThan(closedAt);
    let s = await sync(closedAt);
    expect(activatedTopics(catalog, state)).not.toContain(single);
    expect(byIdReads()).toContain(`/market/${m.id}`);
    expect(s.reread).toBeGreaterThan(0);
    const stored = async () =>
      (
        await deps.clickhouse.query<{ status: string; result_token_id: string | null }>(
          'test.status',
          'SELECT status, result_token_id FROM delta_markets FINAL WHERE market_id = {id:UInt64}',
          { id: m.id },
        )
      )[0];
    expect(await stored()).toEqual({ status: 'closed', result_token_id: null });
    expect(await deltaDifferences(deps.clickhouse, truth())).toEqual([]);

    const last = Math.max(...v.markets.filter((x) => x.resolution).map((x) => x.resolution!.time));
    s = await sync(last + HOUR);
    expect(await stored()).toEqual({
      status: 'resolved',
      result_token_id: m.tokenIds[m.resolution!.winningIndex]!,
    });
    expect(await deltaDifferences(deps.clickhouse, truth())).toEqual([]);

    s = await sync(last + 2 * HOUR);
    expect(byIdReads()).not.toContain(`/market/${m.id}`);
    expect(await deltaDoubled(deps.clickhouse)).toEqual([]);
  });

  it('a reconciliation stores every topic of the venue, resolved ones never listed as activated included', async () => {
    const at = Math.max(...catalog.venues.delta.markets.map((x) => x.endTime)) + 30 * 24 * HOUR;
    const s = await sync(at, 'reconcile');
    const t = deltaTruth(catalog, state);
    expect(await deltaDifferences(deps.clickhouse, t)).toEqual([]);
    expect(s.read).toBe(t.markets.size);
    expect((await createWatermarks(deps.clickhouse).read('delta', 'reconcile'))?.time).toBe(at);
  });
});
