/**
 * alpha's events as the lists serve them (`GET /v2/alpha/events/keyset`, `GET /v2/alpha/events`, and the
 * events of `GET /v2/alpha/series/{slug}`): pages of `alpha_event_list` (one row per event, rebuilt by
 * analytics/catalog/) in a per-request sort through `tablePage` (api/read/keyset.ts), each row's stored
 * `doc` returned as is.
 *
 * One read per page, in one pass (the engine reads the wide columns of the page's rows only,
 * docs/decisions.md); with `include_markets` it also reads the row's own `markets` (its first 50 market
 * docs by volume descending, ties by market id, written by the catalog build), cut to
 * `markets_per_event`.
 */

import { descKey, nullableTimeKeys, type SortColumn } from '../../../core/clickhouse/sort-keys.ts';
import { expression, type RowOfSelection, type Selection, select } from '../../../core/clickhouse/table.ts';
import type { AlphaEvent, AlphaEventDoc, AlphaMarket } from '../../../schemas/api/alpha-catalog.ts';
import type {
  EventSort,
  EventStatus,
  EventsQuery,
  EventsResponse,
} from '../../../schemas/api/alpha-events.ts';
import { ALPHA_EVENT_LIST } from '../../../schemas/tables/alpha-catalog-lists.ts';
import type { RouteContext } from '../../context.ts';
import { filtersDigest, type PageInfo, rejectOffset } from '../../pagination.ts';
import { tablePage } from '../../read/keyset.ts';
import { createWhere, type Where } from '../../read/where.ts';
import { parseSearch, relevanceExpr, searchParams, searchWhere } from './catalog-search.ts';

/** What selects events; every field optional, all combined with AND. */
export interface EventFilters {
  status?: EventStatus;
  /** A category label (any case) or slug, lowercased. */
  category?: string;
  /** Search words (parseSearch). */
  search?: string[];
  ids?: string[];
  slugs?: string[];
  /** Tag slugs: an event with any of them. */
  tags?: string[];
  /** Events of this series slug. */
  series?: string;
  /** 7-day USD volume ≥. */
  minVolume?: number;
  /** Current open interest (USD) ≥. */
  minOpenInterest?: number;
}

/** The conditions of `f` over alpha_event_list's columns; values bound, never spliced. */
export function eventsWhere(f: EventFilters): Where {
  const where = createWhere();
  if (f.status !== undefined) where.add({ sql: 'status = {status:String}', params: { status: f.status } });
  if (f.category !== undefined) {
    where.add({
      sql: 'lowerUTF8(category) = {category:String} OR category_slug = {category:String}',
      params: { category: f.category },
    });
  }
  if (f.search !== undefined) where.add(searchWhere(f.search));
  if (f.ids !== undefined) where.add({ sql: 'event_id IN {ids:Array(String)}', params: { ids: f.ids } });
  if (f.slugs !== undefined) where.add({ sql: 'slug IN {slugs:Array(String)}', params: { slugs: f.slugs } });
  if (f.tags !== undefined)
    where.add({ sql: 'hasAny(tags, {tags:Array(String)})', params: { tags: f.tags } });
  if (f.series !== undefined) {
    where.add({ sql: 'has(series_slugs, {series:String})', params: { series: f.series } });
  }
  if (f.minVolume !== undefined) {
    where.add({ sql: 'volume_7d >= {min_volume:Float64}', params: { min_volume: f.minVolume } });
  }
  if (f.minOpenInterest !== undefined) {
    where.add({ sql: 'open_interest >= {min_oi:Float64}', params: { min_oi: f.minOpenInterest } });
  }
  return where;
}

const BY_ID: SortColumn = { expr: 'event_id', type: 'String', dir: 'asc' };
const desc = descKey;
const date = nullableTimeKeys;
const BY_VOLUME = desc('volume', 'Float64');

