/**
 * `GET /v2/markets/search` (interface-shapes §20): the markets of the requested venues whose title holds
 * every query word as a word prefix (the words match of the catalog search, catalog-search.ts), each
 * venue's own results by relevance, then volume, then key, at most `limit` per venue; the answer takes
 * them round-robin (one of each venue in turn, venues in alphabetical order) up to `limit` in all. How a
 * venue is read (its table and the SQL of each field of a found row) is its contract's `search`
 * (schemas/venues/<code>.ts); the venues searched are the contracts that have one.
 *
 * One read per venue, all run at once; a venue whose read has no canonical id (every venue but alpha,
 * whose list holds them) gets its first outcome's from `canonical_outcomes` by primary key (venue,
 * market) in a second read. A venue whose reads fail is
 * logged, left out of `markets` and named in `venues_failed`: the others answer. When every venue
 * searched failed there is no answer to give: the failure itself is thrown (the error handler's 500, or
 * 503 when every failure is temporary), never an empty list.
 *
 * Not paged: no cursor, at most `limit` rows per venue, so it builds no keyset page (api/read/keyset.ts).
 * Its candidate step (`candidatesSql`) is also the venue lists' `search` condition
 * (api/queries/venue-markets.ts). Rows are read named (`fields` of the contract's expressions).
 */
import type { FastifyBaseLogger } from 'fastify';
import {
  expression,
  fields,
  type RowOfSelection,
  type Selection,
  select,
} from '../../../core/clickhouse/table.ts';
import { isRetryable } from '../../../core/errors.ts';
import type {
  MarketsSearchQuery,
  MarketsSearchResponse,
  SearchMarket,
} from '../../../schemas/api/markets-search.ts';
import { CANONICAL_OUTCOMES } from '../../../schemas/tables/venues.ts';
import type { VenueSearch } from '../../../schemas/venues/contract.ts';
import { SEARCH_CONTRACTS, type SearchVenue, searchContract } from '../../../schemas/venues/index.ts';
import type { RouteContext } from '../../context.ts';
import { ValidationFailure } from '../../errors.ts';
import type { Condition } from '../../read/where.ts';
import { parseSearch, relevanceExpr, searchParams } from '../alpha/catalog-search.ts';

/** The venues searched, in alphabetical order (their contracts' `search`: schemas/venues/). */
const SEARCH_VENUES: readonly SearchVenue[] = SEARCH_CONTRACTS.map((c) => c.code);

/** `venue`: a comma list of venue codes (any case, order and duplicates irrelevant); else a 422. */
export function parseVenues(raw: string | undefined): SearchVenue[] {
  if (raw === undefined) return [...SEARCH_VENUES];
  const items = [
    ...new Set(
      raw
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter((s) => s !== ''),
    ),
  ];
  const bad = items.filter((v) => !(SEARCH_VENUES as readonly string[]).includes(v));
  if (items.length === 0 || bad.length > 0) {
    throw new ValidationFailure([
      {
        loc: ['query', 'venue'],
        msg: `Input should be a comma-separated list of ${SEARCH_VENUES.map((v) => `'${v}'`).join(', ')}`,
        type: 'enum',
      },
    ]);
  }
  return SEARCH_VENUES.filter((v) => items.includes(v));
}

const STATUSES = { open: ['open'], closed: ['closed', 'resolved'] } as const;

const orNull = (expr: string | null) => expr ?? 'NULL';

/**
 * What a venue's read returns of a found market, named: the SQL of each field is the venue contract's
 * (`search`: schemas/venues/), a field the venue has not read as NULL.
 */
function foundSelection(v: VenueSearch) {
  return fields({
    market_key: expression<string>(`${v.key} AS market_key`),
    title: expression<string>('title'),
    status: expression<string>('status'),
    price: expression<number | null>(v.price),
    volume: expression<number | null>(v.volume),
    market_slug: expression<string | null>(orNull(v.marketSlug)),
    market_id: expression<string | null>(orNull(v.marketId?.expr ?? null)),
    condition_id: expression<string | null>(orNull(v.conditionId)),
    canonical_id: expression<string | null>(orNull(v.canonicalId)),
    end_ms: expression<string | null>(v.endTime === null ? 'NULL' : `toUnixTimestamp64Milli(${v.endTime})`),
  });
}
type FoundRow = RowOfSelection<ReturnType<typeof foundSelection>>;

/** Each searched venue's selection, made once. */
const FOUND_SELECTIONS = new Map(SEARCH_CONTRACTS.map((c) => [c.code, foundSelection(c.search)]));

/** The canonical id of a market's first outcome, as read from canonical_outcomes. */
const CANONICAL_SELECTION = select(CANONICAL_OUTCOMES, ['market', 'id']);

/**
 * Every query word begins a word of `words`: the catalog search's condition (searchWhere) written as one
 * `arrayExists` per query word, each word bound on its own. Same rows; the engine evaluates it with
 * less CPU than the lambda over the bound array of words (measured on 100,000 rows: 22–26 ms against
 * 31–35 ms of engine CPU per count).
 */
export function wordsMatch(words: readonly string[]): Condition {
  const params: Record<string, unknown> = {};
  const terms = words.map((w, i) => {
    params[`search_word_${i}`] = w;
    return `arrayExists(w -> startsWith(w, {search_word_${i}:String}), words)`;
  });
  return { sql: terms.join(' AND '), params };
}

/**
 * The candidate markets of a venue with a words index (venue_market_words): those having, for every query
 * word, a word with that prefix — one range read of the primary key (venue, word, market) per query word,
 * instead of every row's `words`. Uses the `search_word_<i>` parameters of wordsMatch. A candidate may hold
 * a word of an older version of its row only: the venue read keeps wordsMatch on the current `words`.
 */
