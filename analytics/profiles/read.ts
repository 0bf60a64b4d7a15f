/**
 * The reads of a profiles run, per batch of wallets (each a primary-key range of the positions tables):
 * window sums of the change rows (one statement, the windows as -If aggregates), the closes in time
 * order, the positions held now with their prices, and the holdings at a window's start. Change rows
 * are read FINAL (a rerun of the positions job may leave a duplicate until the table merges).
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import { PROFILE_WINDOWS, type ProfileWindowName } from '../../schemas/tables/alpha-profiles.ts';
import { type Close, EMPTY_SUMS, type WindowSums } from './metrics.ts';

const at = (param: string) => `fromUnixTimestamp64Milli({${param}:Int64}, 'UTC')`;

/**
 * FINAL within each partition only: a change row and its duplicate have the same block, so the same
 * month (the partition key); skipping the merge across partitions took a statement from 1.27 s to 0.74 s
 * (80,000 change rows of 2,000 wallets).
 */
const FINAL_SETTINGS = 'SETTINGS do_not_merge_across_partitions_select_final = 1';

/** Change kinds whose shares leave the position at its avg price (the cost basis roi divides by). */
const EXIT_KINDS = "kind IN ('sell', 'merge', 'redeem', 'convert_out')";

/** Per window, in WindowSums order: the aggregates of the rows that satisfy `c`. */
function windowAggregates(c: string): string[] {
  return [
    `countIf(fill = 1 AND ${c})`,
    `countIf(fill = 1 AND kind = 'buy' AND ${c})`,
    `sumIf(usd, fill = 1 AND ${c})`,
    `sumIf(usd, fill = 1 AND kind = 'buy' AND ${c})`,
    `sumIf(amount, fill = 1 AND kind = 'buy' AND ${c})`,
    `sumIf(usd, fill = 1 AND kind = 'sell' AND ${c})`,
    `sumIf(amount, fill = 1 AND kind = 'sell' AND ${c})`,
    `sumIf(delta_fees, ${c})`,
    `sumIf(delta_realized_pnl, ${c})`,
    `sumIf(toInt128(-delta_shares) * avg_price, ${EXIT_KINDS} AND ${c})`,
  ];
}
const PER_WINDOW = 10;

/** The bound of window `i` (its start, exclusive), or all rows for all_time. */
const windowCondition = (i: number) =>
  PROFILE_WINDOWS[i]!.ms === null ? '1' : `block_time > ${at(`start_${i}`)}`;

const SUMS_SQL = `
  SELECT wallet,
    ${PROFILE_WINDOWS.flatMap((_, i) => windowAggregates(windowCondition(i))).join(',\n    ')},
    countIf(fill = 1), minIf(toUnixTimestamp64Milli(block_time), fill = 1),
    maxIf(toUnixTimestamp64Milli(block_time), fill = 1),
    uniqExactIf(token_id, delta_shares > 0)
  FROM alpha_position_changes FINAL
  WHERE wallet IN {wallets:Array(String)} AND block_time <= ${at('now_ms')}
  GROUP BY wallet
  ${FINAL_SETTINGS}`;

export interface WalletSums {
  sums: Record<ProfileWindowName, WindowSums>;
  firstFill: number | null;
  lastFill: number | null;
  totalPositions: number;
}

/** Window starts (Unix ms; null for all_time) as the statement's parameters. */
function startParams(starts: Record<ProfileWindowName, number | null>): Record<string, number> {
  const out: Record<string, number> = {};
  PROFILE_WINDOWS.forEach((w, i) => {
    const s = starts[w.name];
    if (s !== null) out[`start_${i}`] = s;
  });
  return out;
}

export async function readWindowSums(
  ch: ClickHouse,
  wallets: readonly string[],
  now: number,
  starts: Record<ProfileWindowName, number | null>,
): Promise<Map<string, WalletSums>> {
  const rows = await ch.read<[string, ...(string | number)[]]>('analytics.profiles.sums', SUMS_SQL, {
    wallets,
    now_ms: now,
    ...startParams(starts),
  });
  const out = new Map<string, WalletSums>();
  for (const [wallet, ...v] of rows) {
    const sums = {} as Record<ProfileWindowName, WindowSums>;
    PROFILE_WINDOWS.forEach((w, i) => {
      const x = v.slice(i * PER_WINDOW, (i + 1) * PER_WINDOW);
      sums[w.name] = {
        trades: Number(x[0]),
        buyFills: Number(x[1]),
        volume: Number(x[2]),
        buyUsd: Number(x[3]),
        buyShares: Number(x[4]),
        sellUsd: Number(x[5]),
        sellShares: Number(x[6]),
        fees: Number(x[7]),
        realized: Number(x[8]),
        exitCost: BigInt(x[9]!),
      };
    });
    const [fills, first, last, positions] = v.slice(PROFILE_WINDOWS.length * PER_WINDOW);
    const anyFill = Number(fills) > 0;
    out.set(wallet, {
      sums,
      firstFill: anyFill ? Number(first) : null,
      lastFill: anyFill ? Number(last) : null,
      totalPositions: Number(positions),
    });
  }
  return out;
}

