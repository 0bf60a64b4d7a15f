/**
 * The jobs suite of the REST venues (jobs/venues.ts, jobs/processors/venue-streams.ts), one case per venue
 * whose backfill is a listing (gamma, delta, epsilon), against the replicas (<VENUE>_API_URL pointing at
 * them): `pmdata backfill <venue>` refuses `--trades` and reads nothing, lists the venue with progress
 * lines and a summary whose counts equal the world's markets and events (in the venue's own word for its
 * events) and assigns the canonical ids, and a second run writes nothing; the markets job runs under the
 * markets lease (a poll finding it held is skipped, a reconciliation fails retryable, the backfill waits
 * for it), a run that wrote rows enqueues the venue's canonical ids. For every REST venue (beta included),
 * the markets job and its two schedules carry VENUE_MARKETS_POLL_S and VENUE_RECONCILE_S and are the
 * workers' and the scheduler's. What is a venue's own: test/<venue>-jobs.test.ts (beta's trades).
 */
import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetryableError } from '../core/errors.ts';
import { acquireLease } from '../core/lease.ts';
import { venuesConfig } from '../ingest/rest/config.ts';
import { runBackfillCommand } from '../jobs/commands/backfill.ts';
import type { CliIo } from '../jobs/commands/io.ts';
import type { JobContext, JobDefinition, Schedule } from '../jobs/define.ts';
import { canonicalJob } from '../jobs/processors/canonical.ts';
import type { StreamJobs, StreamPayload as VenueSyncPayload } from '../jobs/processors/venue-streams.ts';
import { ALL_JOBS } from '../jobs/registry.ts';
import { SCHEDULES } from '../jobs/schedules.ts';
import { BACKFILL_VENUES, schedulesOf, VENUE_JOBS, venueJob } from '../jobs/venues.ts';
import { type Replicas, startReplicas } from '../sim/venues/index.ts';
import { type Catalog, generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState, type WorldState } from '../sim/world/state.ts';
import { deltaDifferences, deltaDoubled, deltaTruth } from './support/delta-truth.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { gammaDifferences, doubled as gammaDoubled, gammaTruth } from './support/gamma-truth.ts';

const START = Date.UTC(2026, 3, 1);
const HOUR = 3_600_000;

let catalog: Catalog;
let state: WorldState;
let replicas: Replicas;
let deps: TestDeps;

interface VenueCase {
  venue: 'gamma' | 'delta' | 'epsilon';
  /** What the venue calls its events in the summary, and a further figure of it (a pattern). */
  eventsWord: string;
  more?: string;
  job: StreamJobs<unknown>['job'];
  jobs: readonly JobDefinition<never, unknown>[];
  schedules: readonly Schedule[];
  lease: string;
  /** The markets and events a full listing holds (the world's). */
  counts: () => { markets: number; events: number };
  /** Differences between the tables and the world's truth ([] when equal). */
  differences: () => Promise<string[]>;
  /** Rows stored more than once ([] when none), checked after a listing that wrote nothing. */
  rowsOnce?: () => Promise<string[]>;
}

