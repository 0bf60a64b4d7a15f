/**
 * The profiles run of venue alpha (job `alpha.profiles`, every ALPHA_PROFILES_INTERVAL_S;
 * docs/profiles.md): the profile of every wallet that has a position, at now = the newest alpha block's
 * time (else the wall clock), written whole to alpha_wallet_profiles under one version; wallets profiled
 * before but without a position now are marked deleted; then its run mark (`at`: that version). Wallets go in bounded batches (each a
 * primary-key range of the positions tables): SQL sums the windows, TypeScript walks the closes.
 */

import type { ClickHouse } from '../../core/clickhouse/index.ts';
import { alphaNow } from '../../core/now.ts';
import { unrealizedBase } from '../../core/unrealized.ts';
import { PRODUCT_SOURCES } from '../../schemas/products.ts';
import { PROFILE_WINDOWS, type ProfileWindowName } from '../../schemas/tables/alpha-profiles.ts';
import { commitRun } from '../shared/chain.ts';
import { currentPrices } from '../shared/current-price.ts';
import { type AnalyticsDeps, nextVersion } from '../shared/version.ts';
import { computeProfile, type Profile, type WalletInputs } from './metrics.ts';
import {
  emptyWalletSums,
  type Holding,
  readCloses,
  readHoldingsAt,
  readHoldingsNow,
  readProfiledWallets,
  readTokenPrices,
  readWindowSums,
} from './read.ts';

/** The product's name: its run mark's source in the progress store. */
export const PROFILES_PRODUCT = 'alpha-profiles';
export const PROFILES_SOURCE = PRODUCT_SOURCES['alpha-profiles'];
/** Wallets per batch. */
export const DEFAULT_BATCH_WALLETS = 2_000;

type Bounded = Exclude<ProfileWindowName, 'all_time'>;

export interface ProfilesRun {
  /** The run's now (Unix ms) and the version of its rows. */
  computedAt: number;
  version: number;
  wallets: number;
  /** Wallets profiled before, marked deleted by this run. */
  removed: number;
  ms: number;
}

/** The windows' starts at `now` (Unix ms; null for all_time). */
export function windowStarts(now: number): Record<ProfileWindowName, number | null> {
  return Object.fromEntries(
    PROFILE_WINDOWS.map((w) => [w.name, w.ms === null ? null : now - w.ms]),
  ) as Record<ProfileWindowName, number | null>;
}

/** Σ unrealized P&L per wallet of `holdings` at `prices`, USD (a token without a price counts 0). */
function unrealizedByWallet(holdings: readonly Holding[], prices: Map<string, number | null>) {
  const base = new Map<string, number>();
  for (const h of holdings) {
    const u = unrealizedBase(h.shares, h.avgPrice, prices.get(h.token) ?? null);
    base.set(h.wallet, (base.get(h.wallet) ?? 0) + u);
  }
  return new Map([...base].map(([w, u]) => [w, u / 1e6]));
}

/** The prices at a window's start, asked once per token and run (the cache spans the batches). */
async function pricesAt(
  ch: ClickHouse,
  tokens: readonly string[],
  at: number,
  cache: Map<string, number | null>,
) {
  const missing = [...new Set(tokens)].filter((t) => !cache.has(t));
  if (missing.length > 0) {
    for (const [t, p] of await currentPrices(ch, missing, at)) cache.set(t, p === null ? null : p.price);
  }
  return cache;
}

/** The profiles of a batch of wallets at `now`. */
export async function profileBatch(
  ch: ClickHouse,
  wallets: readonly string[],
  now: number,
  priceCache: Record<Bounded, Map<string, number | null>> = {
    one_day: new Map(),
    seven_day: new Map(),
    thirty_day: new Map(),
  },
): Promise<Profile[]> {
  const starts = windowStarts(now);
  const bounded = ['one_day', 'seven_day', 'thirty_day'] as const;
  const [sums, closes, holdings, heldAt] = await Promise.all([
    readWindowSums(ch, wallets, now, starts),
    readCloses(ch, wallets, now),
    readHoldingsNow(ch, wallets),
    readHoldingsAt(
      ch,
      wallets,
      bounded.map((w) => starts[w]!),
    ),
  ]);
  const nowPrices = await readTokenPrices(
    ch,
    holdings.map((h) => h.token),
  );
  const unrealizedNow = unrealizedByWallet(holdings, nowPrices);
  const active = new Map<string, number>();
  for (const h of holdings) active.set(h.wallet, (active.get(h.wallet) ?? 0) + 1);

  const atStart = {} as Record<Bounded, Map<string, number>>;
  for (const [i, w] of bounded.entries()) {
    const held = heldAt[i]!;
    const prices = await pricesAt(
      ch,
      held.map((h) => h.token),
      starts[w]!,
      priceCache[w],
    );
    atStart[w] = unrealizedByWallet(held, prices);
  }

  return wallets.map((wallet) => {
    const s = sums.get(wallet) ?? emptyWalletSums();
    const inputs: WalletInputs = {
      wallet,
      sums: s.sums,
      closes: closes.get(wallet) ?? [],
      firstFill: s.firstFill,
      lastFill: s.lastFill,
      totalPositions: s.totalPositions,
      activePositions: active.get(wallet) ?? 0,
      unrealizedNow: unrealizedNow.get(wallet) ?? 0,
      unrealizedAtStart: {
        one_day: atStart.one_day.get(wallet) ?? 0,
        seven_day: atStart.seven_day.get(wallet) ?? 0,
        thirty_day: atStart.thirty_day.get(wallet) ?? 0,
      },
    };
    return computeProfile(inputs, starts, now);
  });
}

