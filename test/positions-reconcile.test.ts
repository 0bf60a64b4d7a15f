/**
 * Acceptance of venue alpha's positions (issue 36; analytics/positions/, docs/positions.md) against the
 * simulated world: a small and a medium world, the history backfilled and its positions computed, then
 * live blocks (trades, transfers, housekeeping) followed with a positions run after every follower tick.
 * At both points, compared with test/support/positions-truth.ts (the rules replayed from the sim ledger
 * and catalog, never from the tables under test):
 * - every non-protocol holder of an outcome token has shares = its ERC-1155 balance in the ledger, and no
 *   protocol address has a position;
 * - every (wallet, token) the truth knows has the same avg price, realized P&L, total bought, total
 *   bought USD, net fees and fill count, and no other position exists;
 * - every change row equals the truth's change (kind, fill, price, amount, usd, deltas, state after,
 *   opened_at and the realized P&L then), per position in chain order.
 * The flows the rules cover are asserted to occur (transfers in clusters and to strangers, conversions,
 * fee refunds, V1 share fees, redemptions). Measured on 2 shared cores: the small world ≈ 15 s, the medium
 * (default size: 7 days, ≈ 21,500 fills, ≈ 2,400 transfers) 130–160 s, half of it building the sim.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PositionsSettings, runPositions } from '../analytics/positions/run.ts';
import type { Follower } from '../ingest/chain/follower.ts';
import { type AlphaChainIngestor, createAlphaChain } from '../ingest/venues/alpha/chain/ingestor.ts';
import { type AlphaChainSettings, alphaChainSettings } from '../ingest/venues/alpha/chain/settings.ts';
import { productSettings } from '../jobs/products.ts';
import { type Sim, type StartSimOptions, startSim } from '../sim/index.ts';
import type { LedgerExport } from '../sim/world/ledger.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import {
  FEE_INCOME_ACCOUNT,
  isProtocolAddress,
  type PositionsTruth,
  positionsTruth,
  type TruthChange,
  type TruthState,
} from './support/positions-truth.ts';
import { truncateAlphaTables } from './support/sim-history.ts';

type Row = Record<string, string | number | null>;

const big = (v: unknown) => BigInt(String(v));

const STATE_FIELDS = [
  ['shares', 'shares'],
  ['avg_price', 'avgPrice'],
  ['realized_pnl', 'realizedPnl'],
  ['total_bought', 'totalBought'],
  ['total_bought_usd', 'totalBoughtUsd'],
  ['net_fees', 'netFees'],
  ['fills', 'fills'],
] as const satisfies readonly (readonly [string, keyof TruthState])[];

const stateOf = (r: Row) => STATE_FIELDS.map(([col]) => String(big(r[col]))).join(' ');
const truthStateOf = (s: TruthState) => STATE_FIELDS.map(([, f]) => String(s[f])).join(' ');

/** A change as one comparable line. */
const changeLine = (c: {
  block: number;
  kind: string;
  fill: number;
  price: bigint;
  amount: bigint;
  usd: bigint;
  deltaShares: bigint;
  deltaRealized: bigint;
  deltaFees: bigint;
  deltaBoughtUsd: bigint;
  state: string;
  openedAt: number;
  openRealized: bigint;
}) =>
  [
    c.block,
    c.kind,
    c.fill,
    `p=${c.price}`,
    `a=${c.amount}`,
    `usd=${c.usd}`,
    `Δs=${c.deltaShares}`,
    `Δr=${c.deltaRealized}`,
    `Δf=${c.deltaFees}`,
    `Δb=${c.deltaBoughtUsd}`,
    `[${c.state}]`,
    `open=${c.openedAt}/${c.openRealized}`,
  ].join(' ');

const truthChangeLine = (c: TruthChange) =>
  changeLine({
    ...c,
    state: truthStateOf(c.after),
    openedAt: c.after.openedAt * 1000,
    openRealized: c.after.openRealizedPnl,
  });

const rowChangeLine = (r: Row) =>
  changeLine({
    block: Number(r.block_number),
    kind: String(r.kind),
    fill: Number(r.fill),
    price: big(r.price),
    amount: big(r.amount),
    usd: big(r.usd),
    deltaShares: big(r.delta_shares),
    deltaRealized: big(r.delta_realized_pnl),
    deltaFees: big(r.delta_fees),
    deltaBoughtUsd: big(r.delta_bought_usd),
    state: stateOf(r),
    openedAt: Number(r.opened_ms),
    openRealized: big(r.open_realized_pnl),
  });

/** At most `n` lines of a mismatch list (the count stays visible in the assertion). */
const firstOf = (lines: string[], n = 20) =>
  lines.length > n ? [...lines.slice(0, n), `… ${lines.length - n} more`] : lines;