const CASES: VenueCase[] = [
  {
    venue: 'gamma',
    eventsWord: 'groups',
    // The entries read by slug: the listing's gaps and the markets that left it.
    more: '\\d+ read by slug',
    job: venueJob('gamma', 'markets'),
    jobs: VENUE_JOBS.filter((j) => j.name.startsWith('gamma.')),
    schedules: schedulesOf('gamma'),
    lease: 'gamma:markets:lease',
    counts: () => {
      const t = gammaTruth(catalog, state);
      return { markets: t.markets.size, events: t.events.size };
    },
    differences: () => gammaDifferences(deps.clickhouse, gammaTruth(catalog, state)),
    // No row stored twice (before a merge) after a listing that wrote nothing.
    rowsOnce: () => gammaDoubled(deps.clickhouse),
  },
  {
    venue: 'delta',
    eventsWord: 'events',
    job: venueJob('delta', 'markets'),
    jobs: VENUE_JOBS.filter((j) => j.name.startsWith('delta.')),
    schedules: schedulesOf('delta'),
    lease: 'delta:markets:lease',
    counts: () => {
      const t = deltaTruth(catalog, state);
      return { markets: t.markets.size, events: t.events.size };
    },
    differences: async () => [
      ...(await deltaDifferences(deps.clickhouse, deltaTruth(catalog, state))),
      ...(await deltaDoubled(deps.clickhouse)),
    ],
  },
  {
    venue: 'epsilon',
    eventsWord: 'events',
    job: venueJob('epsilon', 'markets'),
    jobs: VENUE_JOBS.filter((j) => j.name.startsWith('epsilon.')),
    schedules: schedulesOf('epsilon'),
    lease: 'epsilon:markets:lease',
    counts: () => ({
      markets: catalog.venues.epsilon.markets.length,
      events: catalog.venues.epsilon.events.length,
    }),
    // Every market once, with the world's status (the sync's fields: test/epsilon-sync.test.ts).
    differences: async () => {
      const rows = await deps.clickhouse.query<{ id: string; status: string; n: string }>(
        'test.epsilon.stored',
        `SELECT toString(market_id) AS id, any(status) AS status, count() AS n
           FROM epsilon_markets FINAL GROUP BY market_id`,
      );
      const have = new Map(rows.map((r) => [r.id, r]));
      const out: string[] = [];
      for (const m of catalog.venues.epsilon.markets) {
        const r = have.get(m.id);
        const want = state.status('epsilon', m.key).status;
        if (!r) out.push(`market ${m.id}: not stored`);
        else if (r.status !== want || r.n !== '1')
          out.push(`market ${m.id}: ${r.status} ×${r.n}, truth ${want}`);
        have.delete(m.id);
      }
      for (const id of have.keys()) out.push(`market ${id}: stored, not in the world`);
      return out;
    },
  },
];

const collect = () => {
  const out: string[] = [];
  const progress: string[] = [];
  const io: CliIo = { out: (l) => out.push(l), progress: (l) => progress.push(l), isTTY: false };
  return { io, out, progress };
};

/** The two numbers following `word` in a line ("markets 12 read, 12 written" → [12, 12]), or null. */
function counts(lines: readonly string[], word: string): [number, number] | null {
  const re = new RegExp(`\\b${word}\\b\\D*?(\\d[\\d,]*)\\D+?(\\d[\\d,]*)`);
  for (const l of [...lines].reverse()) {
    const m = re.exec(l);
    if (m) return [Number(m[1]!.replaceAll(',', '')), Number(m[2]!.replaceAll(',', ''))];
  }
  return null;
}

const rows = async (table: string) =>
  Number((await deps.clickhouse.query<{ n: string }>('test.n', `SELECT count() AS n FROM ${table}`))[0]!.n);

function runJob(c: VenueCase, mode: VenueSyncPayload['mode']) {
  const enqueued: { name: string; payload: unknown }[] = [];
  const ctx = {
    deps,
    job: { data: { mode } } as Job<VenueSyncPayload>,
    log: deps.log,
    signal: new AbortController().signal,
    enqueue: async (def: JobDefinition<never, unknown>, payload: unknown) => {
      enqueued.push({ name: def.name, payload });
      return undefined;
    },
  } as JobContext<VenueSyncPayload>;
  return { enqueued, result: c.job.process(ctx) as Promise<{ ran: boolean; summary?: { written: number } }> };
}

beforeAll(async () => {
  catalog = generateCatalog({ seed: 'vj-2', size: 'small', startTime: START });
  state = createWorldState(catalog, { alpha: 'self' });
  state.tick(START + HOUR);
  replicas = await startReplicas({ catalog, state });
  deps = await createTestDeps('venue_markets_jobs', {
    env: {
      BETA_API_URL: replicas.urls.beta,
      GAMMA_API_URL: replicas.urls.gamma,
      DELTA_API_URL: replicas.urls.delta,
      EPSILON_API_URL: replicas.urls.epsilon,
      VENUE_MARKETS_POLL_S: '45',
      VENUE_RECONCILE_S: '900',
    },
  });
}, 120_000);