/** `YYYY-MM-DD HH:MM:SS.mmm` (UTC) from Unix ms: how JSONEachRow reads a DateTime64(3). */
const chTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

/** A profile as its alpha_wallet_profiles row. */
export function profileRow(p: Profile, version: number): Record<string, unknown> {
  const row: Record<string, unknown> = { wallet: p.wallet };
  for (const w of PROFILE_WINDOWS) {
    for (const [field, v] of Object.entries(p.windows[w.name])) row[`${w.prefix}${field}`] = v;
    if (w.name === 'all_time') {
      for (const [field, v] of Object.entries(p.allTime)) row[`${w.prefix}${field}`] = v;
    }
  }
  Object.assign(row, p.styles);
  row.primary_style = p.primaryStyle;
  row.entry_edge = p.entryEdge;
  row.unrealized_pnl = p.unrealizedPnl;
  row.total_pnl = p.totalPnl;
  row.first_trade_at = p.firstTradeAt === null ? null : chTime(p.firstTradeAt);
  row.last_trade_at = p.lastTradeAt === null ? null : chTime(p.lastTradeAt);
  row.computed_at = chTime(p.computedAt);
  row.version = version;
  row.deleted = 0;
  return row;
}

/**
 * Profiles every wallet with a position at `now` (default: the newest alpha block's time, else the wall
 * clock) and bumps `analytics:alpha-profiles`.
 */
export async function runProfiles(
  deps: AnalyticsDeps,
  o: { now?: number; batchWallets?: number } = {},
): Promise<ProfilesRun> {
  const started = Date.now();
  const ch = deps.clickhouse;
  const now = o.now ?? (await alphaNow(ch));
  const version = nextVersion();
  const batch = o.batchWallets ?? DEFAULT_BATCH_WALLETS;
  const wallets = await readProfiledWallets(ch);
  let removed = 0;
  await commitRun(ch, PROFILES_PRODUCT, { kind: 'head', at: version }, async () => {
    const cache = { one_day: new Map(), seven_day: new Map(), thirty_day: new Map() };
    for (let i = 0; i < wallets.length; i += batch) {
      const profiles = await profileBatch(ch, wallets.slice(i, i + batch), now, cache);
      await ch.insert(
        'analytics.profiles.write',
        'alpha_wallet_profiles',
        profiles.map((p) => profileRow(p, version)),
      );
    }
    // Wallets an earlier run profiled and this one did not (their positions are gone): deleted. (Rows go
    // by position; the new columns' aliases must not be `version`, which the WHERE would then read.)
    const [gone] = await ch.read<[string]>(
      'analytics.profiles.gone',
      'SELECT count() FROM alpha_wallet_profiles FINAL WHERE version < {v:UInt64}',
      { v: version },
    );
    removed = Number(gone?.[0] ?? 0);
    if (removed > 0) {
      await ch.command(
        'analytics.profiles.delete',
        `INSERT INTO alpha_wallet_profiles
         SELECT * EXCEPT (version, deleted), {v:UInt64} AS new_version, 1 AS is_deleted
         FROM alpha_wallet_profiles FINAL WHERE version < {v:UInt64}`,
        { v: version },
      );
    }
  });
  await deps.versions?.bump(PROFILES_SOURCE, String(now));
  const ms = Date.now() - started;
  deps.log.info(
    { computedAt: new Date(now).toISOString(), wallets: wallets.length, removed, ms },
    'Computed alpha wallet profiles',
  );
  return { computedAt: now, version, wallets: wallets.length, removed, ms };
}
