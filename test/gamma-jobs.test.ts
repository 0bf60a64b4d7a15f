/**
 * Venue gamma's job and command against the replica (GAMMA_API_URL pointing at it): `backfillGamma`
 * lists the venue with progress lines and a summary and stores the truth, a second run writes nothing,
 * `--trades` is refused with a message and reads nothing; the `gamma.markets` job runs under the markets
 * lease (a poll finding it held is skipped, a reconciliation fails retryable); the schedules carry
 * VENUE_MARKETS_POLL_S and VENUE_RECONCILE_S.
 */
import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetryableError } from '../core/errors.ts';
import { acquireLease } from '../core/lease.ts';
import { createProgress } from '../core/progress.ts';
import { backfillGamma } from '../jobs/commands/backfill-listing.ts';
import type { CliIo } from '../jobs/commands/io.ts';
import type { JobContext } from '../jobs/define.ts';
import {
  GAMMA_JOBS,
  GAMMA_LEASE,
  GAMMA_SCHEDULES,
  type GammaSyncPayload,
  gammaSyncJob,
} from '../jobs/processors/gamma.ts';
import { type Replicas, startReplicas } from '../sim/venues/index.ts';
import { type Catalog, generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState, type WorldState } from '../sim/world/state.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { doubled, gammaDifferences, gammaTruth } from './support/gamma-truth.ts';

const START = Date.UTC(2026, 3, 1);
const HOUR = 3_600_000;

let catalog: Catalog;
let state: WorldState;
let replicas: Replicas;
let deps: TestDeps;

const collect = () => {
  const out: string[] = [];
  const progress: string[] = [];
  const io: CliIo = { out: (l) => out.push(l), progress: (l) => progress.push(l), isTTY: false };
  return { io, out, progress };
};

const marketRows = async () =>
  Number(
    (await deps.clickhouse.query<{ n: string }>('test.n', 'SELECT count() AS n FROM gamma_markets'))[0]?.n,
  );

function runJob(mode: GammaSyncPayload['mode']) {
  const ctx = {
    deps,
    job: { data: { mode } } as Job<GammaSyncPayload>,
    log: deps.log,
    signal: new AbortController().signal,
    enqueue: async () => undefined,
  } satisfies JobContext<GammaSyncPayload>;
  return gammaSyncJob.process(ctx);
}

beforeAll(async () => {
  catalog = generateCatalog({ seed: 'gamma-jobs', size: 'small', startTime: START });
  state = createWorldState(catalog, { alpha: 'self' });
  state.tick(START + HOUR);
  replicas = await startReplicas({ catalog, state });
  deps = await createTestDeps('gamma_jobs', {
    env: { GAMMA_API_URL: replicas.urls.gamma, VENUE_MARKETS_POLL_S: '45', VENUE_RECONCILE_S: '900' },
  });
}, 120_000);

afterAll(async () => {
  await replicas?.close();
  await deps?.close();
});

describe('gamma command and job', () => {
  it('refuses --trades with a message and reads nothing', async () => {
    const c = collect();
    expect(await backfillGamma(deps, c.io, { trades: true, from: null })).toBe(2);
    expect(c.out).toEqual([expect.stringMatching(/^gamma has no trades stream.*--trades is for beta/)]);
    expect(await marketRows()).toBe(0);
  });

  it('backfill gamma lists the venue with progress and a summary; again, it writes nothing', async () => {
    const c = collect();
    // Progress lines at every update (not a terminal, an interval of 0).
    const progress = createProgress({ label: 'gamma', io: c.io, intervalMs: 0 });
    expect(await backfillGamma(deps, c.io, { trades: false, from: START, progress })).toBe(0);
    expect(c.out[0]).toMatch(/^gamma: --from bounds trades only; ignored/);
    expect(c.progress.length).toBeGreaterThan(0);
    expect(
      c.progress.every((l) => /^gamma [\d,]+ requests [\d,]+ requests\/s .+, \d+ quarantined$/.test(l)),
    ).toBe(true);
    const truth = gammaTruth(catalog, state);
    expect(c.out.at(-1)).toMatch(
      new RegExp(
        `^gamma done in [\\d.]+ s: markets ${truth.markets.size} read, ${truth.markets.size} written; ` +
          `groups ${truth.events.size} read, ${truth.events.size} written; \\d+ read by slug; ` +
          `stored now ${truth.markets.size} markets, ${truth.events.size} groups; ` +
          '[\\d,]+ records, [\\d,]+ requests \\([\\d,]+ records/s, [\\d,]+ requests/s\\); 0 failed, 0 quarantined$',
      ),
    );
    expect(await gammaDifferences(deps.clickhouse, truth)).toEqual([]);

    const again = collect();
    expect(await backfillGamma(deps, again.io, { trades: false, from: null })).toBe(0);
    expect(again.out.at(-1)).toMatch(/markets \d+ read, 0 written; groups \d+ read, 0 written;/);
    expect(await doubled(deps.clickhouse)).toEqual([]);
  });

  it('runs the job under the markets lease', async () => {
    const lease = await acquireLease(deps.redis, GAMMA_LEASE, 30_000);
    expect(lease.held).toBe(true);
    try {
      expect(await runJob('poll')).toEqual({ ran: false });
      await expect(runJob('reconcile')).rejects.toBeInstanceOf(RetryableError);
      // The backfill waits for the lease (until its signal stops the wait: exit 1).
      const c = collect();
      const signal = AbortSignal.timeout(300);
      expect(await backfillGamma(deps, c.io, { trades: false, from: null, signal })).toBe(1);
      expect(c.out).toEqual([
        'gamma: another gamma sync is running (lease held); waiting for it',
        'gamma: stopped while waiting for the running gamma sync; nothing was read',
      ]);
    } finally {
      await lease.release();
    }
    state.tick(START + 3 * HOUR);
    const r = await runJob('poll');
    expect(r.ran).toBe(true);
    expect(r.ran && r.summary.written).toBeGreaterThan(0);
    expect(await gammaDifferences(deps.clickhouse, gammaTruth(catalog, state))).toEqual([]);
    expect(await runJob('reconcile')).toMatchObject({
      ran: true,
      summary: { mode: 'reconcile', written: 0 },
    });
  });

  it('schedules the poll and the reconciliation at the configured intervals', () => {
    expect(GAMMA_JOBS).toEqual([gammaSyncJob]);
    expect(gammaSyncJob.queue).toBe('venues');
    expect(GAMMA_SCHEDULES.map((s) => [s.id, s.job, s.everyMs(deps.config), s.payload])).toEqual([
      ['gamma:markets-poll', gammaSyncJob, 45_000, { mode: 'poll' }],
      ['gamma:reconcile', gammaSyncJob, 900_000, { mode: 'reconcile' }],
    ]);
  });
});
