/**
 * Venue beta's jobs and command against the replica (BETA_API_URL pointing at it): its backfill lists
 * the venue with progress lines and a summary and stores the truth (no trades without `--trades`); with
 * `--trades --from` it stores exactly the trades from that time on, and again, nothing more; the
 * `beta.markets` and `beta.trades` jobs run under their leases (a poll finding its lease held is skipped, a
 * reconciliation fails retryable, the command waits for it); the schedules carry VENUE_MARKETS_POLL_S,
 * BETA_TRADES_POLL_S and VENUE_RECONCILE_S.
 */
import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetryableError } from '../core/errors.ts';
import { acquireLease } from '../core/lease.ts';
import { createProgress } from '../core/progress.ts';
import type { BetaSyncSummary, BetaTradesSummary } from '../ingest/venues/beta/index.ts';
import { venueBackfill } from '../jobs/commands/backfill.ts';
import type { CliIo } from '../jobs/commands/io.ts';
import type { JobContext } from '../jobs/define.ts';
import type {
  StreamPayload as VenueSyncPayload,
  StreamResult as VenueSyncResult,
} from '../jobs/processors/venue-streams.ts';
import { schedulesOf, VENUE_JOBS, venueJob } from '../jobs/venues.ts';
import { type Replicas, startReplicas } from '../sim/venues/index.ts';
import { type Catalog, generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState, type WorldState } from '../sim/world/state.ts';
import { betaDifferences, betaTruth, doubled, tradeDifferences } from './support/beta-truth.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

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

const tradeRows = async () =>
  Number(
    (await deps.clickhouse.query<{ n: string }>('test.n', 'SELECT count() AS n FROM beta_trades'))[0]?.n,
  );

function ctx<P>(data: P): JobContext<P> {
  return {
    deps,
    job: { data } as Job<P>,
    log: deps.log,
    signal: new AbortController().signal,
    enqueue: async () => undefined,
  };
}
const backfillBeta = venueBackfill('beta');
const betaMarketsJob = venueJob('beta', 'markets');
const betaTradesJob = venueJob('beta', 'trades');
const betaOrderbooksJob = venueJob('beta', 'orderbooks');
const BETA_MARKETS_LEASE = 'beta:markets:lease';
const BETA_TRADES_LEASE = 'beta:trades:lease';
const runMarkets = (mode: VenueSyncPayload['mode']) =>
  betaMarketsJob.process(ctx({ mode })) as Promise<VenueSyncResult<BetaSyncSummary>>;
const runTrades = () => betaTradesJob.process(ctx({})) as Promise<VenueSyncResult<BetaTradesSummary>>;

beforeAll(async () => {
  catalog = generateCatalog({ seed: 'beta-jobs', size: 'small', startTime: START });
  state = createWorldState(catalog, { alpha: 'self' });
  state.tick(START + 2 * HOUR);
  replicas = await startReplicas({ catalog, state });
  deps = await createTestDeps('beta_jobs', {
    env: {
      BETA_API_URL: replicas.urls.beta,
      VENUE_MARKETS_POLL_S: '45',
      BETA_TRADES_POLL_S: '7',
      VENUE_RECONCILE_S: '900',
    },
  });
}, 120_000);

afterAll(async () => {
  await replicas?.close();
  await deps?.close();
});

