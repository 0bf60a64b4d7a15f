/**
 * The catalog's rules (docs/catalog.md "Rules"), each a pure function of the rows it needs, so the build
 * applies them and a test can state them.
 */
import { searchWords } from '../../core/search-words.ts';
import type { MarketStatus } from '../../schemas/api/alpha-catalog.ts';
import type { MarketRollingMetrics } from '../../schemas/api/alpha-market-data.ts';

/**
 * `resolved` once the condition resolved on chain (a `condition_resolved` at or before now: the caller
 * passes its payout, or null), else `closed` when the metadata says closed, else `open`.
 */
export function marketStatus(resolution: readonly string[] | null, metadataClosed: boolean): MarketStatus {
  if (resolution !== null) return 'resolved';
  return metadataClosed ? 'closed' : 'open';
}

/**
 * The label of the only outcome with a non-zero payout numerator (outcome order = payout order); null
 * when unresolved, when several outcomes pay (a split payout) or none does, or the label is unknown.
 */
export function winningSide(numerators: readonly string[] | null, labels: readonly string[]): string | null {
  if (numerators === null) return null;
  const paying: number[] = [];
  numerators.forEach((n, i) => {
    if (/^\d+$/.test(n) && BigInt(n) > 0n) paying.push(i);
  });
  if (paying.length !== 1) return null;
  return labels[paying[0]!] ?? null;
}

/**
 * An event is open while any of its markets is open; once none is (also: no market at all), it is
 * closed and its closed_time is the latest metadata close time of its markets (null when none has one).
 */
export function eventStatus(markets: readonly { status: MarketStatus; closedTime: number | null }[]): {
  status: 'open' | 'closed';
  closedTime: number | null;
} {
  if (markets.some((m) => m.status === 'open')) return { status: 'open', closedTime: null };
  let latest: number | null = null;
  for (const m of markets) {
    if (m.closedTime !== null && (latest === null || m.closedTime > latest)) latest = m.closedTime;
  }
  return { status: 'closed', closedTime: latest };
}

/** The fields of MarketRollingMetrics other than computed_at. */
export const ROLLING_FIELDS = [
  'volume_1d',
  'volume_7d',
  'volume_30d',
  'buy_volume_1d',
  'buy_volume_7d',
  'buy_volume_30d',
  'sell_volume_1d',
  'sell_volume_7d',
  'sell_volume_30d',
  'trades_1d',
  'trades_7d',
  'trades_30d',
  'buys_1d',
  'buys_7d',
  'buys_30d',
  'sells_1d',
  'sells_7d',
  'sells_30d',
  'oi_change_1d',
  'oi_change_7d',
  'oi_change_30d',
] as const satisfies readonly (keyof MarketRollingMetrics)[];

/**
 * Several markets' rolling metrics as one: each field summed, computed_at the newest; null when none of
 * them has metrics.
 */
export function sumRolling(all: readonly (MarketRollingMetrics | null)[]): MarketRollingMetrics | null {
  const present = all.filter((r): r is MarketRollingMetrics => r !== null);
  if (present.length === 0) return null;
  const out = { computed_at: null } as Record<string, number | string | null>;
  for (const f of ROLLING_FIELDS) out[f] = roundUsd(present.reduce((s, r) => s + r[f], 0));
  for (const r of present) {
    if (r.computed_at !== null && (out.computed_at === null || r.computed_at > (out.computed_at as string))) {
      out.computed_at = r.computed_at;
    }
  }
  return out as unknown as MarketRollingMetrics;
}

/**
 * A sum of USD amounts rounded to the base unit (6 decimals): adding amounts as doubles leaves noise
 * (21916.177499999998 for 21916.1775); counts pass unchanged.
 */
export const roundUsd = (x: number): number => Math.round(x * 1e6) / 1e6;

/** A category label's slug: its words (core/search-words.ts) joined by '-' ("US Politics" → "us-politics"). */
export const categorySlug = (label: string): string => searchWords(label).join('-');
