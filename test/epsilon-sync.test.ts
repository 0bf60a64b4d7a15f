/**
 * Venue epsilon's ingestion against the sim's replica (sim/venues/epsilon/index.ts), compared with the
 * world's catalog and state. The sync suite (test/support/venue-sync-suite.ts) checks what every venue's
 * stream does, epsilon's first sync a reconciliation: every market and event of the venue stored once with
 * its id, title, slug, status, outcomes, tokens, prices and volume; an idle sync writes nothing; trades
 * show after the next poll. This file adds epsilon's own: resolutions after a later poll, each market
 * still once, and `pmdata backfill epsilon` refusing `--trades`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from '../ingest/http/client.ts';
import { runStream } from '../ingest/rest/runner.ts';
import { createEpsilonClient } from '../ingest/venues/epsilon/client.ts';
import { type EpsilonSyncMode, type EpsilonSyncSummary, epsilon } from '../ingest/venues/epsilon/index.ts';
import { listingBackfill } from '../jobs/commands/backfill-listing.ts';
import { type Replicas, startReplicas } from '../sim/venues/index.ts';
import { type Catalog, generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState, type WorldState } from '../sim/world/state.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { type SyncHooks, venueSyncSuite } from './support/venue-sync-suite.ts';

const START = Date.UTC(2026, 3, 1);
const HOUR = 3_600_000;

let catalog: Catalog;
let state: WorldState;
let replicas: Replicas;
let deps: TestDeps;

const client = () =>
  createEpsilonClient({
    pageSize: 4,
    http: createHttpClient({
      baseUrl: replicas.urls.epsilon,
      timeoutMs: 5_000,
      baseDelayMs: 20,
      maxDelayMs: 100,
    }),
  });

async function sync(at: number, mode: EpsilonSyncMode, hooks?: SyncHooks) {
  state.tick(at);
  return runStream(
    epsilon,
    'markets',
    { ...deps, client: client(), now: () => at, watermarks: hooks?.watermarks },
    { mode, onProgress: hooks?.onProgress },
  );
}

interface Stored {
  market_id: string;
  title: string;
  market_slug: string;
  status: string;
  outcomes: string[];
  token_ids: string[];
  prices: (number | null)[];
  volume_usd: number;
  event_key: string;
}

async function stored(): Promise<Stored[]> {
  return deps.clickhouse.query<Stored>(
    'test.epsilon.markets',
    `SELECT toString(market_id) AS market_id, title, market_slug, status, outcomes, token_ids, prices,
       volume_usd, event_key FROM epsilon_markets FINAL ORDER BY market_id`,
  );
}

/** The world's view of every epsilon market now. */
function truth() {
  return catalog.venues.epsilon.markets
    .map((m) => {
      const st = state.status('epsilon', m.key);
      const yes =
        st.status === 'resolved' ? (st.winningIndex === 0 ? 1 : 0) : state.price('epsilon', m.key).last;
      return {
        market_id: m.id,
        title: m.question,
        market_slug: m.slug,
        status: st.status,
        outcomes: [...m.outcomes],
        token_ids: [...m.tokenIds],
        yes,
        volume: state.volume('epsilon', m.key).notional,
        event_key: m.eventKey,
      };
    })
    .sort((a, b) => (a.market_id < b.market_id ? -1 : a.market_id > b.market_id ? 1 : 0));
}

function expectEqualToTruth(rows: Stored[]) {
  const t = truth();
  expect(rows.map((r) => r.market_id)).toEqual(t.map((x) => x.market_id));
  rows.forEach((r, i) => {
    const x = t[i] as (typeof t)[number];
    expect({ id: r.market_id, title: r.title, slug: r.market_slug, status: r.status }).toEqual({
      id: x.market_id,
      title: x.title,
      slug: x.market_slug,
      status: x.status,
    });
    expect(r.outcomes).toEqual(x.outcomes);
    expect(r.token_ids).toEqual(x.token_ids);
    expect(r.event_key).toBe(x.event_key);
    expect(r.prices[0]).toBeCloseTo(x.yes, 4);
    expect(r.volume_usd).toBeCloseTo(x.volume, 2);
  });
}

beforeAll(async () => {
  catalog = generateCatalog({ seed: 'epsilon-a', size: 'small', startTime: START });
  state = createWorldState(catalog, { alpha: 'self' });
  replicas = await startReplicas({ catalog, state });
  deps = await createTestDeps('epsilon_sync');
}, 120_000);

afterAll(async () => {
  await replicas?.close();
  await deps?.close();
});

describe('epsilon ingestion against the replica', () => {
  venueSyncSuite<EpsilonSyncSummary>({
    venue: epsilon,
    deps: () => deps,
    sync,
    tables: ['epsilon_markets', 'epsilon_events'],
    counts: () => ({
      markets: catalog.venues.epsilon.markets.length,
      events: catalog.venues.epsilon.events.length,
    }),
    expectTruth: async () => expectEqualToTruth(await stored()),
    doubled: async () =>
      (
        await deps.clickhouse.query<{ t: string; id: string; n: string }>(
          'test.epsilon.doubled',
          `SELECT 'market' AS t, toString(market_id) AS id, count() AS n FROM epsilon_markets
             GROUP BY market_id HAVING n > 1
           UNION ALL SELECT 'event' AS t, toString(event_id) AS id, count() AS n FROM epsilon_events
             GROUP BY event_id HAVING n > 1`,
        )
      ).map((r) => `${r.t} ${r.id} ×${r.n}`),
    // A reconciliation first: every market and event of the venue.
    first: {
      at: START + 6 * HOUR,
      mode: 'reconcile',
      mark: () => ({ stream: 'reconcile', time: START + 6 * HOUR }),
      async check() {
        const [events] = await deps.clickhouse.query<{ n: string }>(
          'test.epsilon.events',
          'SELECT count() AS n FROM epsilon_events FINAL',
        );
        expect(Number(events?.n)).toBe(catalog.venues.epsilon.events.length);
      },
    },
    changed: {
      at: () => START + 30 * HOUR,
      async check() {
        // Past every resolution: the resolutions show, each market still once.
        const end = Math.max(...catalog.venues.epsilon.markets.map((m) => m.resolution?.time ?? 0)) + HOUR;
        await sync(end, 'poll');
        const rows = await stored();
        expectEqualToTruth(rows);
        expect(rows.some((r) => r.status === 'resolved')).toBe(true);
        const [raw] = await deps.clickhouse.query<{ n: string; ids: string }>(
          'test.epsilon.count',
          'SELECT count() AS n, uniqExact(market_id) AS ids FROM epsilon_markets FINAL',
        );
        expect(raw?.n).toBe(raw?.ids);
      },
    },
  });

  it('backfill refuses --trades (exit 2) and lists the venue otherwise', async () => {
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), progress: () => {}, isTTY: false };
    const run = listingBackfill(epsilon, { tradesFor: 'beta' });
    expect(await run({ ...deps, client: client() }, io, { trades: true, from: null })).toBe(2);
    expect(lines[0]).toMatch(/no trades stream/);
    expect(await run({ ...deps, client: client() }, io, { trades: false, from: null })).toBe(0);
    expect(lines.at(-1)).toMatch(/^epsilon done in .* 0 written; events \d+ read, 0 written/);
  });
});
