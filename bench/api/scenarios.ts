/**
 * What the API benchmark requests. A scenario is one endpoint lookup, declared in one line: its name and
 * how to build a request URL from lookup keys. Each runs two ways:
 *
 * - uncached: every request a key never requested before in this run (a distinct wallet, token or hash),
 *   so no response cache can answer it;
 * - hot: a Zipf mix over a few repeated URLs (the k-th most popular requested ∝ 1/k), which a response
 *   cache, when the app has one, answers from memory.
 *
 * Add an endpoint's scenario with one line in SCENARIOS (and, if it needs a new kind of key, the key's
 * sample in data.ts).
 */

import { createRng } from '../../sim/world/rng.ts';
import type { KeyKind, KeyPools } from './data.ts';

/** Lookup keys for one URL: each call returns the next key of its kind. */
export interface Keys {
  next(kind: KeyKind): string;
}

export interface ScenarioOptions {
  /** Page size of list lookups. */
  limit: number;
}

export interface Scenario {
  name: string;
  /** Keys of each kind one URL takes (to size the samples). */
  uses: Partial<Record<KeyKind, number>>;
  url(keys: Keys, o: ScenarioOptions): string;
}

const scenario = (
  name: string,
  uses: Partial<Record<KeyKind, number>>,
  url: (keys: Keys, o: ScenarioOptions) => string,
): Scenario => ({ name, uses, url });

const wallets = (keys: Keys, n: number) => Array.from({ length: n }, () => keys.next('wallet')).join(',');

export const SCENARIOS: Scenario[] = [
  scenario(
    'trades by wallet',
    { wallet: 1 },
    (k, o) => `/v2/alpha/trades?wallet=${k.next('wallet')}&limit=${o.limit}`,
  ),
  scenario(
    'trades by token',
    { token: 1 },
    (k, o) => `/v2/alpha/trades?token_id=${k.next('token')}&limit=${o.limit}`,
  ),
  scenario('trades by tx hash', { txHash: 1 }, (k) => `/v2/alpha/trades?tx_hash=${k.next('txHash')}`),
  scenario(
    'trades by 10 wallets',
    { wallet: 10 },
    (k, o) => `/v2/alpha/trades?wallet=${wallets(k, 10)}&limit=${o.limit}`,
  ),
  scenario(
    'activity by wallet',
    { activityWallet: 1 },
    (k, o) => `/v2/alpha/activity?wallet=${k.next('activityWallet')}&limit=${o.limit}`,
  ),
];

/** The lookups mix (SUMMARY's uncached_* and hot_*): wallet, token and tx hash lookups in turn. */
export const MIX_NAME = 'lookups mix';
export const MIX_OF = ['trades by wallet', 'trades by token', 'trades by tx hash'];

/**
 * Keys handed out once each from the pools; when a pool runs out it starts over and counts the reuses
 * (a small dataset then cannot keep every request distinct: the run reports it).
 */
export function createFreshKeys(pools: KeyPools, skip: Partial<Record<KeyKind, number>> = {}) {
  const cursor: Record<KeyKind, number> = { wallet: 0, token: 0, txHash: 0, activityWallet: 0 };
  for (const [k, n] of Object.entries(skip)) cursor[k as KeyKind] = n;
  let reused = 0;
  const keys: Keys = {
    next(kind) {
      const pool = pools[kind];
      if (pool.length === 0) throw new Error(`No ${kind} keys in the dataset`);
      const i = cursor[kind]++;
      if (i >= pool.length) reused++;
      return pool[i % pool.length]!;
    },
  };
  return { keys, reused: () => reused };
}

/** A deterministic generator (the sim's seeded one): the same run draws the same hot URLs in the same order. */
export function createRandom(seed: number): () => number {
  const rng = createRng(seed);
  return () => rng.next();
}

/** Draws indexes 0..n-1 with P(k) ∝ 1/(k+1)^s. */
export function createZipf(n: number, s: number, random: () => number) {
  const cdf: number[] = [];
  let sum = 0;
  for (let k = 0; k < n; k++) {
    sum += 1 / (k + 1) ** s;
    cdf.push(sum);
  }
  return () => {
    const x = random() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** A request URL for request number i. */
export type UrlSource = (i: number) => string;

/** Uncached: each request builds its URL from fresh keys. */
export function uncachedUrls(s: Scenario, keys: Keys, o: ScenarioOptions): UrlSource {
  return () => s.url(keys, o);
}

/** Hot: `urls` fixed URLs, requested in a Zipf mix. */
export function hotUrls(urls: string[], zipfS: number, seed: number): UrlSource {
  const draw = createZipf(urls.length, zipfS, createRandom(seed));
  return () => urls[draw()]!;
}
