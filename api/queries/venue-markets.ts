/**
 * The venue market lists (`GET /v2/<code>/markets`, interface-shapes §18): each venue's contract declares
 * its table, key, columns, filters and sorts (schemas/venues/<code>.ts `market` and `list`); this module
 * parses the shared parameters, builds the conditions (values bound, never spliced), and reads one page in
 * ONE statement: the page of `<venue>_markets FINAL` (filters, the cursor's key, the sort, `limit + 1`
 * rows: their keys first, reading the filter and sort columns only, then the `doc` column of those keys,
 * the row's `columns` as one JSON array written at insert, migration 040) joined with the canonical ids
 * of those rows' outcomes (`canonical_outcomes`, by venue and market). The page is the join's build side, so the engine filters its scan of `canonical_outcomes` by
 * the page's keys (a join runtime filter, also used against its primary key: on 100,000 markets 251,000
 * rows read instead of 317,000) instead of reading the venue's ids whole; each page row
 * arrives once per outcome id (none: once, id ''), ordered by the sort then outcome index, and is folded
 * back into one row here.
 *
 * The page is the keyset engine's (api/read/keyset.ts `keysetPage`, this statement and fold its own):
 * cursors carry the last row's sort key, bound to the digest of the normalized filters and sort. A row's
 * document is zipped into the list's named row (the contract's `listColumns`, from which the `doc`
 * expression is generated too). `contractListQuery` is a venue's whole list: the page, its contract's
 * own 400 rule (`list.check`) and row mapping (`list.resource`).
 */
