/**
 * The position endpoints end to end over a small simulated world: the chain history backfilled, the
 * positions job run over it (analytics/positions/), then every position served compared with the
 * positions ground truth replayed from the sim ledger (test/support/positions-truth.ts, never the
 * tables): each (wallet, token) served exactly once across pages, its numbers = the truth's base units ÷
 * 10⁶, its last update = the truth's last change; the busiest wallets' positions and summaries; the
 * holders of the most held tokens in rank order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AllUsersPosition, Position, TopHolderEntry } from '../schemas/api/alpha-positions.ts';
import type { SavedSim } from '../sim/saved.ts';
import { type ApiTestContext, createApiTestContext } from './api-helpers.ts';
import { type PositionsTruth, positionsTruth, type TruthChange } from './support/positions-truth.ts';
import { ingestSimHistory } from './support/sim-history.ts';
import { SHARED_WORLD, sharedWorld } from './support/world-cache.ts';

let t: ApiTestContext;
let key: string;
let sim: SavedSim;
let truth: PositionsTruth;
/** The last change of each position, keyed `${wallet}|${token}`. */
const lastChange = new Map<string, TruthChange>();
/** Current price of each token as the positions job wrote it. */
let prices: Map<string, number | null>;
let served: AllUsersPosition[];

const units = (v: bigint) => Number(v) / 1e6;

/**
 * A served amount (6 decimals) equals `want` rounded to 6 decimals: within half a millionth (and float
 * noise). toBeCloseTo(want, 6) asks for strictly less than half, which fails on an exact half
 * (234.2794005 served as 234.279401).
 */
function expectServed(got: number, want: number) {
  expect(Math.abs(got - want), `${got} ≈ ${want}`).toBeLessThanOrEqual(5e-7 + 1e-9);
}