afterAll(async () => {
  await replicas?.close();
  await deps?.close();
});

describe.each(CASES)('$venue markets: command and job', (c) => {
  it('backfill --trades is refused with exit code 2 and reads nothing', async () => {
    const requests = replicas.faults.requests(c.venue);
    const out = collect();
    expect(await runBackfillCommand([c.venue, '--trades'], deps, { io: out.io })).toBe(2);
    expect(out.out).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${c.venue} has no trades stream \\(only its markets are ingested\\): --trades is for beta; nothing was read`,
        ),
      ),
    ]);
    expect(replicas.faults.requests(c.venue)).toBe(requests);
    expect(await rows(`${c.venue}_markets`)).toBe(0);
  });

  it('backfill lists the venue with progress and a summary (= the world) and assigns canonical ids; again, it writes nothing', async () => {
    const first = collect();
    // Progress lines at every update (not a terminal, an interval of 0).
    expect(
      await runBackfillCommand([c.venue, '--from', '2026-04-01'], deps, { io: first.io, progressEveryMs: 0 }),
    ).toBe(0);
    // --from bounds trades only: said, then ignored.
    expect(first.out[0]).toBe(`${c.venue}: --from bounds trades only; ignored`);
    expect(first.progress.length).toBeGreaterThan(0);
    const progressLine = new RegExp(`^${c.venue} [\\d,]+ requests [\\d,]+ requests/s .+, \\d+ quarantined$`);
    expect(first.progress.filter((l) => !progressLine.test(l))).toEqual([]);
    const n = c.counts();
    expect(n.markets).toBeGreaterThan(5);
    expect(n.events).toBeGreaterThan(0);
    const w = c.eventsWord;
    expect(first.out).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^${c.venue} done in [\\d.]+ s: markets ${n.markets} read, ${n.markets} written; ` +
            `${w} ${n.events} read, ${n.events} written; ${c.more ? `${c.more}; ` : ''}` +
            `stored now ${n.markets} markets, ${n.events} ${w}; ` +
            '[\\d,]+ records, [\\d,]+ requests \\([\\d,]+ records/s, [\\d,]+ requests/s\\); 0 failed, 0 quarantined$',
        ),
      ),
    );
    expect(counts(first.out, 'markets')).toEqual([n.markets, n.markets]);
    expect(counts(first.out, w)).toEqual([n.events, n.events]);
    expect(await c.differences()).toEqual([]);
    // The canonical step: one id per stored outcome of the venue.
    const outcomes = Number(
      (
        await deps.clickhouse.query<{ n: string }>(
          'test.canonical',
          'SELECT count() AS n FROM canonical_outcomes FINAL WHERE venue = {v:String}',
          { v: c.venue },
        )
      )[0]!.n,
    );
    expect(outcomes).toBeGreaterThanOrEqual(2 * n.markets);
    expect(counts(first.out, 'canonical ids')?.[0]).toBe(outcomes);

    const again = collect();
    expect(await runBackfillCommand([c.venue], deps, { io: again.io })).toBe(0);
    expect(counts(again.out, 'markets')).toEqual([n.markets, 0]);
    expect(counts(again.out, c.eventsWord)).toEqual([n.events, 0]);
    expect(await c.differences()).toEqual([]);
    expect((await c.rowsOnce?.()) ?? []).toEqual([]);
  });

  it('runs the job under the markets lease; a run that wrote enqueues the canonical ids', async () => {
    const lease = await acquireLease(deps.redis, c.lease, 30_000);
    expect(lease.held).toBe(true);
    try {
      const poll = runJob(c, 'poll');
      expect(await poll.result).toEqual({ ran: false });
      expect(poll.enqueued).toEqual([]);
      await expect(runJob(c, 'reconcile').result).rejects.toBeInstanceOf(RetryableError);
      // The backfill waits for the lease (until its signal stops the wait: exit 1).
      const out = collect();
      const signal = AbortSignal.timeout(300);
      expect(await runBackfillCommand([c.venue], deps, { io: out.io, signal })).toBe(1);
      expect(out.out).toEqual([
        `${c.venue}: another ${c.venue} sync is running (lease held); waiting for it`,
        `${c.venue}: stopped while waiting for the running ${c.venue} sync; nothing was read`,
      ]);
    } finally {
      await lease.release();
    }
    // Trades move prices and volumes: the next poll writes, then enqueues the venue's canonical ids.
    state.tick(state.now() + 2 * HOUR);
    const poll = runJob(c, 'poll');
    const r = await poll.result;
    expect(r.ran).toBe(true);
    expect(r.summary!.written).toBeGreaterThan(0);
    expect(poll.enqueued).toEqual([{ name: canonicalJob.name, payload: { venue: c.venue } }]);
    expect(await c.differences()).toEqual([]);
    // Nothing changed since: the reconciliation writes nothing and enqueues nothing.
    const reconcile = runJob(c, 'reconcile');
    expect(await reconcile.result).toMatchObject({ ran: true, summary: { mode: 'reconcile', written: 0 } });
    expect(reconcile.enqueued).toEqual([]);
  });

  it('has the markets job, and the orderbooks job where the venue polls books (epsilon reads them with its markets)', () => {
    expect(c.jobs).toEqual(c.venue === 'epsilon' ? [c.job] : [c.job, venueJob(c.venue, 'orderbooks')]);
  });
});