/** Sums of a wallet without change rows up to now. */
export const emptyWalletSums = (): WalletSums => ({
  sums: Object.fromEntries(PROFILE_WINDOWS.map((w) => [w.name, EMPTY_SUMS])) as Record<
    ProfileWindowName,
    WindowSums
  >,
  firstFill: null,
  lastFill: null,
  totalPositions: 0,
});

/**
 * Every close of the wallets up to now (a change to 0 shares that removed some), in chain order; the
 * closes of one event (a merge or redemption of both outcomes) by outcome index.
 */
export async function readCloses(
  ch: ClickHouse,
  wallets: readonly string[],
  now: number,
): Promise<Map<string, Close[]>> {
  const rows = await ch.read<[string, string, string, string]>(
    'analytics.profiles.closes',
    `SELECT wallet, toUnixTimestamp64Milli(block_time), realized_pnl - open_realized_pnl,
       toUnixTimestamp64Milli(block_time) - toUnixTimestamp64Milli(opened_at)
     FROM alpha_position_changes FINAL
     WHERE wallet IN {wallets:Array(String)} AND shares = 0 AND delta_shares < 0 AND block_time <= ${at('now_ms')}
     ORDER BY wallet, block_time, block_number, log_index, batch_index, outcome_index, token_id
     ${FINAL_SETTINGS}`,
    { wallets, now_ms: now },
  );
  const out = new Map<string, Close[]>();
  for (const [wallet, t, result, hold] of rows) {
    let list = out.get(wallet);
    if (!list) {
      list = [];
      out.set(wallet, list);
    }
    list.push({ at: Number(t), result: Number(result), holdMs: Number(hold) });
  }
  return out;
}

/** A holding: a (wallet, token) with shares > 0. */
export interface Holding {
  wallet: string;
  token: string;
  shares: string;
  avgPrice: string;
}

/** The positions the wallets hold now (alpha_positions FINAL, shares > 0). */
export async function readHoldingsNow(ch: ClickHouse, wallets: readonly string[]): Promise<Holding[]> {
  const rows = await ch.read<[string, string, string, string]>(
    'analytics.profiles.holdings',
    `SELECT wallet, token_id, shares, avg_price FROM alpha_positions FINAL
     WHERE wallet IN {wallets:Array(String)} AND shares > 0`,
    { wallets },
  );
  return rows.map(([wallet, token, shares, avgPrice]) => ({ wallet, token, shares, avgPrice }));
}

/**
 * The positions the wallets held at each of `starts` (Unix ms): each (wallet, token)'s last change at or
 * before the start, for every start in one statement (one read of the rows instead of one per window).
 */
export async function readHoldingsAt(
  ch: ClickHouse,
  wallets: readonly string[],
  starts: readonly number[],
): Promise<Holding[][]> {
  const key = '(block_number, log_index, batch_index)';
  const upTo = (i: number) => `block_time <= ${at(`start_${i}`)}`;
  const columns = starts.flatMap((_, i) => [
    `argMaxIf(shares, ${key}, ${upTo(i)}) AS held_${i}`,
    `argMaxIf(avg_price, ${key}, ${upTo(i)})`,
  ]);
  const params: Record<string, unknown> = { wallets, latest_ms: Math.max(...starts) };
  starts.forEach((s, i) => {
    params[`start_${i}`] = s;
  });
  const rows = await ch.read<[string, string, ...string[]]>(
    'analytics.profiles.holdings_at',
    `SELECT wallet, token_id, ${columns.join(', ')}
     FROM alpha_position_changes FINAL
     WHERE wallet IN {wallets:Array(String)} AND block_time <= ${at('latest_ms')}
     GROUP BY wallet, token_id HAVING ${starts.map((_, i) => `held_${i} > 0`).join(' OR ')}
     ${FINAL_SETTINGS}`,
    params,
  );
  return starts.map((_, i) =>
    rows
      .filter((r) => BigInt(r[2 + 2 * i]!) > 0n)
      .map((r) => ({ wallet: r[0], token: r[1], shares: r[2 + 2 * i]!, avgPrice: r[3 + 2 * i]! })),
  );
}

/** The stored current price of tokens (alpha_token_prices FINAL); absent or null: no price. */
export async function readTokenPrices(
  ch: ClickHouse,
  tokens: readonly string[],
): Promise<Map<string, number | null>> {
  const out = new Map<string, number | null>();
  if (tokens.length === 0) return out;
  const rows = await ch.read<[string, number | null]>(
    'analytics.profiles.prices',
    'SELECT token_id, price FROM alpha_token_prices FINAL WHERE token_id IN {tokens:Array(String)}',
    { tokens: [...new Set(tokens)] },
  );
  for (const [token, price] of rows) out.set(token, price === null ? null : Number(price));
  return out;
}

/** The wallets that have a position (alpha_positions FINAL), ascending. */
export async function readProfiledWallets(ch: ClickHouse): Promise<string[]> {
  const rows = await ch.read<[string]>(
    'analytics.profiles.wallets',
    'SELECT DISTINCT wallet FROM alpha_positions FINAL ORDER BY wallet',
  );
  return rows.map(([w]) => w);
}