async function get(url: string) {
  const res = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function all<T>(url: string, field: string): Promise<T[]> {
  const items: T[] = [];
  let token: string | null = null;
  do {
    const body = await get(token ? `${url}&pagination_key=${token}` : url);
    items.push(...body[field]);
    token = body.pagination.pagination_key;
  } while (token !== null);
  return items;
}

beforeAll(async () => {
  t = await createApiTestContext('api_alpha_positions_sim');
  key = await t.key('enterprise', 100_000);
  const deps = t.deps;
  sim = await sharedWorld(SHARED_WORLD);
  await ingestSimHistory(deps, sim, { positions: true });

  truth = positionsTruth(sim.exportLedger(), sim.catalog);
  for (const c of truth.changes) lastChange.set(`${c.wallet}|${c.tokenId}`, c);
  const rows = await deps.clickhouse.read<[string, number | null]>(
    'test.prices',
    'SELECT token_id, price FROM alpha_token_prices FINAL',
  );
  prices = new Map(rows);
  served = await all<AllUsersPosition>('/v2/alpha/positions?order_by=block&order=asc&limit=500', 'positions');
}, 600_000);

afterAll(async () => {
  await sim?.stop();
  await t?.close();
}, 60_000);

describe('position endpoints over a small simulated world', () => {
  it('serves every position of the truth exactly once, its numbers = base units ÷ 1e6', () => {
    const keys = served.map((p) => `${p.user}|${p.market.token_id}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect([...keys].sort()).toEqual([...truth.positions.keys()].sort());
    expect(truth.positions.size).toBeGreaterThan(100);
    const diffs: string[] = [];
    for (const p of served) {
      const k = `${p.user}|${p.market.token_id}`;
      const s = truth.positions.get(k)!;
      const want = {
        shares: units(s.shares),
        total_shares_bought: units(s.totalBought),
        total_bought_usd: units(s.totalBoughtUsd),
        avg_entry_price: units(s.avgPrice),
        net_fees_usd: units(s.netFees),
        realized_usd: units(s.realizedPnl),
        last_updated_block: lastChange.get(k)!.block,
        last_updated_at: lastChange.get(k)!.time,
      };
      const got = {
        ...p.position,
        realized_usd: p.pnl.realized_usd,
        last_updated_block: p.last_updated_block,
        last_updated_at: p.last_updated_at,
      };
      for (const [f, v] of Object.entries(want)) {
        if (got[f as keyof typeof got] !== v) diffs.push(`${k} ${f}: ${got[f as keyof typeof got]} ≠ ${v}`);
      }
    }
    expect(diffs.slice(0, 20)).toEqual([]);
  });

  it('serves positions in block order and prices them at the job’s current price', () => {
    const blocks = served.map((p) => p.last_updated_block!);
    expect(blocks).toEqual([...blocks].sort((a, b) => a - b));
    let priced = 0;
    for (const p of served) {
      const price = prices.get(p.market.token_id) ?? null;
      const s = p.position;
      if (price === null) {
        expect(p.current.price).toBe(s.avg_entry_price);
        expect(p.pnl.unrealized_usd).toBe(0);
        continue;
      }
      priced++;
      expect(p.current.price).toBe(price);
      expectServed(p.current.value_usd, s.shares * price);
      expectServed(p.pnl.unrealized_usd, s.shares * (price - s.avg_entry_price));
      expectServed(s.total_cost_usd, s.shares * s.avg_entry_price);
    }
    expect(priced).toBeGreaterThan(served.length / 2);
  });

  it("answers the busiest wallets' positions and summaries from the same numbers", async () => {
    const byWallet = new Map<string, AllUsersPosition[]>();
    for (const p of served) byWallet.set(p.user, [...(byWallet.get(p.user) ?? []), p]);
    const busiest = [...byWallet.entries()].sort((a, b) => b[1].length - a[1].length).slice(0, 3);
    for (const [wallet, mine] of busiest) {
      const body = await get(`/v2/alpha/wallet/positions/${wallet}?include_closed=true&limit=200`);
      const strip = ({ user: _u, last_updated_at: _a, last_updated_block: _b, ...rest }: AllUsersPosition) =>
        rest as Position;
      const byToken = (a: Position, b: Position) => (a.market.token_id < b.market.token_id ? -1 : 1);
      expect([...body.positions].sort(byToken)).toEqual(mine.map(strip).sort(byToken));
      const realized = mine.reduce(
        (s, p) => s + truth.positions.get(`${wallet}|${p.market.token_id}`)!.realizedPnl,
        0n,
      );
      const fees = mine.reduce(
        (s, p) => s + truth.positions.get(`${wallet}|${p.market.token_id}`)!.netFees,
        0n,
      );
      expect(body.summary.total_positions).toBe(mine.length);
      expect(body.summary.total_realized_pnl_usd).toBe(units(realized));
      expect(body.summary.fees_paid).toBe(units(fees));
      const open = await get(`/v2/alpha/wallet/positions/${wallet}`);
      expect(open.summary.total_positions).toBe(mine.filter((p) => p.position.shares > 0).length);
    }
  });

  it('ranks the holders of the most held tokens as the truth does', async () => {
    const holders = new Map<string, { wallet: string; shares: bigint }[]>();
    for (const [k, s] of truth.positions) {
      if (s.shares === 0n) continue;
      const [wallet, token] = k.split('|') as [string, string];
      holders.set(token, [...(holders.get(token) ?? []), { wallet, shares: s.shares }]);
    }
    const tokens = [...holders.entries()].sort((a, b) => b[1].length - a[1].length).slice(0, 3);
    expect(tokens[0]![1].length).toBeGreaterThan(3);
    for (const [token, list] of tokens) {
      list.sort((a, b) =>
        a.shares > b.shares ? -1 : a.shares < b.shares ? 1 : a.wallet < b.wallet ? -1 : 1,
      );
      const entries = await all<TopHolderEntry>(`/v2/alpha/position/${token}/top-holders?limit=2`, 'entries');
      expect(entries.map((e) => [e.rank, e.user, e.position_shares])).toEqual(
        list.map((h, i) => [i + 1, h.wallet, units(h.shares)]),
      );
      const counted = await get(`/v2/alpha/position/${token}/top-holders?include_count=true&limit=1`);
      expect(counted.total_count).toBe(list.length);
    }
  });
});
