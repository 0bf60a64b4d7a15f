/**
 * The demo's world has no empty columns: the world `pmdata demo` starts by default (seed "demo", size
 * small: jobs/cli.ts; with sim/demo-world.ts's options, as jobs/commands/demo.ts passes them), its
 * history backfilled, the positions job and the profiles job run over it as the demo does; then the
 * profiles hold each primary style of docs/profiles.md and each style flag at least once. On the size's
 * own 3-day history every wallet was UNKNOWN (younger than the 3 days the styles need); without the demo's
 * degen round trips no wallet reached DEGEN's 50 closed positions (sim/demo-world.ts).
 * The venues' syncs against the world's replicas store delta's slugs, gamma's and epsilon's images,
 * epsilon's variants and beta's determination times for every market whose record carries them
 * (test/api-venue-columns-sim.test.ts follows each one to its list).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProfiles } from '../analytics/profiles/run.ts';
import { createHttpClient } from '../ingest/http/client.ts';
import { runStream } from '../ingest/rest/runner.ts';
import { createBetaClient } from '../ingest/venues/beta/client.ts';
import { beta } from '../ingest/venues/beta/index.ts';
import { createDeltaClient } from '../ingest/venues/delta/client.ts';
import { delta } from '../ingest/venues/delta/index.ts';
import { createEpsilonClient } from '../ingest/venues/epsilon/client.ts';
import { epsilon } from '../ingest/venues/epsilon/index.ts';
import { createGammaClient } from '../ingest/venues/gamma/client.ts';
import { gamma } from '../ingest/venues/gamma/index.ts';
import { PRIMARY_STYLES, STYLE_FLAGS } from '../schemas/tables/alpha-profiles.ts';
import { demoWorldOptions } from '../sim/demo-world.ts';
import { type Sim, startSim } from '../sim/index.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { ingestSimHistory } from './support/sim-history.ts';

/** What `pmdata demo` runs without options (jobs/cli.ts). */
const DEMO_SEED = 'demo';
const DEMO_SIZE = 'small';

let deps: TestDeps;
let sim: Sim;
let rows: Record<string, unknown>[];

beforeAll(async () => {
  deps = await createTestDeps('demo_world_profiles');
  sim = await startSim({ seed: DEMO_SEED, size: DEMO_SIZE, ...demoWorldOptions(DEMO_SIZE) });
  await ingestSimHistory(deps, sim, { positions: true });
  await runProfiles({ clickhouse: deps.clickhouse, log: deps.log });
  rows = await deps.clickhouse.query<Record<string, unknown>>(
    'test.profiles',
    `SELECT primary_style, ${STYLE_FLAGS.join(', ')}, all_trades, all_wallet_age_days
       FROM alpha_wallet_profiles FINAL`,
  );
}, 900_000);

afterAll(async () => {
  await sim?.stop();
  await deps?.close();
}, 60_000);

type Row = Record<string, unknown>;
const http = (url: string) =>
  createHttpClient({ baseUrl: url, timeoutMs: 5_000, baseDelayMs: 20, maxDelayMs: 100 });
const table = (sql: string) => deps.clickhouse.query<Row>('test.venue', sql);

describe("the demo world's venue columns", () => {
  const urls = () => sim.replicaUrls!;
  const sync = { now: () => sim.state.now() };

  it('delta: every market has its slug, every categorical child its parent slug', async () => {
    await runStream(
      delta,
      'markets',
      { ...deps, ...sync, client: createDeltaClient({ http: http(urls().delta) }) },
      { mode: 'reconcile' },
    );
    const rows = await table('SELECT market_id, slug, event_slug, market_type FROM delta_markets FINAL');
    expect(rows.length).toBeGreaterThan(3);
    expect(rows.filter((r) => r.slug === '')).toEqual([]);
    expect(rows.filter((r) => r.market_type === 'categorical' && !r.event_slug)).toEqual([]);
  });

  it('gamma: every market has its image_url', async () => {
    await runStream(
      gamma,
      'markets',
      { ...deps, ...sync, client: createGammaClient({ http: http(urls().gamma) }) },
      { mode: 'reconcile' },
    );
    const rows = await table('SELECT slug, image_url FROM gamma_markets FINAL');
    expect(rows.length).toBeGreaterThan(3);
    expect(rows.filter((r) => r.image_url === '')).toEqual([]);
  });

  it('epsilon: every market has its market_variant and image_url', async () => {
    await runStream(
      epsilon,
      'markets',
      { ...deps, ...sync, client: createEpsilonClient({ http: http(urls().epsilon) }) },
      { mode: 'reconcile' },
    );
    const rows = await table('SELECT market_id, market_variant, image_url FROM epsilon_markets FINAL');
    expect(rows.length).toBeGreaterThan(3);
    expect(rows.filter((r) => r.market_variant === '' || r.image_url === '')).toEqual([]);
  });

  it('beta: every settled market has its determination_time', async () => {
    await runStream(
      beta,
      'markets',
      { ...deps, ...sync, client: createBetaClient({ http: http(urls().beta) }) },
      { mode: 'reconcile' },
    );
    const rows = await table('SELECT ticker, settlement_time, determination_time FROM beta_markets FINAL');
    const settled = rows.filter((r) => r.settlement_time !== null);
    expect(settled.length).toBeGreaterThan(3);
    expect(settled.filter((r) => r.determination_time === null)).toEqual([]);
  });
});

describe("the demo world's wallet profiles", () => {
  it('the wallets that traded are old enough to be classified', () => {
    const traded = rows.filter((r) => Number(r.all_trades) >= 5);
    expect(traded.length).toBeGreaterThan(20);
    for (const r of traded) expect(Number(r.all_wallet_age_days)).toBeGreaterThanOrEqual(3);
  });

  it('every primary style appears at least once', () => {
    const seen = new Set(rows.map((r) => String(r.primary_style)));
    expect(PRIMARY_STYLES.filter((s) => !seen.has(s))).toEqual([]);
  });

  it('every style flag is set on at least one wallet', () => {
    expect(STYLE_FLAGS.filter((f) => !rows.some((r) => Boolean(r[f])))).toEqual([]);
  });
});
