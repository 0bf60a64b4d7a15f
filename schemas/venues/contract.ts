/**
 * What a venue's contract (schemas/venues/<code>.ts) declares, the part of a venue that ingest, api and
 * analytics all read, every SQL expression fixed text over the venue's tables:
 * - `tables`: its table descriptions (schemas/tables/<code>.ts, one object);
 * - `market`: its markets table, the market key (`canonical_outcomes.market`, as text) and the served
 *   fields canonical ids are derived from (ingest/canonical/served.ts reads them for every venue);
 * - `list`: its market list `GET /v2/<code>/markets` (the route's text and schemas, the page's columns
 *   (`listColumns`: the named row and the table's `doc` expression, both from one list), filters and
 *   sorts, the row → resource mapping and the venue's own 400 rule; the page is read by
 *   api/queries/venue-markets.ts, the resource is api/resources/venue-markets.ts);
 * - `search`: how `/v2/markets/search` reads it (api/queries/search/markets.ts).
 * A part a venue does not have is left out, and the registries (schemas/venues/index.ts) skip it.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { SortColumn } from '../../core/clickhouse/sort-keys.ts';
import {
  type Named,
  type ReadRow,
  type Selected,
  type Selection,
  select,
  type TableDescription,
} from '../../core/clickhouse/table.ts';

/** A market key: its column (the markets table's ORDER BY) and type. */
export interface MarketKey {
  column: string;
  type: 'String' | 'UInt64';
}

/**
 * The served fields of a market as SQL expressions over `source`: what a reader of the venue's pages
 * could derive, never its internal or simulated truth.
 */
export interface ServedExpressions {
  /** The FROM clause (the markets table with FINAL, or that table joined with what it refers to). */
  source: string;
  /** The market's own question or title (String). */
  title: string;
  /** Outcome labels in index order (Array(String)). */
  outcomes: string;
  /** Token ids by outcome index, '' where the venue has none (Array(String)). */
  tokenIds: string;
  /** When trading ends (Nullable(DateTime64)); null: the market has no key. */
  endTime: string;
  /** The parent event's key, '' when none (String): alternatives are counted within it. */
  eventKey: string;
  /** The parent event's title, '' when none (String). */
  eventTitle: string;
  /** The market's label as one alternative of a mutually exclusive event, else NULL (Nullable(String)). */
  groupLabel: string;
}

export interface MarketContract {
  /** The markets table. */
  table: string;
  key: MarketKey;
  served: ServedExpressions;
}

/**
 * A filter of a venue list, declared: `param` names the query parameter (and its bound value),
 * `kind` the condition:
 * - `in`: `column IN {param:Array(type)}` (lists: each item matches the column);
 * - `has`: `hasAny(column, {param:Array(String)})` (lists against an Array(String) column);
 * - `min` / `max`: `column >= {param:Float64}` / `column <= {param:Float64}` (bounds, inclusive);
 * - `eq`: `column = {param:String}` (an enum the schema checked).
 */
export type VenueFilter =
  | { param: string; kind: 'in'; column: string; type?: 'String' | 'UInt64' }
  | { param: string; kind: 'has'; column: string }
  | { param: string; kind: 'min' | 'max'; column: string }
  | { param: string; kind: 'eq'; column: string };

/** The values of a list query's `sort` parameter (`string` for a list not known yet). */
export type SortOf<Query extends TSchema> = TSchema extends Query
  ? string
  : Static<Query> extends { sort?: infer S }
    ? Extract<S, string>
    : never;

/**
 * A venue list's columns, stated once: the row a page maps (`zip` of the document's array → a named row,
 * each field typed from the table's description) and the `doc` expression of the venue's markets table
 * (migration 040: the columns as one JSON array written at insert), both from the same list. A test
 * (test/venue-markets-doc.test.ts) checks the migration's expression equals `doc`; a change of the list
 * needs a migration of its own.
 */
export interface ListColumns<Row> extends Selection<Row> {
  /** `toJSONString(tuple(...))` of the columns, 64-bit integers as their decimal strings (as a read returns them). */
  readonly doc: string;
}

/** A list column that is not one of the table's: a named expression, `int64` when it is a 64-bit integer. */
type ListExpression = Named<string, unknown> & { readonly int64?: boolean };

/** ClickHouse types a read returns as decimal strings (JSONCompactEachRow quotes 64-bit integers). */
const INT64 = /^(Nullable\()?U?Int64\)?$/;

/** The columns of a venue list over table `t`: its columns by name, or named expressions (`msOf`). */
export function listColumns<T extends TableDescription, const S extends readonly Selected<T>[]>(
  t: T,
  items: S,
): ListColumns<ReadRow<T, S>> {
  const selection = select(t, items);
  const elements = items.map((item, i) => {
    const sql = selection.columns[i]!;
    const int64 =
      typeof item === 'string' ? INT64.test(t.columns[item]!.ch) : (item as ListExpression).int64 === true;
    return int64 ? `toString(${sql})` : sql;
  });
  return { ...selection, doc: `toJSONString(tuple(\n  ${elements.join(',\n  ')}\n))` };
}