import type { TSchema } from '@sinclair/typebox';
import type { SortColumn } from '../../core/clickhouse/sort-keys.ts';
import {
  columnOf,
  type Expression,
  expression,
  fields,
  type Selection,
} from '../../core/clickhouse/table.ts';
import { CANONICAL_OUTCOMES } from '../../schemas/tables/venues.ts';
import type { MarketContract, MarketList, VenueFilter, VenueSearch } from '../../schemas/venues/contract.ts';
import type { RouteContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { filtersDigest, type PageInfo, rejectOffset } from '../pagination.ts';
import { keysetPage } from '../read/keyset.ts';
import { type Condition, createWhere, type Where } from '../read/where.ts';
import { parseSearch } from './alpha/catalog-search.ts';
import { candidatesSql } from './search/markets.ts';

/** The table a venue's canonical ids are read from. */
export const CANONICAL_TABLE = CANONICAL_OUTCOMES.name;

/**
 * A venue with a market list, its list's row type kept (schemas/venues/index.ts `ListContract` is every
 * such contract).
 */
export interface ListVenue<Row = unknown> {
  code: string;
  market: MarketContract;
  search: VenueSearch;
  list: MarketList<TSchema, TSchema, Row>;
}

/** A page row: the list's named row and the canonical id of each outcome index ('' unknown). */
export interface VenueRow<Row> {
  row: Row;
  canonicalIds: string[];
}

const distinct = <T extends string | number>(items: readonly T[]): T[] =>
  [...new Set(items)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

type Query = Readonly<Record<string, unknown>>;

/** The normalized filters of a request (lists deduplicated and sorted, search as its words). */
export function normalizeFilters(
  venue: ListVenue,
  q: Query,
): Record<string, string | number | (string | number)[] | undefined> {
  const out: Record<string, string | number | (string | number)[] | undefined> = {
    status: q.status as string | undefined,
    search: parseSearch(q.search as string | undefined, 'search'),
    canonical_id: q.canonical_id === undefined ? undefined : distinct(q.canonical_id as string[]),
  };
  for (const f of venue.list.filters) {
    const v = q[f.param];
    if (v === undefined) continue;
    out[f.param] = Array.isArray(v) ? distinct(v as (string | number)[]) : (v as string | number);
  }
  return out;
}

/** The conditions of normalized filters on the venue's markets table. */
export function venueWhere(venue: ListVenue, f: ReturnType<typeof normalizeFilters>): Where {
  const where = createWhere();
  if (f.status === 'closed') where.add({ sql: "status IN ('closed', 'resolved')", params: {} });
  else if (f.status === 'open') where.add({ sql: "status = 'open'", params: {} });
  for (const d of venue.list.filters) {
    const v = f[d.param];
    if (v !== undefined) where.add(condition(d, v));
  }
  if (f.search) {
    const words = f.search as string[];
    // Candidates first: the markets with a word starting with each query word (venue_market_words, one
    // primary-key range per word), then the rule re-checked on their current row.
    where.add({
      sql: candidatesSql(venue.search, words.length)!,
      params: { search_venue: venue.code },
    });
    where.add(searchCondition(words));
  }
  if (f.canonical_id) where.add(canonicalWhere(venue, f.canonical_id as string[]));
  return where;
}

/**
 * The alpha search's rule (api/queries/alpha/catalog-search.ts: every query word begins a word of the
 * title) written as one `arrayExists` per word joined by AND: the engine evaluates each word only on the
 * rows the words before it kept (short-circuit), measured about twice as fast on 100,000 titles as one
 * `arrayAll` over the words.
 */
export function searchCondition(words: readonly string[]): Condition {
  const params: Record<string, unknown> = {};
  const parts = words.map((word, i) => {
    params[`search_word_${i}`] = word;
    return `arrayExists(x -> startsWith(x, {search_word_${i}:String}), words)`;
  });
  return { sql: parts.join(' AND '), params };
}

function condition(d: VenueFilter, v: unknown): Condition {
  const params = { [d.param]: v };
  switch (d.kind) {
    case 'in':
      return { sql: `${d.column} IN {${d.param}:Array(${d.type ?? 'String'})}`, params };
    case 'has':
      return { sql: `hasAny(${d.column}, {${d.param}:Array(String)})`, params };
    case 'min':
      return { sql: `${d.column} >= {${d.param}:Float64}`, params };
    case 'max':
      return { sql: `${d.column} <= {${d.param}:Float64}`, params };
    case 'eq':
      return { sql: `${d.column} = {${d.param}:String}`, params };
  }
}

/**
 * Markets any of whose outcomes has one of `ids`: their keys from `canonical_outcomes` (the venue's
 * rows; the id's bloom filter), compared with the table's key column (its primary key). An id never
 * changes once assigned, so unmerged duplicates of a row carry the same id: no FINAL needed.
 */
function canonicalWhere(venue: ListVenue, ids: string[]): Condition {
  const { key } = venue.market;
  const market = key.type === 'UInt64' ? 'toUInt64OrZero(market)' : 'market';
  return {
    sql: `${key.column} IN (SELECT ${market} FROM ${CANONICAL_TABLE}
      WHERE venue = {canonical_venue:String} AND id IN {canonical_id:Array(String)})`,
    params: { canonical_venue: venue.code, canonical_id: ids },
  };
}

/** One row of the page statement: the document, the sort key values (`k0`, `k1`, …), the market key, an outcome. */
interface PageRow {
  /** The list's columns as one JSON array (migration 040). */
  doc: string;
  [sortKey: `k${number}`]: string | number;
  market_key: string;
  /** An outcome of the market and its canonical id; no outcome: the join's defaults. */
  outcome_index: number;
  id: string | null;
}

const PAGE_SELECTIONS = new WeakMap<readonly SortColumn[], Selection<PageRow>>();

/**
 * What the page statement reads, in its SELECT order: `p.doc, p.k0, …, p.market_key, o.outcome_index,
 * o.id` (see the header). One per sort (its keys), made on first use.
 */
function pageSelection(keys: readonly SortColumn[]): Selection<PageRow> {
  let made = PAGE_SELECTIONS.get(keys);
  if (made === undefined) {
    made = makePageSelection(keys);
    PAGE_SELECTIONS.set(keys, made);
  }
  return made;
}

function makePageSelection(keys: readonly SortColumn[]): Selection<PageRow> {
  const sortKeys: Record<`k${number}`, Expression<string | number>> = {};
  keys.forEach((_, i) => {
    sortKeys[`k${i}`] = expression(`p.k${i}`);
  });
  return fields({
    doc: expression<string>('p.doc'),
    ...sortKeys,
    market_key: expression<string>('p.market_key'),
    outcome_index: columnOf(CANONICAL_OUTCOMES, 'outcome_index', 'o.outcome_index'),
    id: expression<string | null>('o.id'),
  });
}

/**
 * The SQL of one page with its outcomes' canonical ids (see the header); `order` is the keys' ORDER BY
 * list (the keyset engine's).
 */
export function pageSql(
  venue: ListVenue,
  keys: readonly SortColumn[],
  select: Selection<PageRow>,
  where: Where,
  order: string,
): string {
  const { table, key } = venue.market;
  const sortCols = keys.map((k, i) => `${k.expr} AS k${i}`);
  const keyText = key.type === 'String' ? key.column : `toString(${key.column})`;
  // The page's keys first (the filters, sort and key columns only), then their documents.
  const inner = `SELECT doc, ${[...sortCols, `${keyText} AS market_key`].join(', ')}
      FROM ${table} FINAL
      WHERE ${key.column} IN (
        SELECT ${key.column} FROM ${table} FINAL ${where.sql()} ORDER BY ${order} LIMIT {page_rows:UInt32}
      )
      ORDER BY ${order}
      LIMIT {page_rows:UInt32}`;
  return `SELECT ${select.sql}
    FROM (SELECT market, outcome_index, id FROM ${CANONICAL_TABLE} WHERE venue = {canonical_venue:String}) AS o
    RIGHT JOIN (${inner}) AS p ON o.market = p.market_key
    ORDER BY ${keys.map((k, i) => `p.k${i} ${k.dir === 'desc' ? 'DESC' : 'ASC'}`).join(', ')}, o.outcome_index
    SETTINGS enable_join_runtime_filters = 1, enable_join_runtime_filters_index_analysis = 1`;
}

/**
 * The page statement's rows, one per (market, outcome) in page order, folded into one row per market:
 * its document zipped into the list's named row (`columns`), its canonical ids by outcome index ('' where
 * none), and its sort key values as read.
 */
function foldOutcomes<Row>(
  rows: readonly PageRow[],
  keys: readonly SortColumn[],
  columns: Selection<Row>,
): { row: VenueRow<Row>; key: (string | number)[] }[] {
  const folded: { row: VenueRow<Row>; key: (string | number)[] }[] = [];
  let market: { row: VenueRow<Row>; key: (string | number)[] } | undefined;
  let marketKey: string | undefined;
  for (const r of rows) {
    if (market === undefined || r.market_key !== marketKey) {
      market = {
        row: { row: columns.zip(JSON.parse(r.doc)), canonicalIds: [] },
        key: keys.map((_, i) => r[`k${i}`] as string | number),
      };
      folded.push(market);
      marketKey = r.market_key;
    }
    const id = r.id ?? '';
    const ids = market.row.canonicalIds;
    if (id !== '' && !ids[r.outcome_index]) ids[r.outcome_index] = id;
  }
  for (const m of folded) m.row.canonicalIds = Array.from(m.row.canonicalIds, (x) => x ?? '');
  return folded;
}

/**
 * One page of a venue list: `offset` ≠ 0 → 400; the venue's own rules (`check`); `search` without a
 * letter or digit → 400; the digest; the cursor (400 when forged or for other filters or sort) and the
 * one read (the keyset engine, api/read/keyset.ts); the rows folded by market.
 */
export function venueMarketsPage<Row>(
  ctx: RouteContext,
  venue: ListVenue<Row>,
  q: Query,
  /** The venue's own 400 rules, checked after `offset` and before `search` and the cursor. */
  check?: () => void,
): Promise<{ rows: VenueRow<Row>[]; pagination: PageInfo }> {
  rejectOffset(q.offset as number | undefined);
  check?.();
  const filters = normalizeFilters(venue, q);
  const sorts: Readonly<Record<string, SortColumn[]>> = venue.list.sorts;
  const sort = (q.sort as string | undefined) ?? venue.list.defaultSort;
  const keys = sorts[sort];
  if (keys === undefined) throw new ApiError(400, `Unknown sort: ${String(sort)}`);
  const select = pageSelection(keys);
  return keysetPage(ctx, {
    label: `api.${venue.code}.markets`,
    keys,
    where: venueWhere(venue, filters),
    digest: filtersDigest(`${venue.code}.markets`, { ...filters, sort }),
    token: q.pagination_key as string | undefined,
    limit: (q.limit as number | undefined) ?? 20,
    params: { canonical_venue: venue.code },
    sql: (where, order) => pageSql(venue, keys, select, where, order),
    rows: (raw) => foldOutcomes(raw.map(select.zip), keys, venue.list.columns),
  });
}

/**
 * The list query of a venue's contract: its page (`venueMarketsPage`, the contract's own 400 rule first),
 * each row mapped by the contract's `resource`.
 */
export function contractListQuery<Row>(
  venue: ListVenue<Row>,
): (ctx: RouteContext, q: Query) => Promise<{ markets: unknown[]; pagination: PageInfo }> {
  const { list } = venue;
  return async (ctx, q) => {
    const { rows, pagination } = await venueMarketsPage(ctx, venue, q, () => {
      const why = list.check?.(q) ?? null;
      if (why !== null) throw new ApiError(400, why);
    });
    return { markets: rows.map((r) => list.resource(r.row, r.canonicalIds)), pagination };
  };
}
