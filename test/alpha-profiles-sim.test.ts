/**
 * End to end over a small simulated world: the chain history backfilled, the positions job run over it
 * (analytics/positions/), then the profiles job; every profile served (the endpoint's query) equals the
 * profile recomputed by the definitions of docs/profiles.md (test/support/profiles-truth.ts) from the
 * positions ground truth replayed from the sim ledger (test/support/positions-truth.ts, never the tables).
 * Prices are not part of that truth: unrealized P&L now takes alpha_token_prices (the positions job's),
 * at a window's start `currentPrices` at the start, the one price function.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProfilesRun, runProfiles } from '../analytics/profiles/run.ts';
import { currentPrices } from '../analytics/shared/current-price.ts';
import { alphaWalletProfiles } from '../api/queries/alpha/profiles.ts';
import type { WalletProfile } from '../schemas/api/alpha-profiles.ts';
import type { SavedSim } from '../sim/saved.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { positionsTruth, type TruthChange } from './support/positions-truth.ts';
import {
  type ChangeFact,
  DAY,
  expectedProfile,
  heldAt,
  profileDifferences,
  WINDOWS,
} from './support/profiles-truth.ts';
import { ingestSimHistory } from './support/sim-history.ts';
import { SHARED_WORLD, sharedWorld } from './support/world-cache.ts';

let deps: TestDeps;
let sim: SavedSim;
let run: ProfilesRun;
let served: WalletProfile[];
let facts: Map<string, ChangeFact[]>;
let nowS: number;

const fact = (c: TruthChange): ChangeFact => ({
  wallet: c.wallet,
  token: c.tokenId,
  time: c.time,
  kind: c.kind,
  fill: c.fill === 1,
  usd: c.usd,
  amount: c.amount,
  deltaShares: c.deltaShares,
  deltaRealized: c.deltaRealized,
  deltaFees: c.deltaFees,
  sharesAfter: c.after.shares,
  avgAfter: c.after.avgPrice,
  realizedAfter: c.after.realizedPnl,
  openedAt: c.after.openedAt,
  openRealized: c.after.openRealizedPnl,
});

beforeAll(async () => {
  deps = await createTestDeps('alpha_profiles_sim');
  sim = await sharedWorld(SHARED_WORLD);
  await ingestSimHistory(deps, sim, { positions: true });
  run = await runProfiles({ clickhouse: deps.clickhouse, log: deps.log });
  nowS = Math.floor(run.computedAt / 1000);

  const truth = positionsTruth(sim.exportLedger(), sim.catalog);
  facts = new Map();
  for (const c of truth.changes) {
    const list = facts.get(c.wallet) ?? [];
    list.push(fact(c));
    facts.set(c.wallet, list);
  }
  const wallets = [...facts.keys()].sort();
  served = [];
  for (let i = 0; i < wallets.length; i += 20) {
    served.push(...(await alphaWalletProfiles(deps.clickhouse, wallets.slice(i, i + 20).join(','))));
  }
}, 600_000);

afterAll(async () => {
  await sim?.stop();
  await deps?.close();
}, 60_000);

describe('profiles of a small simulated world', () => {
  it('profile every wallet the ledger gave a position, at the newest block', async () => {
    const [newest] = await deps.clickhouse.query<{ t: string }>(
      'test.newest',
      'SELECT toUnixTimestamp64Milli(max(timestamp)) AS t FROM alpha_blocks',
    );
    expect(run.computedAt).toBe(Number(newest!.t));
    expect(served.map((p) => p.user)).toEqual([...facts.keys()].sort());
    expect(run.wallets).toBe(facts.size);
    expect(facts.size).toBeGreaterThan(30);
  });

  it('every field of every window = the profile recomputed from the ledger truth', async () => {
    const ch = deps.clickhouse;
    const prices = await ch.query<{ token_id: string; price: number | null }>(
      'test.prices',
      'SELECT token_id, price FROM alpha_token_prices FINAL',
    );
    const priceNow = new Map(prices.map((r) => [r.token_id, r.price === null ? null : Number(r.price)]));
    // Prices at each window's start, of every token some wallet held then.
    const atStart = new Map<string, Map<string, number | null>>();
    for (const [name, days] of WINDOWS) {
      if (days === null) continue;
      const start = nowS - days * DAY;
      const tokens = [...new Set([...facts.values()].flatMap((cs) => heldAt(cs, start)))];
      const p = await currentPrices(ch, tokens, start * 1000);
      atStart.set(name, new Map([...p].map(([t, v]) => [t, v === null ? null : v.price])));
    }
    const differences = served.flatMap((p) =>
      profileDifferences(
        p,
        expectedProfile(
          p.user,
          facts.get(p.user)!,
          nowS,
          (tk) => priceNow.get(tk),
          (w, tk) => atStart.get(w)!.get(tk),
        ),
      ),
    );
    expect(differences.slice(0, 20), `${differences.length} differences`).toEqual([]);
  });

  it('the world exercised the profile rules: closes won and lost, streaks, a window within the history', () => {
    const all = served.map((p) => p.metrics.all_time);
    expect(all.some((m) => m.wins > 0)).toBe(true);
    expect(all.some((m) => m.losses > 0)).toBe(true);
    expect(all.some((m) => m.max_win_streak > 1)).toBe(true);
    // The small world's history spans 3 days: one_day is a part of it (seven_day and thirty_day hold it
    // all, their starts before any change). No wallet is 3 days old, so every style is UNKNOWN here (the
    // styles' thresholds are exercised in alpha-profiles.test.ts).
    expect(
      served.some(
        (p) => p.metrics.one_day.trades > 0 && p.metrics.one_day.trades < p.metrics.all_time.trades,
      ),
    ).toBe(true);
    expect(served.some((p) => p.metrics.one_day.positions_closed > 0)).toBe(true);
  });
});
