/**
 * `GET /v2/alpha/markets` and `/v2/alpha/markets/keyset`: alpha's markets from `alpha_market_list`
 * (migration 030, one row per market, rebuilt whole by the catalog build), keyset pages over the
 * requested sort (api/read/keyset.ts `tablePage`). The filters are plain conditions on the row's columns
 * (no seam, no join); the page is one ClickHouse read in one pass: it sorts on the filter and sort columns
 * and the engine reads the wide `doc` (the Market JSON as stored) of the page's rows only (measured faster
 * than choosing the ids first and reading their docs by key: docs/decisions.md).
 */

import {
  descKey,
  nullableTimeKeys,
  nullsLastKeys,
  type SortColumn,
} from '../../../core/clickhouse/sort-keys.ts';
import { type RowOfSelection, select } from '../../../core/clickhouse/table.ts';
import type { AlphaMarket } from '../../../schemas/api/alpha-catalog.ts';
import type { MarketSort, MarketsQuery } from '../../../schemas/api/alpha-markets.ts';
import { ALPHA_MARKET_LIST } from '../../../schemas/tables/alpha-catalog-lists.ts';
import type { RouteContext } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { filtersDigest, type PageInfo, rejectOffset } from '../../pagination.ts';
import { tablePage } from '../../read/keyset.ts';
import { createWhere, type Where } from '../../read/where.ts';
import { parseHash } from '../filters.ts';
import { parseSearch, relevanceExpr, searchParams, searchWhere } from './catalog-search.ts';

/** A market row of a page: its stored doc. */
const MARKET_DOC = select(ALPHA_MARKET_LIST, ['doc']);
type MarketDocRow = RowOfSelection<typeof MARKET_DOC>;

/** A market row → the AlphaMarket it stores. */
export const toMarket = (row: MarketDocRow): AlphaMarket => JSON.parse(row.doc) as AlphaMarket;

const ID = 'market_id';
const DIGEST_NAME = 'alpha.markets';

const desc = (expr: string, type: SortColumn['type'] = 'Float64') => descKey(expr, type);
const byId: SortColumn = { expr: ID, type: 'String', dir: 'asc' };
const nullsLast = nullsLastKeys;

/** The sort keys of each `sort` (the last one always the id, so the order is total). */
const SORT_KEYS: Record<Exclude<MarketSort, 'relevance'>, SortColumn[]> = {
  volume: [desc('volume'), byId],
  open_interest: [desc('open_interest'), byId],
  price_desc: [...nullsLast('price', 'ifNull(price, 0)', 'Float64', 'desc'), byId],
  price_asc: [...nullsLast('price', 'ifNull(price, 0)', 'Float64', 'asc'), byId],
  expiration: [...nullableTimeKeys('end_date', 'desc'), byId],
  expiration_asc: [...nullableTimeKeys('end_date', 'asc'), byId],
  created: [...nullableTimeKeys('created_at', 'desc'), byId],
  created_asc: [...nullableTimeKeys('created_at', 'asc'), byId],
  volume_1d: [desc('volume_1d'), byId],
  volume_7d: [desc('volume_7d'), byId],
  volume_30d: [desc('volume_30d'), byId],
  trades_1d: [desc('trades_1d', 'UInt64'), byId],
  trades_7d: [desc('trades_7d', 'UInt64'), byId],
  trades_30d: [desc('trades_30d', 'UInt64'), byId],
  oi_change_1d: [desc('oi_change_1d'), byId],
  oi_change_7d: [desc('oi_change_7d'), byId],
  oi_change_30d: [desc('oi_change_30d'), byId],
};

/**
 * The sort keys of `sort`. `relevance` ranks by the search rank of `search` (catalog-search.ts; its
 * parameters must be bound: searchWhere or searchParams), then as `volume`; without search, as `volume`.
 */
export function marketSortKeys(sort: MarketSort, search?: readonly string[]): SortColumn[] {
  if (sort !== 'relevance') return SORT_KEYS[sort];
  if (search === undefined) return SORT_KEYS.volume;
  return [desc(relevanceExpr('words'), 'UInt64'), ...SORT_KEYS.volume];
}

/** One keyset page of market docs (the cursor bound to `digest`). */
export async function marketsPage(
  ctx: RouteContext,
  o: {
    where: Where;
    sort: MarketSort;
    limit: number;
    search?: readonly string[];
    digest: string;
    token: string | undefined;
    label?: string;
  },
): Promise<{ markets: AlphaMarket[]; pagination: PageInfo }> {
  const { rows, pagination } = await tablePage(ctx, {
    label: o.label ?? `api.${DIGEST_NAME}`,
    table: ALPHA_MARKET_LIST.name,
    select: MARKET_DOC,
    keys: marketSortKeys(o.sort, o.search),
    where: o.where,
    digest: o.digest,
    token: o.token,
    limit: o.limit,
    params: o.search ? searchParams(o.search) : undefined,
  });
  return { markets: rows.map(toMarket), pagination };
}