/** The sort keys of `sort`, ending with the event id. `relevance` ranks by search only when searching. */
export function eventSortKeys(sort: EventSort, searching: boolean): SortColumn[] {
  const head: Record<EventSort, SortColumn[]> = {
    created: date('created_at', 'desc'),
    created_asc: date('created_at', 'asc'),
    start_date: date('start_date', 'desc'),
    start_date_asc: date('start_date', 'asc'),
    end_date: date('end_date', 'asc'),
    end_date_desc: date('end_date', 'desc'),
    title: [{ expr: 'lowerUTF8(title)', type: 'String', dir: 'asc' }],
    relevance: searching ? [desc(relevanceExpr(), 'UInt64'), BY_VOLUME] : [BY_VOLUME],
    volume_1d: [desc('volume_1d', 'Float64')],
    volume_7d: [desc('volume_7d', 'Float64')],
    volume_30d: [desc('volume_30d', 'Float64')],
    volume_all_time: [BY_VOLUME],
    open_interest: [desc('open_interest', 'Float64')],
    trades_1d: [desc('trades_1d', 'UInt64')],
    trades_7d: [desc('trades_7d', 'UInt64')],
    trades_30d: [desc('trades_30d', 'UInt64')],
  };
  return [...head[sort], BY_ID];
}

/** An event row of a page: its stored doc. */
const EVENT_DOC = select(ALPHA_EVENT_LIST, ['doc']);
/** With `include_markets`: also the docs of its first markets. */
const EVENT_WITH_MARKETS = select(ALPHA_EVENT_LIST, [
  'doc',
  expression<string[]>('arraySlice(markets, 1, {per_event:UInt32})').as('markets'),
]);
type EventRow = RowOfSelection<typeof EVENT_DOC> & Partial<RowOfSelection<typeof EVENT_WITH_MARKETS>>;

/** An event row → the AlphaEvent (`markets` null unless they were read). */
export function toEvent(row: EventRow): AlphaEvent {
  const event = JSON.parse(row.doc) as AlphaEventDoc;
  return { ...event, markets: row.markets ? row.markets.map((m) => JSON.parse(m) as AlphaMarket) : null };
}

export interface EventsPageRequest {
  /** Query label (`api.<route>`). */
  label: string;
  /** Digest of the normalized filters and sort (filtersDigest). */
  digest: string;
  filters: EventFilters;
  sort: EventSort;
  limit: number;
  token: string | undefined;
  /** Nested markets per event; undefined: `markets` null. */
  marketsPerEvent?: number;
}

/** One page of events (the series detail's events too). */
export async function eventsPage(
  ctx: RouteContext,
  r: EventsPageRequest,
): Promise<{ events: AlphaEvent[]; pagination: PageInfo }> {
  const searching = r.filters.search !== undefined;
  const nested = r.marketsPerEvent !== undefined;
  // With include_markets, the event row's own `markets` (its first 50 market docs by volume, written by
  // the catalog build) cut to markets_per_event: read with the page, no second statement.
  const selection: Selection<EventRow> = nested ? EVENT_WITH_MARKETS : EVENT_DOC;
  const page = await tablePage(ctx, {
    label: r.label,
    table: ALPHA_EVENT_LIST.name,
    select: selection,
    keys: eventSortKeys(r.sort, searching),
    where: eventsWhere(r.filters),
    digest: r.digest,
    token: r.token,
    limit: r.limit,
    params: {
      ...(searching ? searchParams(r.filters.search!) : {}),
      ...(nested ? { per_event: r.marketsPerEvent } : {}),
    },
  });
  return { events: page.rows.map(toEvent), pagination: page.pagination };
}

/** Distinct and sorted: the same set written in any order is the same filter (and cursor digest). */
const normalized = (items: string[] | undefined) =>
  items === undefined ? undefined : [...new Set(items)].sort();

/** `GET /v2/alpha/events/keyset` and `GET /v2/alpha/events` (identical; their cursors too). */
export async function alphaEvents(ctx: RouteContext, q: EventsQuery): Promise<EventsResponse> {
  rejectOffset(q.offset);
  const filters: EventFilters = {
    status: q.status,
    category: q.category?.toLowerCase(),
    search: parseSearch(q.search, 'search'),
    ids: normalized(q.id),
    slugs: normalized(q.slug),
    tags: normalized(q.tag),
    minVolume: q.min_volume,
    minOpenInterest: q.min_open_interest,
  };
  const sort = q.sort ?? 'created';
  const digest = filtersDigest('alpha.events', {
    status: filters.status,
    category: filters.category,
    search: filters.search,
    id: filters.ids,
    slug: filters.slugs,
    tag: filters.tags,
    min_volume: filters.minVolume,
    min_open_interest: filters.minOpenInterest,
    sort,
  });
  return eventsPage(ctx, {
    label: 'api.alpha.events',
    digest,
    filters,
    sort,
    limit: q.limit ?? 20,
    token: q.pagination_key,
    marketsPerEvent: q.include_markets ? (q.markets_per_event ?? 10) : undefined,
  });
}
