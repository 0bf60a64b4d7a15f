/**
 * `GET /v2/alpha/search`: the markets, events and tags whose title (question, title, label) holds every
 * query word as a word prefix (catalog-search.ts), each type ranked by relevance, then all-time volume,
 * then id, with its total number of matches. One read per requested type, all run at once. A read
 * finds the matches once, in a scalar subquery that keeps the first `limit` ids in rank order and the
 * count of all matches (reading only the words, status, volume and id columns); then it reads the wide
 * columns (`doc`) of those ids only, through the primary key.
 */
import type { AlphaEvent, AlphaEventDoc, AlphaMarket } from '../../../schemas/api/alpha-catalog.ts';
import {
  SEARCH_TYPES,
  type SearchResponse,
  type SearchStatus,
  type SearchType,
} from '../../../schemas/api/alpha-search.ts';
import type { RouteContext } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { createWhere } from '../list.ts';
import { parseSearch, relevanceExpr, searchParams, searchWhere } from './catalog-search.ts';
import { TAG_COLUMNS, type TagRow, toTag } from './tags.ts';

/** `types`: a comma list of SEARCH_TYPES (any case, duplicates ignored); anything else is a 400 naming it. */
export function parseSearchTypes(raw: string | undefined): Set<SearchType> {
  if (raw === undefined) return new Set(SEARCH_TYPES);
  const items = raw
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  if (items.length === 0) {
    throw new ApiError(400, `types must name at least one of ${SEARCH_TYPES.join(', ')}`);
  }
  for (const item of items) {
    if (!(SEARCH_TYPES as readonly string[]).includes(item)) {
      throw new ApiError(
        400,
        `Unknown type in types: "${item.slice(0, 50)}" (expected a comma-separated subset of ${SEARCH_TYPES.join(', ')})`,
      );
    }
  }
  return new Set(items as SearchType[]);
}

interface TypeRead {
  table: string;
  id: string;
  columns: readonly string[];
  /** Which `status` values match each requested status; undefined: the type has no status. */
  statuses?: Record<SearchStatus, string[]>;
}

const READS: Record<SearchType, TypeRead> = {
  // As the markets list's status filter: closed matches closed and resolved markets.
  markets: {
    table: 'alpha_market_list',
    id: 'market_id',
    columns: ['doc'],
    statuses: { open: ['open'], closed: ['closed', 'resolved'] },
  },
  events: {
    table: 'alpha_event_list',
    id: 'event_id',
    columns: ['doc'],
    statuses: { open: ['open'], closed: ['closed'] },
  },
  tags: { table: 'alpha_tag_list', id: 'tag_id', columns: TAG_COLUMNS },
};

/** The first `limit` matches of one type in rank order, and how many match in all. */
async function searchType(
  ctx: RouteContext,
  type: SearchType,
  words: string[],
  status: SearchStatus,
  limit: number,
): Promise<{ rows: unknown[][]; total: number }> {
  const r = READS[type];
  const where = createWhere();
  where.add(searchWhere(words));
  if (r.statuses) {
    where.add({ sql: 'status IN {statuses:Array(String)}', params: { statuses: r.statuses[status] } });
  }
  // The first `limit` matches with the count of all (a window over the matches), read once as a
  // scalar; then the wide columns of those ids, in the same order.
  const order = `ORDER BY ${relevanceExpr()} DESC, volume DESC, ${r.id} ASC`;
  const sql = `WITH (
      SELECT groupArray(tuple(${r.id}, total)) FROM (
        SELECT ${r.id}, count() OVER () AS total FROM ${r.table} ${where.sql()} ${order} LIMIT {limit:UInt32})
    ) AS found
    SELECT ${r.columns.join(', ')}, found[1].2
    FROM ${r.table}
    WHERE ${r.id} IN (SELECT arrayJoin(found).1)
    ${order}`;
  const rows = await ctx.deps.clickhouse.read(`api.alpha.search.${type}`, sql, {
    ...where.params,
    ...searchParams(words),
    limit,
  });
  const n = r.columns.length;
  return { rows: rows.map((row) => row.slice(0, n)), total: rows.length > 0 ? Number(rows[0]![n]) : 0 };
}

export interface SearchRequest {
  q: string;
  types?: string;
  status?: SearchStatus;
  limit_per_type?: number;
}

export async function alphaSearch(ctx: RouteContext, q: SearchRequest): Promise<SearchResponse> {
  const words = parseSearch(q.q, 'q')!;
  const types = parseSearchTypes(q.types);
  const status = q.status ?? 'open';
  const limit = q.limit_per_type ?? 10;
  const none = { rows: [] as unknown[][], total: 0 };
  const run = (type: SearchType) =>
    types.has(type) ? searchType(ctx, type, words, status, limit) : Promise.resolve(none);
  const [markets, events, tags] = await Promise.all([run('markets'), run('events'), run('tags')]);
  return {
    query: q.q,
    markets: markets.rows.map((r) => JSON.parse(r[0] as string) as AlphaMarket),
    events: events.rows.map(
      (r): AlphaEvent => ({ ...(JSON.parse(r[0] as string) as AlphaEventDoc), markets: null }),
    ),
    tags: tags.rows.map((r) => toTag(r as TagRow)),
    counts: { markets: markets.total, events: events.total, tags: tags.total },
  };
}