describe.each(BACKFILL_VENUES.map((v) => v.code))('%s markets: job and schedules', (venue) => {
  it('schedules the markets poll and the reconciliation at the configured intervals', () => {
    const job = venueJob(venue, 'markets');
    expect([job.name, job.queue, job.attempts]).toEqual([`${venue}.markets`, 'venues', 5]);
    const schedules = schedulesOf(venue).filter((s) => s.job === job);
    expect(schedules.map((s) => [s.id, s.everyMs(deps.config), s.payload])).toEqual([
      [`${venue}:markets-poll`, 45_000, { mode: 'poll' }],
      [`${venue}:reconcile`, 900_000, { mode: 'reconcile' }],
    ]);
    // Registered with the workers and the scheduler.
    expect(ALL_JOBS).toContain(job);
    for (const s of schedulesOf(venue)) expect(SCHEDULES).toContain(s);
  });
});

describe.each(['beta', 'gamma', 'delta'])('%s orderbooks: job and schedule', (venue) => {
  it('polls the books every ORDERBOOK_POLL_S under its own lease', () => {
    const job = venueJob(venue, 'orderbooks');
    expect([job.name, job.queue, job.attempts]).toEqual([`${venue}.orderbooks`, 'venues', 3]);
    const schedules = schedulesOf(venue).filter((s) => s.job === job);
    expect(schedules.map((s) => [s.id, s.everyMs(deps.config), s.payload])).toEqual([
      [`${venue}:orderbooks-poll`, venuesConfig.of(deps.config).orderbookPollS * 1000, { mode: 'poll' }],
    ]);
    const def = BACKFILL_VENUES.find((v) => v.code === venue)!;
    expect(def.streams.map((s) => s.name)).toContain('orderbooks');
    expect(ALL_JOBS).toContain(job);
  });
});

it('runs a job per REST venue for every stream and feed it declares, and no other venue job', () => {
  expect(BACKFILL_VENUES.map((v) => v.code)).toEqual(['beta', 'gamma', 'delta', 'epsilon']);
  expect(
    VENUE_JOBS.map((j) => j.name).filter((n) => BACKFILL_VENUES.some((v) => n.startsWith(`${v.code}.`))),
  ).toEqual([
    'beta.feed',
    'beta.markets',
    'beta.trades',
    'beta.orderbooks',
    'gamma.markets',
    'gamma.orderbooks',
    'delta.markets',
    'delta.orderbooks',
    'epsilon.markets',
  ]);
});
