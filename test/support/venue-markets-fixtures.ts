/**
 * Seeded market rows for the venue market list tests (test/api-venue-markets.test.ts): per venue, rows of
 * its `<venue>_markets` table built here (the truth), written through `writeChanged` (an earlier version
 * of some rows first, so reads must take the newest), and the canonical ids of their outcomes in
 * `canonical_outcomes` (some written twice, some markets without any, some ids shared by two markets).
 * Each fixture lists the filters of its endpoint with the predicate they must select and the order of
 * each sort, computed from these rows only.
 */
import { canonicalId } from '../../core/canonical-id.ts';
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { TableDescription } from '../../core/clickhouse/table.ts';
import { searchWords } from '../../core/search-words.ts';
import { chTime, writeChanged } from '../../ingest/rest/store.ts';
import { CANONICAL_OUTCOMES } from '../../schemas/tables/venues.ts';

export type Row = Record<string, unknown>;
export type Query = Record<string, string | number | (string | number)[]>;

export interface FilterCase {
  name: string;
  query: Query;
  pred: (r: Row, ids: readonly string[]) => boolean;
}

export interface VenueFixture {
  venue: 'beta' | 'gamma' | 'delta' | 'epsilon';
  table: TableDescription;
  key: string;
  /** The newest version of every row (the truth). */
  rows: Row[];
  /** Earlier versions of some rows, written first. */
  earlier: Row[];
  /** Canonical id per outcome index of each market key ('' none). */
  ids: Map<string, string[]>;
  keyOf: (r: Row) => string;
  /** The market key of a served item. */
  servedKey: (m: Record<string, unknown>) => string;
  filters: FilterCase[];
  sorts: Record<string, (a: Row, b: Row) => number>;
  defaultSort: string;
  /** The venue's own parameters' invalid values (a 422 naming the parameter), besides the shared ones. */
  invalid: [param: string, query: string][];
  /** What an outcome without a canonical id serves as its `canonical_id`. */
  noCanonicalId: '' | null;
}

/** A deterministic generator (mulberry32). */
export function rng(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
    subset: <T>(xs: readonly T[]): T[] => xs.filter(() => next() < 0.4),
  };
}

/** Every column of `t` at its empty value ('' / 0 / false / [] / null), so a row names only what matters. */
export function rowDefaults(t: TableDescription): Row {
  const out: Row = {};
  for (const [name, col] of Object.entries(t.columns)) {
    const ch = col.ch;
    out[name] = ch.startsWith('Nullable(')
      ? null
      : ch.startsWith('Array(')
        ? []
        : ch === 'Bool'
          ? false
          : /String/.test(ch)
            ? ''
            : 0;
  }
  return out;
}

const SUBJECTS = ['Bitcoin', 'Ethereum', 'Lakers', 'Celtics', 'Senate', 'Apple', 'Tesla', 'Arsenal'];
const VERBS = ['reach', 'win', 'close above', 'announce', 'lose', 'finish'];
const OBJECTS = ['the final', 'record highs', 'a merger', 'the title', 'new lows', 'the playoffs'];
const MONTHS = ['January', 'March', 'June', 'September', 'December'];

export const BASE_MS = Date.UTC(2026, 5, 1);
const DAY = 86_400_000;

/** Common columns of a venue row (title/words/status/outcomes/prices/volume/times). */
export function commonRow(r: ReturnType<typeof rng>, i: number): Row {
  const title = `Will ${r.pick(SUBJECTS)} ${r.pick(VERBS)} ${r.pick(OBJECTS)} by ${r.pick(MONTHS)} ${2026 + (i % 3)}?`;
  const p = i % 11 === 0 ? null : r.int(1, 99) / 100;
  const end = i % 7 === 0 ? null : BASE_MS + r.int(1, 200) * DAY;
  return {
    title,
    words: searchWords(title),
    status: r.pick(['open', 'open', 'closed', 'resolved'] as const),
    outcomes: ['Yes', 'No'],
    prices: p === null ? [null, null] : [p, Math.round((1 - p) * 100) / 100],
    volume_usd: r.int(0, 40) * 250,
    end_time: end,
    created_time: i % 9 === 0 ? null : BASE_MS - r.int(1, 300) * DAY,
    category: r.pick(['Crypto', 'Sports', 'Politics']),
  };
}

/**
 * Canonical ids of `keys` (two outcomes each): every 13th market has none; every 5th shares its No id
 * with the next market's Yes id.
 */
