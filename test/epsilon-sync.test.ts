/**
 * Venue epsilon's ingestion against the sim's replica (sim/venues/epsilon/index.ts), compared with the
 * world's catalog and state: after a reconciliation every market and event of the venue is stored once
 * with its id, title, slug, status, outcomes, tokens, prices and volume; an idle sync writes nothing; trades
 * and resolutions show after the next poll; `pmdata backfill epsilon` refuses `--trades`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from '../ingest/http/client.ts';
import { runStream } from '../ingest/rest/runner.ts';
import { createEpsilonClient } from '../ingest/venues/epsilon/client.ts';
import { epsilon } from '../ingest/venues/epsilon/index.ts';
import { listingBackfill } from '../jobs/commands/backfill-listing.ts';
import { type Replicas, startReplicas } from '../sim/venues/index.ts';
import { type Catalog, generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState, type WorldState } from '../sim/world/state.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

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

async function sync(at: number, mode: 'poll' | 'reconcile') {
  state.tick(at);
  return runStream(epsilon, 'markets', { ...deps, client: client(), now: () => at }, { mode });
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
  it('stores every market and event once, equal to the world; an idle sync writes nothing', async () => {
    const first = await sync(START + 6 * HOUR, 'reconcile');
    expect(first.quarantined).toBe(0);
    expectEqualToTruth(await stored());
    const [events] = await deps.clickhouse.query<{ n: string; ids: string }>(
      'test.epsilon.events',
      'SELECT count() AS n, uniqExact(event_id) AS ids FROM epsilon_events FINAL',
    );
    expect(Number(events?.n)).toBe(catalog.venues.epsilon.events.length);
    const again = await sync(START + 6 * HOUR, 'reconcile');
    expect(again.written + again.events.written).toBe(0);
  });

  it('shows trades and resolutions after the next poll, each market still once', async () => {
    const end = Math.max(...catalog.venues.epsilon.markets.map((m) => m.resolution?.time ?? 0)) + HOUR;
    await sync(START + 30 * HOUR, 'poll');
    expectEqualToTruth(await stored());
    await sync(end, 'poll');
    const rows = await stored();
    expectEqualToTruth(rows);
    expect(rows.some((r) => r.status === 'resolved')).toBe(true);
    const [raw] = await deps.clickhouse.query<{ n: string; ids: string }>(
      'test.epsilon.count',
      'SELECT count() AS n, uniqExact(market_id) AS ids FROM epsilon_markets FINAL',
    );
    expect(raw?.n).toBe(raw?.ids);
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