interface World {
  label: string;
  sim: Omit<StartSimOptions, 'replicas'>;
  /** Live follow: rounds of `blocks` active blocks with `matches` matches each. */
  live: { rounds: number; blocks: number; matches: number };
}

const WORLDS: World[] = [
  {
    label: 'small',
    sim: { seed: 'positions-reconcile-small', size: 'small' },
    live: { rounds: 4, blocks: 5, matches: 8 },
  },
  {
    label: 'medium',
    sim: { seed: 'positions-reconcile-medium', size: 'medium' },
    live: { rounds: 3, blocks: 5, matches: 20 },
  },
];

let deps: TestDeps;

beforeAll(async () => {
  deps = await createTestDeps('positions_reconcile');
}, 60_000);

afterAll(async () => {
  await deps?.close();
});

/** Empties every alpha table (chain tables, positions) and forgets their progress between worlds. */
async function reset(): Promise<void> {
  await truncateAlphaTables(deps.clickhouse);
}

interface Comparison {
  shares: string[];
  protocolRows: string[];
  states: string[];
  missing: string[];
  extra: string[];
  changes: string[];
  holders: number;
  positions: number;
  changeRows: number;
}

/** Everything the tables hold against the truth of `ledger` (see the file header). */
async function compare(ledger: LedgerExport, truth: PositionsTruth): Promise<Comparison> {
  const rows = await deps.clickhouse.query<Row>(
    'test.positions',
    `SELECT wallet, token_id, shares, avg_price, realized_pnl, total_bought, total_bought_usd, net_fees, fills
     FROM alpha_positions FINAL`,
  );
  const byKey = new Map(rows.map((r) => [`${r.wallet}|${r.token_id}`, r]));
  const out: Comparison = {
    shares: [],
    protocolRows: [],
    states: [],
    missing: [],
    extra: [],
    changes: [],
    holders: 0,
    positions: rows.length,
    changeRows: 0,
  };
  const held = new Set<string>();
  for (const b of ledger.balances.erc1155) {
    if (isProtocolAddress(b.holder)) continue;
    out.holders++;
    const key = `${b.holder.toLowerCase()}|${b.tokenId}`;
    held.add(key);
    const r = byKey.get(key);
    const shares = r ? big(r.shares) : 0n;
    if (shares !== BigInt(b.amount)) out.shares.push(`${key}: shares ${shares}, ledger balance ${b.amount}`);
  }
  for (const [key, r] of byKey) {
    if (isProtocolAddress(String(r.wallet))) out.protocolRows.push(key);
    if (!held.has(key) && big(r.shares) !== 0n) out.shares.push(`${key}: shares ${r.shares}, ledger none`);
    const t = truth.positions.get(key);
    if (!t) out.extra.push(`${key}: [${stateOf(r)}]`);
    else if (stateOf(r) !== truthStateOf(t))
      out.states.push(`${key}: [${stateOf(r)}] truth [${truthStateOf(t)}]`);
  }
  for (const key of truth.positions.keys()) if (!byKey.has(key)) out.missing.push(key);

  const changeRows = await deps.clickhouse.query<Row>(
    'test.changes',
    `SELECT wallet, token_id, block_number, kind, fill, price, amount, usd, delta_shares, delta_realized_pnl,
       delta_fees, delta_bought_usd, shares, avg_price, realized_pnl, total_bought, total_bought_usd, net_fees,
       fills, toUnixTimestamp64Milli(opened_at) AS opened_ms, open_realized_pnl
     FROM alpha_position_changes FINAL ORDER BY wallet, token_id, block_number, log_index, batch_index`,
  );
  out.changeRows = changeRows.length;
  const actual = new Map<string, string[]>();
  for (const r of changeRows) {
    const key = `${r.wallet}|${r.token_id}`;
    const list = actual.get(key) ?? [];
    list.push(rowChangeLine(r));
    actual.set(key, list);
  }
  const expected = new Map<string, string[]>();
  for (const c of truth.changes) {
    const key = `${c.wallet}|${c.tokenId}`;
    const list = expected.get(key) ?? [];
    list.push(truthChangeLine(c));
    expected.set(key, list);
  }
  for (const key of new Set([...actual.keys(), ...expected.keys()])) {
    const a = actual.get(key) ?? [];
    const e = expected.get(key) ?? [];
    const n = Math.max(a.length, e.length);
    for (let i = 0; i < n; i++) {
      if (a[i] !== e[i]) {
        out.changes.push(`${key} #${i}: ${a[i] ?? '(none)'}  truth ${e[i] ?? '(none)'}`);
        break;
      }
    }
  }
  return out;
}

