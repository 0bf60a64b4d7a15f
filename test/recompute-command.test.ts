/**
 * `pmdata recompute <product|all> [--from]` on a small simulated world's ingested history: `all --json`
 * runs every product and prints one JSON line; `alpha-positions --from BLOCK` rewinds the positions to
 * that block and runs to now, ending where a recomputation from the first block ends; a second request
 * right after the first runs too; a held lease is a failure in the summary (exit 1); unknown products and
 * dates are refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPositions } from '../analytics/positions/run.ts';
import { profiles } from '../analytics/profiles/index.ts';
import { acquireLease } from '../core/lease.ts';
import type { ProgressIo } from '../core/progress.ts';
import { runRecomputeCommand } from '../jobs/commands/recompute.ts';
import { productContext, productSettings } from '../jobs/products.ts';
import type { SavedSim } from '../sim/saved.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { ingestSimHistory } from './support/sim-history.ts';
import { SHARED_WORLD, sharedWorld } from './support/world-cache.ts';

let deps: TestDeps;
let sim: SavedSim;

beforeAll(async () => {
  deps = await createTestDeps('recompute_command');
  sim = await sharedWorld(SHARED_WORLD);
  await ingestSimHistory(deps, sim);
}, 300_000);

afterAll(async () => {
  await sim?.stop();
  await deps?.close();
}, 60_000);

function collect() {
  const out: string[] = [];
  const err: string[] = [];
  const io: ProgressIo = { out: (l) => out.push(l), progress: (l) => err.push(l), isTTY: false };
  return { io, out, err };
}

/** Every position, as the API reads them (FINAL), without the run's version. */
const positions = () =>
  deps.clickhouse.query<Record<string, unknown>>(
    'test.positions',
    'SELECT * EXCEPT version FROM alpha_positions FINAL ORDER BY wallet, token_id',
  );

const checkpoint = async () =>
  Number(
    (
      await deps.clickhouse.query<{ n: string }>(
        'test.cp',
        `SELECT argMax(block, at) AS n FROM watermarks WHERE source = 'alpha-positions' AND stream = 'run'`,
      )
    )[0]?.n ?? -1,
  );

describe('pmdata recompute', () => {
  it('all --json runs every product in order and prints the summary as one JSON line', async () => {
    const c = collect();
    expect(await runRecomputeCommand(['all', '--json'], deps, { io: c.io })).toBe(0);
    expect(c.out).toHaveLength(1);
    const s = JSON.parse(c.out[0]!);
    expect(s).toMatchObject({
      command: 'recompute all',
      status: 'done',
      done: { products: 5 },
      failures: 0,
      quarantined: 0,
      from_block: null,
    });
    expect(Object.keys(s.products)).toEqual([
      'alpha-market-data',
      'alpha-rolling-metrics',
      'alpha-positions',
      'alpha-profiles',
      'alpha-catalog-lists',
    ]);
    for (const p of Object.values(s.products)) expect(p).toMatchObject({ ran: true });
    expect(s.products['alpha-positions'].events).toBeGreaterThan(0);
    expect(s.products['alpha-positions'].to_block).toBe(sim.historyHead);
    expect(s.products['alpha-profiles'].wallets).toBeGreaterThan(0);
    // Notes went to stderr, one per product; no progress line under --json.
    expect(c.err.filter((l) => / recomputed /.test(l))).toHaveLength(5);
    expect(c.err.some((l) => l.includes('products/s'))).toBe(false);
  }, 300_000);

  it('alpha-positions --from BLOCK rewinds to the block and ends where the full recomputation ended', async () => {
    const full = await positions();
    expect(full.length).toBeGreaterThan(0);
    const mid = Math.floor((sim.firstBlock + sim.historyHead) / 2);
    const c = collect();
    expect(await runRecomputeCommand(['alpha-positions', '--from', String(mid)], deps, { io: c.io })).toBe(0);
    expect(c.out[0]).toMatch(
      new RegExp(
        `^alpha-positions: recomputed up to block ${sim.historyHead.toLocaleString('en-US')} in [1-9]\\d* batch`,
      ),
    );
    expect(c.out.at(-1)).toMatch(
      new RegExp(
        `^recompute alpha-positions done in [\\d.]+ s: 1 of 1 product\\(s\\) from block ${mid.toLocaleString('en-US')}; ` +
          '1 products \\([\\d,]+ products/s\\); 0 failed, 0 quarantined$',
      ),
    );
    expect(await checkpoint()).toBe(sim.historyHead);
    expect(await positions()).toEqual(full);
  }, 300_000);

  it('a positions run reports {done, total, unit} after each batch, ending at its total', async () => {
    const reports: { done: number; total: number; unit: string }[] = [];
    const mid = Math.floor((sim.firstBlock + sim.historyHead) / 2);
    const run = await runPositions(
      productContext(deps),
      { ...productSettings(deps.config), batchRows: 200 },
      { rewindTo: mid - 1, onProgress: (p) => reports.push(p) },
    );
    expect(run.batches).toBeGreaterThan(1);
    expect(reports).toHaveLength(run.batches);
    const total = sim.historyHead - (mid - 1);
    for (const r of reports) expect(r).toMatchObject({ total, unit: 'blocks' });
    const done = reports.map((r) => r.done);
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(done.at(-1)).toBe(total);
  });

  it('two recomputes in a row both run: nothing deduplicates a request (it runs in this process, no job id)', async () => {
    const runs = [];
    for (let i = 0; i < 2; i++) {
      const c = collect();
      expect(await runRecomputeCommand(['alpha-profiles', '--json'], deps, { io: c.io })).toBe(0);
      runs.push(JSON.parse(c.out[0]!));
      expect(c.err.filter((l) => l.startsWith('alpha-profiles: recomputed '))).toHaveLength(1);
    }
    for (const s of runs) {
      expect(s).toMatchObject({ status: 'done', done: { products: 1 }, failures: 0 });
      expect(s.products['alpha-profiles'].ran).toBe(true);
      expect(s.products['alpha-profiles'].wallets).toBeGreaterThan(0);
    }
  });

  it('a product whose lease is held fails the run (exit 1) and says so', async () => {
    const lease = await acquireLease(deps.redis, profiles.job.lease, 30_000);
    try {
      const c = collect();
      expect(await runRecomputeCommand(['alpha-profiles', '--quiet'], deps, { io: c.io })).toBe(1);
      expect(c.out).toEqual([
        'alpha-profiles: another run holds its lease; try again when it finished',
        expect.stringMatching(
          /^recompute alpha-profiles failed in [\d.]+ s: 0 of 1 product\(s\) \(lease held: alpha-profiles\); .*; 1 failed, 0 quarantined$/,
        ),
      ]);
      expect(c.err).toEqual([]);
    } finally {
      await lease.release();
    }
  });

  it('refuses an unknown product, and a --from that is no date or no ingested block', async () => {
    await expect(runRecomputeCommand(['candles'], deps)).rejects.toThrow(
      'recompute: unknown product "candles" (expected one of alpha-market-data, alpha-rolling-metrics, alpha-positions, alpha-profiles, alpha-catalog-lists, positions, all)',
    );
    await expect(runRecomputeCommand(['alpha-positions', '--from', 'soon'], deps)).rejects.toThrow(
      'recompute: --from expects a date or a block number, got "soon"',
    );
    await expect(runRecomputeCommand(['alpha-positions', '--from', '2099-01-01'], deps)).rejects.toThrow(
      'recompute: no ingested block at or after 2099-01-01 (--from)',
    );
  });
});
