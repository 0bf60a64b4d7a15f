/**
 * The demo's venue step (jobs/commands/demo.ts `ingestVenues`, the `pmdata backfill <venue>` of each venue)
 * beside the venues' scheduled runs, against the replicas: with every venue's lease and canonical lease
 * held as a scheduled run holds it — beta's trades lease by a real trades poll that stores every trade —
 * the step waits for each (saying so) instead of failing with "lease held", then lists every venue; beta's
 * summary says what is stored (the trades the poll wrote), not only its own "0 written".
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireLease, type Lease } from '../core/lease.ts';
import { pollBetaTrades } from '../ingest/venues/beta/sync.ts';
import { ingestVenues } from '../jobs/commands/demo.ts';
import type { CliIo } from '../jobs/commands/io.ts';
import { BETA_MARKETS_LEASE, BETA_TRADES_LEASE } from '../jobs/processors/beta.ts';
import { canonicalLease } from '../jobs/processors/canonical.ts';
import { DELTA_LEASE } from '../jobs/processors/delta.ts';
import { EPSILON_LEASE } from '../jobs/processors/epsilon.ts';
import { GAMMA_LEASE } from '../jobs/processors/gamma.ts';
import { type Replicas, startReplicas } from '../sim/venues/index.ts';
import { generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState, type WorldState } from '../sim/world/state.ts';
import { betaDifferences, betaTruth } from './support/beta-truth.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

const START = Date.UTC(2026, 3, 1);
const HOUR = 3_600_000;
const VENUES = ['beta', 'gamma', 'delta', 'epsilon'] as const;

let state: WorldState;
let replicas: Replicas;
let deps: TestDeps;
let catalog: ReturnType<typeof generateCatalog>;

beforeAll(async () => {
  catalog = generateCatalog({ seed: 'demo-venue-steps', size: 'small', startTime: START });
  state = createWorldState(catalog, { alpha: 'self' });
  state.tick(START + 2 * HOUR);
  replicas = await startReplicas({ catalog, state });
  deps = await createTestDeps('demo_venue_steps', {
    env: {
      BETA_API_URL: replicas.urls.beta,
      GAMMA_API_URL: replicas.urls.gamma,
      DELTA_API_URL: replicas.urls.delta,
      EPSILON_API_URL: replicas.urls.epsilon,
    },
  });
}, 120_000);

afterAll(async () => {
  await replicas?.close();
  await deps?.close();
});

const count = async (table: string) =>
  Number(
    (await deps.clickhouse.query<{ n: string }>('test.n', `SELECT count() AS n FROM ${table} FINAL`))[0]?.n,
  );

describe("the demo's venue step beside the scheduled runs", () => {
  it('waits for every lease a scheduled run holds, then ingests every venue', async () => {
    const keys = [
      BETA_MARKETS_LEASE,
      BETA_TRADES_LEASE,
      GAMMA_LEASE,
      DELTA_LEASE,
      EPSILON_LEASE,
      ...VENUES.map(canonicalLease),
    ];
    const held = new Map<string, Lease>();
    for (const k of keys) {
      const lease = await acquireLease(deps.redis, k, 30_000);
      expect(lease.held, k).toBe(true);
      held.set(k, lease);
    }
    const out: string[] = [];
    const io: CliIo = { out: (l) => out.push(l), progress: () => {}, isTTY: false };
    /** Waits until the step says `line`; then the run it waits for may end. */
    const said = async (line: string) => {
      for (const t0 = Date.now(); !out.includes(line); await sleep(50)) {
        if (Date.now() - t0 > 30_000) throw new Error(`no "${line}" in:\n${out.join('\n')}`);
      }
    };
    try {
      const step = ingestVenues(deps, () => {}, { io });
      // The step is waiting (it used to end at once with exit code 1: "... (lease held); try again").
      expect(await Promise.race([step, sleep(1500).then(() => 'waiting')]), out.join('\n')).toBe('waiting');
      await said('beta: another beta markets sync is running (lease held); waiting for it');
      await held.get(BETA_MARKETS_LEASE)!.release();
      // The scheduled trades poll holds its lease and stores every trade, then ends.
      await said('beta: another beta trades poll is running (lease held); waiting for it');
      const poll = await pollBetaTrades(deps);
      expect(poll.written).toBe(state.trades('beta').length);
      await held.get(BETA_TRADES_LEASE)!.release();
      for (const v of VENUES) {
        if (v !== 'beta') {
          await said(`${v}: another ${v} sync is running (lease held); waiting for it`);
          await held.get({ gamma: GAMMA_LEASE, delta: DELTA_LEASE, epsilon: EPSILON_LEASE }[v])!.release();
        }
        await said(`${v}: canonical ids are being assigned by a job; waiting for it`);
        await held.get(canonicalLease(v))!.release();
      }
      expect(await step, out.join('\n')).toBe(0);
    } finally {
      for (const lease of held.values()) await lease.release();
    }
    const t = betaTruth(catalog, state);
    expect(await betaDifferences(deps.clickhouse, t)).toEqual([]);
    // beta's summary: this run wrote no trade (the poll had), and it says how many are stored.
    const fmt = (n: number) => n.toLocaleString('en-US');
    const beta = out.find((l) => l.startsWith('beta done in '));
    expect(beta, out.join('\n')).toMatch(
      new RegExp(
        `trades ${fmt(t.trades.size)} read, 0 written\\); stored now ${fmt(t.markets.size)} markets, ` +
          `${fmt(t.events.size)} events, ${fmt(t.series.size)} series, ${fmt(t.trades.size)} trades;`,
      ),
    );
    for (const v of ['gamma', 'delta', 'epsilon']) {
      const markets = await count(`${v}_markets`);
      expect(markets, v).toBeGreaterThan(0);
      expect(out.find((l) => l.startsWith(`${v} done in `))).toContain(`stored now ${fmt(markets)} markets`);
    }
    for (const v of VENUES) expect(out.some((l) => l.startsWith(`${v} canonical ids: `))).toBe(true);
  }, 120_000);
});
