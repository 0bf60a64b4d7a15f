/**
 * Venue delta's ingestion against the sim's replica (sim/venues/delta/index.ts), compared with the world's
 * truth (test/support/delta-truth.ts): after a poll every activated market (a categorical market's
 * children included) and every categorical event is stored once, equal in ids, titles, status, prices,
 * volume; an idle poll writes nothing and reads no price; trades show after the next poll (prices read
 * only for markets that traded); a market that stopped trading is read by id until it is resolved, then no
 * more; a reconciliation adds the markets the activated listing never showed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from '../ingest/http/client.ts';
import { readCheckpoint } from '../ingest/rest/store.ts';
import { createDeltaClient } from '../ingest/venues/delta/client.ts';
import { syncDelta } from '../ingest/venues/delta/sync.ts';
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

async function sync(at: number, mode: 'poll' | 'reconcile' = 'poll') {
  state.tick(at);
  for (const e of activatedTopics(catalog, state)) seen.set(e.key, e);
  requests.length = 0;
  return syncDelta({ ...deps, client: client(), now: () => at }, { mode });
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
  it('stores every activated market and categorical event once, equal to the truth', async () => {
    const s = await sync(START + HOUR);
    const t = truth();
    expect(t.markets.size).toBeGreaterThan(5);
    expect(t.events.size).toBeGreaterThan(0);
    expect(await deltaDifferences(deps.clickhouse, t)).toEqual([]);
    expect(await deltaDoubled(deps.clickhouse)).toEqual([]);
    expect(s.read).toBe(t.markets.size);
    expect(s.written).toBe(t.markets.size);
    expect(s.events).toEqual({ read: t.events.size, written: t.events.size });
    expect(s.quarantined).toBe(0);
    // One price read per market not resolved; every page read with marketType=2 and limit ≤ 20.
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
    expect(rows.every((r) => r.event_id === cat.id && r.group_label && r.market_type === 'categorical')).toBe(
      true,
    );
    expect(await readCheckpoint(deps.clickhouse, 'delta', 'markets')).toBe(START + HOUR);
  });

  it('writes nothing and reads no price on an idle poll', async () => {
    const count = async () =>
      (await deps.clickhouse.query<{ n: string }>('test.n', 'SELECT count() AS n FROM delta_markets'))[0]!.n;
    const before = await count();
    const s = await sync(START + HOUR);
    expect([s.written, s.events.written, s.prices]).toEqual([0, 0, 0]);
    expect(priceReads()).toBe(0);
    expect(await count()).toBe(before);
  });

  it('shows trades after the next poll, reading prices only of markets that traded', async () => {
    const before = truth();
    const s = await sync(START + 3 * HOUR);
    const t = truth();
    const traded = [...t.markets.values()].filter(
      (m) => m.status !== 'resolved' && m.volume_usd !== before.markets.get(m.market_id)?.volume_usd,
    );
    expect(traded.length).toBeGreaterThan(0);
    expect(s.written).toBeGreaterThan(0);
    expect(s.prices).toBe(traded.length);
    expect(await deltaDifferences(deps.clickhouse, t)).toEqual([]);
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
    expect(await readCheckpoint(deps.clickhouse, 'delta', 'reconcile')).toBe(at);
  });
});
