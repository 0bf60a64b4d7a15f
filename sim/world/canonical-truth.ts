/**
 * Scoring of canonical ids against a world's truth (the canonical-match benchmark and the canonical
 * tests): over every pair of outcomes listed on two different venues, a pair is predicted when both
 * have the same canonical id and true when both are the same proposition of the same topic. Precision = true predicted pairs / predicted pairs; recall = true
 * predicted pairs / true pairs. Pairs are counted per group (n outcomes of which n_v on venue v give
 * C(n,2) − Σ C(n_v,2) cross-venue pairs), never enumerated.
 */
import type { Catalog, CatalogMarket, VenueCode } from './catalog.ts';

export interface ScoredOutcome {
  venue: string;
  market: string;
  index: number;
  label: string;
  /** The world's proposition: topic id + "o<i>" (topic outcome i) or "not<i>". */
  truth: string;
  /** The assigned canonical id, null when none. */
  id: string | null;
  key: string | null;
}

/** The key a venue's stored rows use for a market of the catalog (canonical_outcomes.market). */
export function storedMarketKey(m: CatalogMarket): string {
  return m.venue === 'beta' || m.venue === 'gamma' ? m.key : m.id;
}

/** The proposition outcome `index` of `m` pays on (reads the world's truth: benchmark only). */
export function proposition(catalog: Catalog, m: CatalogMarket, index: number): string {
  const k = m.topicOutcomeIndex;
  if (k === null) return `${m.topicId}|o${index}`;
  if (index === 0) return `${m.topicId}|o${k}`;
  const topic = catalog.topics.find((t) => t.id === m.topicId)!;
  return topic.outcomes.length === 2 ? `${m.topicId}|o${1 - k}` : `${m.topicId}|not${k}`;
}

const pairs = (n: number) => (n * (n - 1)) / 2;

function crossPairs(group: readonly ScoredOutcome[]): number {
  const perVenue = new Map<string, number>();
  for (const o of group) perVenue.set(o.venue, (perVenue.get(o.venue) ?? 0) + 1);
  let same = 0;
  for (const n of perVenue.values()) same += pairs(n);
  return pairs(group.length) - same;
}

function groupBy<T>(xs: readonly T[], key: (x: T) => string | null): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const x of xs) {
    const k = key(x);
    if (k === null) continue;
    const list = out.get(k) ?? [];
    list.push(x);
    out.set(k, list);
  }
  return out;
}

export interface Score {
  predicted: number;
  truePairs: number;
  correct: number;
  precision: number;
  recall: number;
  /** Up to `limit` wrong pairs: predicted but false, then true but missed. */
  wrong: { kind: 'false match' | 'missed'; a: ScoredOutcome; b: ScoredOutcome }[];
}

export function score(outcomes: readonly ScoredOutcome[], limit = 20): Score {
  const byId = groupBy(outcomes, (o) => o.id);
  const byTruth = groupBy(outcomes, (o) => o.truth);
  const byBoth = groupBy(outcomes, (o) => (o.id === null ? null : `${o.id}\u0000${o.truth}`));
  let predicted = 0;
  let truePairs = 0;
  let correct = 0;
  for (const g of byId.values()) predicted += crossPairs(g);
  for (const g of byTruth.values()) truePairs += crossPairs(g);
  for (const g of byBoth.values()) correct += crossPairs(g);
  const wrong: Score['wrong'] = [];
  const half = Math.ceil(limit / 2);
  const collect = (groups: Map<string, ScoredOutcome[]>, kind: 'false match' | 'missed', max: number) => {
    for (const g of groups.values()) {
      for (let i = 0; i < g.length && wrong.length < max; i++) {
        for (let j = i + 1; j < g.length && wrong.length < max; j++) {
          const a = g[i]!;
          const b = g[j]!;
          if (a.venue === b.venue) continue;
          const bad = kind === 'false match' ? a.truth !== b.truth : a.id === null || a.id !== b.id;
          if (bad) wrong.push({ kind, a, b });
        }
      }
    }
  };
  collect(byId, 'false match', half);
  collect(byTruth, 'missed', limit);
  return {
    predicted,
    truePairs,
    correct,
    precision: predicted === 0 ? 1 : correct / predicted,
    recall: truePairs === 0 ? 1 : correct / truePairs,
    wrong,
  };
}

export const VENUE_ORDER: readonly VenueCode[] = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
