/**
 * The demo's world classifies its wallets: the world `pmdata demo` starts by default (seed "demo", size
 * small: jobs/cli.ts; with sim/demo-world.ts's options, as jobs/commands/demo.ts passes them), its
 * history backfilled, the positions job and the profiles job run over it as the demo does; then the
 * profiles hold each primary style of docs/profiles.md and each style flag at least once — all but DEGEN
 * and `is_degen`, which need 50 closed positions no wallet of a small world reaches (sim/demo-world.ts).
 * On the size's own 3-day history every wallet was UNKNOWN (younger than the 3 days the styles need).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProfiles } from '../analytics/profiles/run.ts';
import { PRIMARY_STYLES, STYLE_FLAGS } from '../schemas/tables/alpha-profiles.ts';
import { demoWorldOptions } from '../sim/demo-world.ts';
import { type Sim, startSim } from '../sim/index.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { ingestSimHistory } from './support/sim-history.ts';

/** What `pmdata demo` runs without options (jobs/cli.ts). */
const DEMO_SEED = 'demo';
const DEMO_SIZE = 'small';
/** Not reached on a small world (sim/demo-world.ts). */
const UNREACHED = new Set<string>(['DEGEN', 'is_degen']);

let deps: TestDeps;
let sim: Sim;
let rows: Record<string, unknown>[];

beforeAll(async () => {
  deps = await createTestDeps('demo_world_profiles');
  sim = await startSim({ seed: DEMO_SEED, size: DEMO_SIZE, ...demoWorldOptions(DEMO_SIZE), replicas: false });
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

describe("the demo world's wallet profiles", () => {
  it('the wallets that traded are old enough to be classified', () => {
    const traded = rows.filter((r) => Number(r.all_trades) >= 5);
    expect(traded.length).toBeGreaterThan(20);
    for (const r of traded) expect(Number(r.all_wallet_age_days)).toBeGreaterThanOrEqual(3);
  });

  it('every primary style but DEGEN appears at least once', () => {
    const seen = new Set(rows.map((r) => String(r.primary_style)));
    const want = PRIMARY_STYLES.filter((s) => !UNREACHED.has(s));
    expect(want.filter((s) => !seen.has(s))).toEqual([]);
  });

  it('every style flag but is_degen is set on at least one wallet', () => {
    const want = STYLE_FLAGS.filter((f) => !UNREACHED.has(f));
    expect(want.filter((f) => !rows.some((r) => Boolean(r[f])))).toEqual([]);
  });
});