export function candidatesSql(v: VenueSearch, wordCount: number): string | null {
  if (v.candidates === null) return null;
  const starts = Array.from({ length: wordCount }, (_, i) => `startsWith(word, {search_word_${i}:String})`);
  const having = wordCount > 1 ? ` HAVING ${starts.map((s) => `countIf(${s}) > 0`).join(' AND ')}` : '';
  return `${v.candidates.column} IN (SELECT ${v.candidates.fromMarket} FROM venue_market_words
      WHERE venue = {search_venue:String} AND (${starts.join(' OR ')})
      GROUP BY market${having})`;
}

/** The first `limit` matches of one venue in its order. */
function venueSql(
  v: VenueSearch,
  found: Selection<FoundRow>,
  match: string,
  candidates: string | null,
): string {
  return `SELECT ${found.sql} FROM ${v.from}
    WHERE ${candidates === null ? '' : `${candidates} AND `}(${match}) AND status IN {statuses:Array(String)}
    ORDER BY ${relevanceExpr('words')} DESC, ${v.volume} DESC, market_key ASC
    LIMIT {limit:UInt32}`;
}

/**
 * The canonical id of the first outcome of each market read, by (venue, market). Without FINAL: an id
 * never changes once assigned (ingest/canonical/), so unmerged versions of a row carry the same id.
 */
async function canonicalIds(
  ctx: RouteContext,
  venue: SearchVenue,
  keys: string[],
): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map();
  const rows = await ctx.deps.clickhouse.read(
    `api.markets.search.${venue}.canonical`,
    `SELECT ${CANONICAL_SELECTION.sql} FROM ${CANONICAL_OUTCOMES.name}
     WHERE venue = {venue:String} AND market IN {markets:Array(String)} AND outcome_index = 0`,
    { venue, markets: keys },
  );
  return new Map(rows.map(CANONICAL_SELECTION.zip).map((r) => [r.market, r.id]));
}

/** A found market → its resource (`canonical`: its first outcome's id, when the venue's read has none). */
function toSearchMarket(venue: SearchVenue, r: FoundRow, canonical: string | undefined): SearchMarket {
  const row: SearchMarket = { venue, title: r.title, status: r.status === 'open' ? 'open' : 'closed' };
  if (r.price !== null) row.price = Number(r.price);
  if (r.volume !== null) row.volume = Number(r.volume);
  if (r.market_slug) row.market_slug = r.market_slug;
  if (r.market_id) row.market_id = r.market_id;
  if (r.condition_id) row.condition_id = r.condition_id;
  const canonicalId = r.canonical_id || canonical;
  if (canonicalId) row.canonical_id = canonicalId;
  if (r.end_ms !== null) row.end_time = new Date(Number(r.end_ms)).toISOString();
  return row;
}

async function searchVenue(
  ctx: RouteContext,
  venue: SearchVenue,
  words: string[],
  status: 'open' | 'closed',
  limit: number,
): Promise<SearchMarket[]> {
  const v = searchContract(venue).search;
  const found = FOUND_SELECTIONS.get(venue)!;
  const match = wordsMatch(words);
  const raw = await ctx.deps.clickhouse.read(
    `api.markets.search.${venue}`,
    venueSql(v, found, match.sql, candidatesSql(v, words.length)),
    {
      ...match.params,
      search_venue: venue,
      ...searchParams(words),
      statuses: STATUSES[status],
      limit,
    },
  );
  const rows = raw.map(found.zip);
  const canonical =
    v.canonicalId === null
      ? await canonicalIds(
          ctx,
          venue,
          rows.map((r) => r.market_key),
        )
      : new Map<string, string>();
  return rows.map((r) => toSearchMarket(venue, r, canonical.get(r.market_key)));
}

/** Round-robin: the first of each list in turn, then the second of each, ..., up to `limit`. */
export function interleave<T>(lists: readonly T[][], limit: number): T[] {
  const out: T[] = [];
  for (let i = 0; out.length < limit; i++) {
    let any = false;
    for (const list of lists) {
      if (i >= list.length) continue;
      any = true;
      out.push(list[i]!);
      if (out.length === limit) break;
    }
    if (!any) break;
  }
  return out;
}

export async function marketsSearch(
  ctx: RouteContext,
  q: MarketsSearchQuery,
  log: FastifyBaseLogger,
): Promise<MarketsSearchResponse> {
  const words = parseSearch(q.q, 'q')!;
  const venues = parseVenues(q.venue);
  const status = q.status ?? 'open';
  const limit = q.limit ?? 20;
  const settled = await Promise.allSettled(
    venues.map((venue) => searchVenue(ctx, venue, words, status, limit)),
  );
  const results: SearchMarket[][] = [];
  const failed: SearchVenue[] = [];
  const errors: unknown[] = [];
  settled.forEach((r, i) => {
    if (r.status === 'fulfilled') {
      results.push(r.value);
      return;
    }
    const venue = venues[i]!;
    failed.push(venue);
    errors.push(r.reason);
    log.error({ err: r.reason, venue }, 'Failed to search a venue; answered without it');
  });
  // Nothing could be read: the fault, not an empty list (a temporary one only when all of them are).
  if (results.length === 0) throw errors.find((e) => !isRetryable(e)) ?? errors[0];
  const markets = interleave(results, limit);
  return { query: q.q, count: markets.length, venues_searched: venues, venues_failed: failed, markets };
}