export function canonicalIds(venue: string, keys: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  keys.forEach((k, i) => {
    out.set(k, i % 13 === 0 ? ['', ''] : [canonicalId(`${venue}|${k}|0`), canonicalId(`${venue}|${k}|1`)]);
  });
  keys.forEach((k, i) => {
    const next = keys[i + 1];
    if (i % 5 === 1 && next !== undefined && i % 13 !== 0 && (i + 1) % 13 !== 0) {
      out.get(k)![1] = out.get(next)![0]!;
    }
  });
  return out;
}

/** Writes a fixture: earlier versions, then the newest rows, then canonical ids (some rows twice). */
export async function writeFixture(ch: ClickHouse, f: VenueFixture): Promise<void> {
  if (f.earlier.length > 0) await writeChanged(ch, f.table, f.earlier, BASE_MS, { key: f.key });
  await writeChanged(ch, f.table, f.rows, BASE_MS + 60_000, { key: f.key });
  const canon: Row[] = [];
  let n = 0;
  for (const [market, ids] of f.ids) {
    ids.forEach((id, outcome_index) => {
      if (id === '') return;
      const row = {
        venue: f.venue,
        market,
        outcome_index,
        token_id: '',
        key: `test|${market}|${outcome_index}`,
        id,
        assigned_at: chTime(BASE_MS + n),
      };
      canon.push(row);
      if (n++ % 4 === 0) canon.push({ ...row, assigned_at: chTime(BASE_MS + 10_000_000 + n) });
    });
  }
  await ch.insert('test.canonical', CANONICAL_OUTCOMES.name, canon);
}

// ---- comparators ---------------------------------------------------------------------------------------

export const cmpText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Descending by `f`, ties by key ascending. */
export const descBy =
  (f: (r: Row) => number, tie: (a: Row, b: Row) => number) =>
  (a: Row, b: Row): number =>
    f(b) - f(a) || tie(a, b);

/** By `f` in `dir`, rows without a value last either way, ties by key. */
export const nullsLast =
  (f: (r: Row) => number | null, dir: 1 | -1, tie: (a: Row, b: Row) => number) =>
  (a: Row, b: Row): number => {
    const x = f(a);
    const y = f(b);
    if (x === null || y === null) return (x === null ? 1 : 0) - (y === null ? 1 : 0) || tie(a, b);
    return dir * (x - y) || tie(a, b);
  };

export const first = (r: Row): number | null => ((r.prices as (number | null)[])[0] ?? null) as number | null;
export const closedOrResolved = (r: Row) => r.status === 'closed' || r.status === 'resolved';

/** The filters every venue shares: status, search, canonical_id (the keys/ids of `f`). */
export function commonFilters(f: Pick<VenueFixture, 'rows' | 'ids' | 'keyOf'>): FilterCase[] {
  const shared = [...f.ids.entries()].find(
    ([, ids], i, all) => ids[1] !== '' && all[i + 1]?.[1][0] === ids[1],
  );
  if (!shared) throw new Error('fixture has no shared canonical id');
  const [, sharedIds] = shared;
  const someKey = f.rows[3]!;
  const otherId = f.ids.get(f.keyOf(someKey))![0]!;
  const words = (f.rows[5]!.words as string[]).filter((w) => w.length >= 4 && w !== 'will');
  const search = `${words[0]!.slice(0, 4)} ${words[1]!.slice(0, 3)}`;
  const q = searchWords(search);
  return [
    { name: 'status open', query: { status: 'open' }, pred: (r) => r.status === 'open' },
    { name: 'status closed (closed and resolved)', query: { status: 'closed' }, pred: closedOrResolved },
    {
      name: 'search (word prefixes)',
      query: { search },
      pred: (r) => q.every((w) => (r.words as string[]).some((x) => x.startsWith(w))),
    },
    {
      name: 'search (one word, any case, punctuation ignored)',
      query: { search: `${words[0]!.slice(0, 3).toUpperCase()}!` },
      pred: (r) => (r.words as string[]).some((x) => x.startsWith(words[0]!.slice(0, 3))),
    },
    {
      name: 'canonical_id shared by two markets',
      query: { canonical_id: sharedIds[1]! },
      pred: (_r, ids) => ids.includes(sharedIds[1]!),
    },
    {
      name: 'canonical_id list',
      query: { canonical_id: [sharedIds[1]!, otherId] },
      pred: (_r, ids) => ids.includes(sharedIds[1]!) || ids.includes(otherId),
    },
  ];
}