describe('beta command and jobs', () => {
  it('backfill beta lists the venue with progress and a summary, no trades without --trades', async () => {
    const c = collect();
    // Progress lines at every update (not a terminal, an interval of 0).
    const progress = createProgress({ label: 'beta', io: c.io, intervalMs: 0 });
    expect(await backfillBeta(deps, c.io, { trades: false, from: START, progress })).toBe(0);
    expect(c.out[0]).toMatch(/^beta: --from bounds trades only \(with --trades\); ignored/);
    expect(c.progress.length).toBeGreaterThan(0);
    expect(
      c.progress.every((l) => /^beta [\d,]+ requests [\d,]+ requests\/s .+, \d+ quarantined$/.test(l)),
    ).toBe(true);
    const t = betaTruth(catalog, state);
    const records = t.markets.size + t.events.size + t.series.size;
    expect(c.out.at(-1)).toMatch(
      new RegExp(
        `^beta done in [\\d.]+ s: ${records} records, ${records} written \\(markets ${t.markets.size} read, ` +
          `${t.markets.size} written; events ${t.events.size} read, ${t.events.size} written; series ` +
          `${t.series.size} read, ${t.series.size} written\\); stored now ${t.markets.size} markets, ` +
          `${t.events.size} events, ${t.series.size} series, 0 trades; ${records} records, \\d+ requests ` +
          '\\([\\d,]+ records/s, [\\d,]+ requests/s\\); 0 failed, 0 quarantined$',
      ),
    );
    expect(await betaDifferences(deps.clickhouse, t, { trades: false })).toEqual([]);
    expect(await tradeRows()).toBe(0);
  });

  it('backfill beta --trades --from stores the trades from then on; again, nothing more', async () => {
    const from = START + HOUR;
    const want = state.trades('beta').filter((x) => x.time >= from).length;
    expect(want).toBeGreaterThan(0);
    expect(want).toBeLessThan(state.trades('beta').length);
    const c = collect();
    expect(await backfillBeta(deps, c.io, { trades: true, from })).toBe(0);
    expect(c.out).toContain(`beta: trades down to ${new Date(from).toISOString()}`);
    expect(c.out.at(-1)).toMatch(
      new RegExp(
        `; trades ${want} read, ${want} written\\); stored now .*, ${want} trades; .*; 0 failed, 0 quarantined$`,
      ),
    );
    expect(await tradeRows()).toBe(want);

    const again = collect();
    expect(await backfillBeta(deps, again.io, { trades: true, from })).toBe(0);
    expect(again.out.at(-1)).toMatch(
      /^beta done in [\d.]+ s: \d+ records, 0 written .*; trades \d+ read, 0 written\)/,
    );
    expect(await doubled(deps.clickhouse)).toEqual([]);
  });

  it('runs the jobs under their leases', async () => {
    const markets = await acquireLease(deps.redis, BETA_MARKETS_LEASE, 30_000);
    const trades = await acquireLease(deps.redis, BETA_TRADES_LEASE, 30_000);
    try {
      expect(await runMarkets('poll')).toEqual({ ran: false });
      expect(await runTrades()).toEqual({ ran: false });
      await expect(runMarkets('reconcile')).rejects.toBeInstanceOf(RetryableError);
      // The backfill waits for the lease (until its signal stops the wait: exit 1).
      const waited = collect();
      const stop = AbortSignal.timeout(300);
      expect(await backfillBeta(deps, waited.io, { trades: false, from: null, signal: stop })).toBe(1);
      expect(waited.out).toEqual([
        'beta: another beta markets sync is running (lease held); waiting for it',
        'beta: stopped while waiting for the running beta markets sync; nothing was read',
      ]);
      await markets.release();
      // The reconciliation needs the trades lease too.
      await expect(runMarkets('reconcile')).rejects.toBeInstanceOf(RetryableError);
      const trades2 = collect();
      const stop2 = AbortSignal.timeout(300);
      expect(await backfillBeta(deps, trades2.io, { trades: true, from: null, signal: stop2 })).toBe(1);
      expect(trades2.out.at(-1)).toBe(
        'beta: stopped while waiting for the running beta trades poll; its markets were listed',
      );
    } finally {
      await markets.release();
      await trades.release();
    }
    state.tick(START + 3 * HOUR);
    const m = await runMarkets('poll');
    expect(m.ran && m.summary.written).toBeGreaterThan(0);
    const t = await runTrades();
    expect(t.ran && t.summary.written).toBeGreaterThan(0);
    // One page of 1,000 trades reaches back past --from: the poll stored the older trades too, and the
    // reconciliation finds every ticker's Σ count equal to its volume.
    const r = await runMarkets('reconcile');
    expect(r).toMatchObject({ ran: true, summary: { mode: 'reconcile', written: 0 } });
    expect(r.ran && r.summary.trades).toMatchObject({
      compared: betaTruth(catalog, state).markets.size,
      mismatched: 0,
    });
    expect(r.ran && r.summary.trades?.stillMismatched).toEqual([]);
    expect(await betaDifferences(deps.clickhouse, betaTruth(catalog, state))).toEqual([]);
    expect(await tradeDifferences(deps.clickhouse, betaTruth(catalog, state))).toEqual([]);
  });

  it('schedules the polls and the reconciliation at the configured intervals', () => {
    const betaFeedJob = VENUE_JOBS.find((j) => j.name === 'beta.feed');
    expect(VENUE_JOBS.filter((j) => j.name.startsWith('beta.'))).toEqual([
      betaFeedJob,
      betaMarketsJob,
      betaTradesJob,
      betaOrderbooksJob,
    ]);
    expect(
      [betaMarketsJob, betaTradesJob, betaOrderbooksJob].map((j) => [j.name, j.queue, j.attempts]),
    ).toEqual([
      ['beta.markets', 'venues', 5],
      ['beta.trades', 'venues', 3],
      ['beta.orderbooks', 'venues', 3],
    ]);
    expect([BETA_MARKETS_LEASE, BETA_TRADES_LEASE]).toEqual(['beta:markets:lease', 'beta:trades:lease']);
    expect(schedulesOf('beta').map((s) => [s.id, s.job, s.everyMs(deps.config), s.payload])).toEqual([
      // The book feed (ingest/venues/beta/feed.ts): a run finding its lease held completes at once.
      ['beta:feed', betaFeedJob, 30_000, {}],
      ['beta:markets-poll', betaMarketsJob, 45_000, { mode: 'poll' }],
      ['beta:reconcile', betaMarketsJob, 900_000, { mode: 'reconcile' }],
      ['beta:trades-poll', betaTradesJob, 7_000, {}],
      ['beta:orderbooks-poll', betaOrderbooksJob, 60_000, { mode: 'poll' }],
    ]);
  });
});
