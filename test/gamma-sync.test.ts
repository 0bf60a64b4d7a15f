/**
 * Venue gamma's ingestion against the sim's replica (sim/venues/gamma/index.ts), compared with the
 * world's truth (test/support/gamma-truth.ts). The sync suite (test/support/venue-sync-suite.ts) checks
 * what every venue's stream does (the first poll stores every listed market, a group's markets included,
 * and every group once; an idle poll writes nothing; trades show after the next poll); this file adds
 * gamma's own: open interest (null for order-book markets, a number for pool markets), a group's label on
 * its markets, and a market that left the active list read again by slug until it is resolved (a single
 * market and a whole group), then no more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from '../ingest/http/client.ts';
import { runStream } from '../ingest/rest/runner.ts';
import { createGammaClient } from '../ingest/venues/gamma/client.ts';
import { type GammaSyncMode, type GammaSyncSummary, gamma } from '../ingest/venues/gamma/index.ts';
import { type Replicas, startReplicas } from '../sim/venues/index.ts';
import { type Catalog, type CatalogEvent, generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState, type WorldState } from '../sim/world/state.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { activeEvents, doubled, gammaDifferences, gammaTruth, isGroup } from './support/gamma-truth.ts';
import { type SyncHooks, venueSyncSuite } from './support/venue-sync-suite.ts';

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

async function poll(at: number, mode: GammaSyncMode = 'poll', hooks?: SyncHooks) {
  state.tick(at);
  for (const e of activeEvents(catalog, state)) seen.set(e.key, e);
  requests.length = 0;
  return runStream(
    gamma,
    'markets',
    { ...deps, client: client(), now: () => at, watermarks: hooks?.watermarks },
    { mode, onProgress: hooks?.onProgress },
  );
}

const truth = () => gammaTruth(catalog, state, [...seen.values()]);
async function expectTruth() {
  expect(await gammaDifferences(deps.clickhouse, truth())).toEqual([]);
}
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
  let volumeBefore = 0;
  venueSyncSuite<GammaSyncSummary>({
    venue: gamma,
    deps: () => deps,
    sync: poll,
    tables: ['gamma_markets', 'gamma_events'],
    counts: () => {
      const t = truth();
      return { markets: t.markets.size, events: t.events.size };
    },
    expectTruth,
    doubled: () => doubled(deps.clickhouse),
    first: {
      at: START + HOUR,
      mode: 'poll',
      mark: () => ({ stream: 'markets', time: START + HOUR }),
      async check() {
        expect(truth().markets.size).toBeGreaterThan(10);
        // Open interest: a number for every pool market, null for every order-book market.
        const oi = await deps.clickhouse.query<{ trade_type: string; nulls: string; n: string }>(
          'test.oi',
          `SELECT trade_type, countIf(open_interest_usd IS NULL) AS nulls, count() AS n
             FROM gamma_markets FINAL GROUP BY trade_type ORDER BY trade_type`,
        );
        expect(oi.map((r) => [r.trade_type, Number(r.nulls) === Number(r.n), Number(r.nulls) === 0])).toEqual(
          [
            ['amm', false, true],
            ['clob', true, false],
          ],
        );
        // A group's markets carry the group; a single market none.
        const group = [...seen.values()].find(isGroup)!;
        const rows = await deps.clickhouse.query<{ event_key: string; group_label: string | null }>(
          'test.group',
          'SELECT event_key, group_label FROM gamma_markets FINAL WHERE event_key = {k:String}',
          { k: group.ticker },
        );
        expect(rows).toHaveLength(group.marketKeys.length);
        expect(rows.every((r) => r.group_label !== null && r.group_label !== '')).toBe(true);
        volumeBefore = [...truth().markets.values()].reduce((s, m) => s + m.volume_usd, 0);
      },
    },
    changed: {
      at: () => START + 4 * HOUR,
      async check() {
        // Trades: the listed markets' volume grew.
        expect([...truth().markets.values()].reduce((s, m) => s + m.volume_usd, 0)).toBeGreaterThan(
          volumeBefore,
        );
      },
    },
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