/**
 * A venue's market list, `GET /v2/<code>/markets` over the `market` table (its key the ties of every
 * sort and `canonical_outcomes.market`).
 */
export interface MarketList<
  Query extends TSchema = TSchema,
  Response extends TSchema = TSchema,
  Row = Record<string, unknown>,
> {
  /** The route's description up to the rules every venue list shares (api/resources/venue-markets.ts). */
  about: string;
  query: Query;
  response: Response;
  /** The row's columns (`listColumns`): the elements of the table's `doc` column, named. */
  columns: ListColumns<Row>;
  filters: readonly VenueFilter[];
  /** The sort keys of each value of the query's `sort` (the key column last, so the order is total). */
  sorts: Record<SortOf<Query>, SortColumn[]>;
  defaultSort: SortOf<Query>;
  /** The query string of the list's example request (the demo's, `pmdata demo`). */
  example?: string;
  /** A row (named by `columns`) and its outcomes' canonical ids → one resource of the page. */
  resource(row: Row, canonicalIds: readonly string[]): ItemOf<Response>;
  /** The venue's own 400 rule on a query (checked after `offset`, before `search` and the cursor): why, or null. */
  check?(q: Static<Query>): string | null;
}

/** The resource type of a list response `{markets: Item[], …}`. */
type ItemOf<Response extends TSchema> =
  Static<Response> extends { markets: readonly (infer I)[] } ? I : unknown;

/** A list's declaration, its query and response schemas kept as their own types (for the handler's). */
export const marketList = <Query extends TSchema, Response extends TSchema, Row>(
  list: MarketList<Query, Response, Row>,
): MarketList<Query, Response, Row> => list;

/**
 * How the cross-venue search reads a venue: the SQL expression of each field of a found row
 * (interface-shapes §20). The table read must have `title`, `words` and `status`.
 */
export interface VenueSearch {
  /** The FROM clause. */
  from: string;
  /** The market's key: the tie-break of the order, and `canonical_outcomes.market` (as a String). */
  key: string;
  price: string;
  volume: string;
  /** Nullable DateTime64 column of the end of trading, or null when the venue has none. */
  endTime: string | null;
  marketSlug: string | null;
  /** The served `market_id` and what it is (the field's description names it). */
  marketId: { expr: string; is: string } | null;
  conditionId: string | null;
  /** The first outcome's canonical id read with the row, or null: read from canonical_outcomes. */
  canonicalId: string | null;
  /**
   * The candidate step (venue_market_words, migration 039): the venue table's primary-key column and the
   * expression turning the words table's `market` text into it; null where the venue has no words rows
   * (it is read whole).
   */
  candidates: { column: string; fromMarket: string } | null;
}

export interface VenueContract<Code extends string = string> {
  code: Code;
  /** The venue's name in text, capitalized (its list's summary: `Beta markets`). */
  name: string;
  tables: Readonly<Record<string, TableDescription>>;
  market?: MarketContract;
  list?: MarketList;
  search?: VenueSearch;
}

/** A contract as declared, its code and parts kept as their own types (for the derived registries). */
export const venueContract = <const C extends VenueContract>(contract: C): C => contract;

// ---- what the REST venues' `<venue>_markets` tables share (docs/venues.md "Tables") -------------------

/** The served fields of a `<venue>_markets` table: its common columns, read with FINAL. */
export const restMarket = (table: TableDescription, key: MarketKey): MarketContract => ({
  table: table.name,
  key,
  served: {
    source: `${table.name} FINAL`,
    title: 'title',
    outcomes: 'outcomes',
    tokenIds: 'token_ids',
    endTime: 'end_time',
    eventKey: 'event_key',
    eventTitle: 'event_title',
    groupLabel: 'group_label',
  },
});

/**
 * The search of a `<venue>_markets` table: FINAL (one row per market), its common columns, the first
 * outcome's canonical id from `canonical_outcomes`, candidates from `venue_market_words` by the key.
 */
export const restSearch = (
  market: MarketContract,
  ids: { marketSlug: string | null; marketId: { expr: string; is: string } | null },
): VenueSearch => {
  const text = market.key.type === 'String';
  return {
    from: `${market.table} FINAL`,
    key: text ? market.key.column : `toString(${market.key.column})`,
    price: 'prices[1]',
    volume: 'volume_usd',
    endTime: 'end_time',
    conditionId: null,
    canonicalId: null,
    candidates: { column: market.key.column, fromMarket: text ? 'market' : `toUInt64(market)` },
    ...ids,
  };
};

/**
 * A list column: a time column read as its Unix ms, field `<column>_ms` (Int64: a decimal string; null
 * stays null).
 */
export const msOf = <const C extends string>(
  column: C,
): Named<`${C}_ms`, string | null> & { int64: true } => ({
  name: `${column}_ms`,
  sql: `toUnixTimestamp64Milli(${column})`,
  int64: true,
});
