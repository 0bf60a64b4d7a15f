/**
 * Venue gamma's ingestion against the sim's replica (sim/venues/gamma/index.ts), compared with the
 * world's truth (test/support/gamma-truth.ts): after a poll every listed market (a group's markets
 * included) and every group is stored once, equal in ids, titles, status, prices, volume, open interest
 * (null for order-book markets, a number for pool markets); an idle poll writes nothing; trades show
 * after the next poll; a market that left the active list is read again by slug until it is resolved
 * (a single market and a whole group), then no more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from '../ingest/http/client.ts';
import { readCheckpoint } from '../ingest/rest/store.ts';
import { createGammaClient } from '../ingest/venues/gamma/client.ts';
import { syncGamma } from '../ingest/venues/gamma/sync.ts';
import { type Replicas, startReplicas } from '../sim/venues/index.ts';
import { type Catalog, type CatalogEvent, generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState, type WorldState } from '../sim/world/state.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { activeEvents, doubled, gammaDifferences, gammaTruth, isGroup } from './support/gamma-truth.ts';

const START = Date.UTC(2026, 3, 1);
const HOUR = 3_600_000;

let catalog: Catalog;
let state: WorldState;
let replicas: Replicas;
let deps: TestDeps;
/** Every request the syncs sent (path and query). */
const requests: string[] = [];
/** Events listed as active at some poll: the ones the tables must hold. */
const seen = new Map<string, CatalogEvent>();

const client = () =>
  createGammaClient({
    pageSize: 4,
    http: createHttpClient({
      baseUrl: replicas.urls.gamma,
      timeoutMs: 5_000,
      baseDelayMs: 20,
      maxDelayMs: 100,
      fetch: (input, init) => {
        requests.push(new URL(String(input)).pathname);
        return fetch(input, init);
      },
    }),
  });

async function poll(at: number) {
  state.tick(at);
  for (const e of activeEvents(catalog, state)) seen.set(e.key, e);
  requests.length = 0;
  return syncGamma({ ...deps, client: client(), now: () => at }, { mode: 'poll' });
}

const truth = () => gammaTruth(catalog, state, [...seen.values()]);
const bySlugReads = () =>
  requests.filter((p) => p.startsWith('/markets/') && !p.startsWith('/markets/active'));

beforeAll(async () => {
  catalog = generateCatalog({ seed: 'gamma-a', size: 'small', startTime: START });
  state = createWorldState(catalog, { alpha: 'self' });
  replicas = await startReplicas({ catalog, state });
  deps = await createTestDeps('gamma_sync');
}, 120_000);

afterAll(async () => {
  await replicas?.close();
  await deps?.close();
});