function expectReconciled(c: Comparison, what: string): void {
  expect(c.holders, what).toBeGreaterThan(100);
  expect(firstOf(c.shares), `${what}: shares = ledger ERC-1155 balances`).toEqual([]);
  expect(c.protocolRows, `${what}: protocol addresses hold no position`).toEqual([]);
  expect(firstOf(c.missing), `${what}: positions the truth has and the table lacks`).toEqual([]);
  expect(firstOf(c.extra), `${what}: positions the table has and the truth lacks`).toEqual([]);
  expect(firstOf(c.states), `${what}: position states = truth`).toEqual([]);
  expect(firstOf(c.changes), `${what}: change rows = truth, per position (first difference)`).toEqual([]);
}

for (const world of WORLDS) {
  describe(`positions of a ${world.label} world reconcile with the ledger`, () => {
    let sim: Sim;
    let chainSettings: AlphaChainSettings;
    let settings: PositionsSettings;
    let history: { ledger: LedgerExport; truth: PositionsTruth; comparison: Comparison };
    let followed: { ledger: LedgerExport; truth: PositionsTruth; comparison: Comparison };
    const timings: Record<string, number> = {};

    const ingestor = (): AlphaChainIngestor =>
      createAlphaChain({ clickhouse: deps.clickhouse, log: deps.log }, chainSettings);

    async function catchUp(follower: Follower): Promise<void> {
      for (let i = 0; i < 2000; i++) {
        const outcome = await follower.tick();
        await runPositions(deps, settings);
        if (outcome.kind === 'idle') return;
      }
      throw new Error('follower did not catch up');
    }

    beforeAll(async () => {
      let t = performance.now();
      const lap = (name: string) => {
        const now = performance.now();
        timings[name] = Math.round(now - t);
        t = now;
      };
      sim = await startSim({ ...world.sim, replicas: false });
      lap('sim');
      chainSettings = alphaChainSettings(deps.config, {
        rpcUrls: [sim.rpcUrl],
        positionIds: 'simplified',
        finalityDepth: 0,
      });
      settings = { ...productSettings(deps.config), chainId: chainSettings.chainId, finalityDepth: 0 };
      const head = sim.historyHead;
      const backfill = ingestor();
      await backfill.referencePass(0, head);
      await backfill.ingestRange({ from: 0, to: head }, { head });
      lap('backfill');
      await runPositions(deps, settings);
      lap('positions');
      const ledger = sim.exportLedger();
      const truth = positionsTruth(ledger, sim.catalog);
      history = { ledger, truth, comparison: await compare(ledger, truth) };
      lap('compare');

      const follower = ingestor().follow({ fromBlock: head + 1 });
      for (let i = 0; i < world.live.rounds; i++) {
        await sim.control.mineActive(world.live.blocks, world.live.matches);
        await catchUp(follower);
      }
      lap('live');
      const finalLedger = sim.exportLedger();
      const finalTruth = positionsTruth(finalLedger, sim.catalog);
      followed = {
        ledger: finalLedger,
        truth: finalTruth,
        comparison: await compare(finalLedger, finalTruth),
      };
      lap('compare live');
      deps.log.info({ world: world.label, timings }, 'positions reconciliation timings');
    }, 600_000);

    afterAll(async () => {
      await sim?.stop();
      await reset();
    }, 60_000);

    it('after the backfilled history: shares = ledger balances, every position and change = the truth', () => {
      expectReconciled(history.comparison, `${world.label} history`);
    });

    it('after following live blocks: shares = ledger balances, every position and change = the truth', () => {
      expect(followed.ledger.fills.length).toBeGreaterThan(history.ledger.fills.length);
      expect(followed.ledger.transfers.length).toBeGreaterThan(history.ledger.transfers.length);
      expectReconciled(followed.comparison, `${world.label} live`);
    });

    it('the world exercised every rule: transfers in clusters and to strangers, conversions, refunds, share fees, redemptions', () => {
      const s = followed.truth.stats;
      expect(s.transfer_in).toBeGreaterThan(0);
      expect(s.convert_in + s.convert_out).toBeGreaterThan(0);
      expect(s.fee_refund).toBeGreaterThan(0);
      expect(s.shareRefunds).toBeGreaterThan(0);
      expect(s.v1ShareFees).toBeGreaterThan(0);
      expect(s.fee_income).toBeGreaterThan(0);
      expect(s.redeem).toBeGreaterThan(0);
      expect(s.split + s.merge).toBeGreaterThan(0);
      const cluster = new Map(sim.wallets.wallets.map((w) => [w.address.toLowerCase(), w.cluster]));
      const transfers = followed.ledger.transfers.map((x) => [String(x.from), String(x.to)] as const);
      expect(transfers.some(([f, t]) => cluster.get(f) && cluster.get(f) === cluster.get(t))).toBe(true);
      expect(transfers.some(([, t]) => !cluster.has(t))).toBe(true);
      // The fee receiver's shares are covered by the shares check; its income rows by the change check.
      expect([...followed.truth.positions.keys()].some((k) => k.startsWith(`${FEE_INCOME_ACCOUNT}|`))).toBe(
        true,
      );
    });
  });
}