/** The request's filters, normalized (lists sorted and deduplicated, condition ids lowercased). */
export interface MarketFilters {
  status?: string;
  min_price?: number;
  max_price?: number;
  min_open_interest?: number;
  min_volume?: number;
  min_volume_1d?: number;
  min_volume_7d?: number;
  min_volume_30d?: number;
  min_trades_1d?: number;
  min_trades_7d?: number;
  min_trades_30d?: number;
  tags?: string[];
  event_slug?: string[];
  search?: string[];
  condition_id?: string[];
  question_id?: string[];
  market_id?: string[];
  market_slug?: string[];
  token_id?: string[];
  canonical_id?: string[];
  end_after?: number;
  end_before?: number;
}

const FLOORS = [
  ['min_open_interest', 'open_interest', 'Float64'],
  ['min_volume', 'volume', 'Float64'],
  ['min_volume_1d', 'volume_1d', 'Float64'],
  ['min_volume_7d', 'volume_7d', 'Float64'],
  ['min_volume_30d', 'volume_30d', 'Float64'],
  ['min_trades_1d', 'trades_1d', 'UInt64'],
  ['min_trades_7d', 'trades_7d', 'UInt64'],
  ['min_trades_30d', 'trades_30d', 'UInt64'],
] as const;

/** List parameters: the column and whether it is an array (any element matches). */
const LISTS = [
  ['tags', 'tags', true],
  ['event_slug', 'event_slug', false],
  ['condition_id', 'condition_id', false],
  ['question_id', 'question_id', false],
  ['market_id', 'market_id', false],
  ['market_slug', 'slug', false],
  ['token_id', 'token_ids', true],
  ['canonical_id', 'canonical_ids', true],
] as const;

const distinct = (items: readonly string[] | undefined) =>
  items === undefined ? undefined : [...new Set(items)].sort();

/** The query's filters, checked: the 400s of SPEC (malformed condition_id, min_price > max_price, search). */
export function parseMarketFilters(q: MarketsQuery): MarketFilters {
  const f: MarketFilters = {
    status: q.status,
    min_price: q.min_price,
    max_price: q.max_price,
    end_after: q.end_after,
    end_before: q.end_before,
  };
  for (const [param] of FLOORS) f[param] = q[param];
  for (const [param] of LISTS) f[param] = distinct(q[param]);
  if (f.condition_id) {
    f.condition_id = distinct(f.condition_id.map((c) => parseHash(c, 'condition_id') as string));
  }
  if (f.min_price !== undefined && f.max_price !== undefined && f.min_price > f.max_price) {
    throw new ApiError(400, `min_price (${f.min_price}) is above max_price (${f.max_price})`);
  }
  f.search = parseSearch(q.search, 'search');
  return f;
}

const fromSeconds = (param: string) => `fromUnixTimestamp64Milli({${param}:Int64}, 'UTC')`;

/** The conditions of the filters on alpha_market_list (values bound, never spliced). */
export function marketWhere(f: MarketFilters): Where {
  const where = createWhere();
  if (f.status === 'closed') where.add({ sql: "status IN ('closed', 'resolved')", params: {} });
  else if (f.status !== undefined)
    where.add({ sql: 'status = {status:String}', params: { status: f.status } });
  if (f.min_price !== undefined) {
    where.add({ sql: 'price >= {min_price:Float64}', params: { min_price: f.min_price } });
  }
  if (f.max_price !== undefined) {
    where.add({ sql: 'price <= {max_price:Float64}', params: { max_price: f.max_price } });
  }
  for (const [param, column, type] of FLOORS) {
    const v = f[param];
    if (v !== undefined) where.add({ sql: `${column} >= {${param}:${type}}`, params: { [param]: v } });
  }
  for (const [param, column, isArray] of LISTS) {
    const v = f[param];
    if (v === undefined) continue;
    const sql = isArray
      ? `hasAny(${column}, {${param}:Array(String)})`
      : `${column} IN {${param}:Array(String)}`;
    where.add({ sql, params: { [param]: v } });
  }
  if (f.search) where.add(searchWhere(f.search, 'words'));
  if (f.end_after !== undefined) {
    where.add({
      sql: `end_date > ${fromSeconds('end_after_ms')}`,
      params: { end_after_ms: f.end_after * 1000 },
    });
  }
  if (f.end_before !== undefined) {
    where.add({
      sql: `end_date <= ${fromSeconds('end_before_ms')}`,
      params: { end_before_ms: f.end_before * 1000 },
    });
  }
  return where;
}

/**
 * One page of a markets request (both endpoints): offset ≠ 0 → 400, the filters' 400s, the digest of the
 * normalized filters and sort (a cursor from either endpoint serves the other), the page.
 */
export async function listMarkets(
  ctx: RouteContext,
  q: MarketsQuery,
): Promise<{ markets: AlphaMarket[]; pagination: PageInfo }> {
  rejectOffset(q.offset);
  const filters = parseMarketFilters(q);
  const sort: MarketSort = q.sort ?? 'volume';
  const digest = filtersDigest(DIGEST_NAME, { ...filters, sort });
  return marketsPage(ctx, {
    where: marketWhere(filters),
    sort,
    limit: q.limit ?? 20,
    search: filters.search,
    digest,
    token: q.pagination_key,
  });
}