describe('gamma sync against the replica', () => {
  it('stores every listed market and group once, equal to the truth', async () => {
    const s = await poll(START + HOUR);
    const t = truth();
    expect(t.markets.size).toBeGreaterThan(10);
    expect(t.events.size).toBeGreaterThan(0);
    expect(await gammaDifferences(deps.clickhouse, t)).toEqual([]);
    expect(await doubled(deps.clickhouse)).toEqual([]);
    expect(s.read).toBe(t.markets.size);
    expect(s.written).toBe(t.markets.size);
    expect(s.events).toEqual({ read: t.events.size, written: t.events.size });
    expect(s.quarantined).toBe(0);
    // Open interest: a number for every pool market, null for every order-book market.
    const oi = await deps.clickhouse.query<{ trade_type: string; nulls: string; n: string }>(
      'test.oi',
      `SELECT trade_type, countIf(open_interest_usd IS NULL) AS nulls, count() AS n
         FROM gamma_markets FINAL GROUP BY trade_type ORDER BY trade_type`,
    );
    expect(oi.map((r) => [r.trade_type, Number(r.nulls) === Number(r.n), Number(r.nulls) === 0])).toEqual([
      ['amm', false, true],
      ['clob', true, false],
    ]);
    // A group's markets carry the group; a single market none.
    const group = [...seen.values()].find(isGroup)!;
    const rows = await deps.clickhouse.query<{ event_key: string; group_label: string | null }>(
      'test.group',
      'SELECT event_key, group_label FROM gamma_markets FINAL WHERE event_key = {k:String}',
      { k: group.ticker },
    );
    expect(rows).toHaveLength(group.marketKeys.length);
    expect(rows.every((r) => r.group_label !== null && r.group_label !== '')).toBe(true);
    expect(await readCheckpoint(deps.clickhouse, 'gamma', 'markets')).toBe(START + HOUR);
  });

  it('writes nothing on an idle poll', async () => {
    const before = await deps.clickhouse.query<{ n: string }>(
      'test.n',
      'SELECT count() AS n FROM gamma_markets',
    );
    const s = await poll(START + HOUR);
    expect([s.written, s.events.written]).toEqual([0, 0]);
    const after = await deps.clickhouse.query<{ n: string }>(
      'test.n',
      'SELECT count() AS n FROM gamma_markets',
    );
    expect(after).toEqual(before);
  });

  it('shows trades after the next poll', async () => {
    const volumeBefore = [...truth().markets.values()].reduce((s, m) => s + m.volume_usd, 0);
    const s = await poll(START + 4 * HOUR);
    const t = truth();
    expect([...t.markets.values()].reduce((s, m) => s + m.volume_usd, 0)).toBeGreaterThan(volumeBefore);
    expect(s.written).toBeGreaterThan(0);
    expect(await gammaDifferences(deps.clickhouse, t)).toEqual([]);
  });

  it('reads a market that left the active list by slug until it is resolved', async () => {
    const v = catalog.venues.gamma;
    // A single market and a group that close and resolve within the horizon, in that order.
    const single = v.events.find((e) => !isGroup(e) && state.market('gamma', e.marketKeys[0]!).resolution)!;
    const m = state.market('gamma', single.marketKeys[0]!);
    const closedAt = m.endTime + HOUR / 2;
    expect(m.resolution!.time).toBeGreaterThan(closedAt);

    let s = await poll(closedAt);
    expect(activeEvents(catalog, state)).not.toContain(single);
    expect(bySlugReads()).toContain(`/markets/${m.slug}`);
    expect(s.reread).toBeGreaterThan(0);
    const stored = async () =>
      (
        await deps.clickhouse.query<{ status: string; winning_outcome: number | null }>(
          'test.status',
          'SELECT status, winning_outcome FROM gamma_markets FINAL WHERE slug = {s:String}',
          { s: m.slug },
        )
      )[0];
    expect(await stored()).toEqual({ status: 'closed', winning_outcome: null });
    expect(await gammaDifferences(deps.clickhouse, truth())).toEqual([]);

    // Past every planned resolution: every market that left the list is stored resolved.
    const last = Math.max(...v.markets.filter((x) => x.resolution).map((x) => x.resolution!.time));
    s = await poll(last + HOUR);
    expect(await stored()).toEqual({ status: 'resolved', winning_outcome: m.resolution!.winningIndex });
    expect(await gammaDifferences(deps.clickhouse, truth())).toEqual([]);
    const groups = await deps.clickhouse.query<{ status: string; n: string }>(
      'test.events',
      'SELECT status, count() AS n FROM gamma_events FINAL GROUP BY status ORDER BY status',
    );
    expect(groups.find((g) => g.status === 'resolved')).toBeDefined();

    // Resolved: not read again.
    s = await poll(last + 2 * HOUR);
    expect(bySlugReads()).not.toContain(`/markets/${m.slug}`);
    const unresolved = [...truth().markets.values()].filter((x) => x.status !== 'resolved');
    const unlisted = unresolved.filter(
      (x) =>
        !activeEvents(catalog, state).some((e) =>
          e.marketKeys.some((k) => state.market('gamma', k).slug === x.slug),
        ),
    );
    expect(s.reread).toBe(new Set(unlisted.map((x) => x.event_key || x.slug)).size);
  });
});
