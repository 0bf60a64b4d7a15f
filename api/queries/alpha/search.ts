/**
 * `GET /v2/alpha/search`: the markets, events and tags whose title (question, title, label) holds every
 * query word as a word prefix (catalog-search.ts), each type ranked by relevance, then all-time volume,
 * then id, with its total number of matches. One read per requested type, all run at once. A read
 * finds the matches once, in a scalar subquery that keeps the first `limit` ids in rank order and the
 * count of all matches (reading only the words, status, volume and id columns); then it reads the wide
 * columns (`doc`) of those ids only, through the primary key.
 */
import { expression, type Selection, select } from '../../../core/clickhouse/table.ts';
import {
  SEARCH_TYPES,
  type SearchResponse,
  type SearchStatus,
  type SearchType,
} from '../../../schemas/api/alpha-search.ts';
import {
  ALPHA_EVENT_LIST,
  ALPHA_MARKET_LIST,
  ALPHA_TAG_LIST,
} from '../../../schemas/tables/alpha-catalog-lists.ts';
import type { RouteContext } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { createWhere } from '../../read/where.ts';
import { parseSearch, relevanceExpr, searchParams, searchWhere } from './catalog-search.ts';
import { toEvent } from './events.ts';
import { toMarket } from './markets.ts';
import { TAG_COLUMNS, toTag } from './tags.ts';

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

interface TypeRead<Row> {
  table: string;
  id: string;
  /** A match's columns and, last, the count of all matches (`found[1].2`, the same on every row). */
  select: Selection<Row & { total: string }>;
  /** Which `status` values match each requested status; undefined: the type has no status. */
  statuses?: Record<SearchStatus, string[]>;
}

/** The count of all matches, read with each of the first `limit` (the scalar `found` of the read). */
const TOTAL = expression<string>('found[1].2').as('total');

const MARKETS = select(ALPHA_MARKET_LIST, ['doc', TOTAL]);
const EVENTS = select(ALPHA_EVENT_LIST, ['doc', TOTAL]);
const TAGS = select(ALPHA_TAG_LIST, [...TAG_COLUMNS, TOTAL]);

const READS = {
  // As the markets list's status filter: closed matches closed and resolved markets.
  markets: {
    table: ALPHA_MARKET_LIST.name,
    id: 'market_id',
    select: MARKETS,
    statuses: { open: ['open'], closed: ['closed', 'resolved'] },
  },
  events: {
    table: ALPHA_EVENT_LIST.name,
    id: 'event_id',
    select: EVENTS,
    statuses: { open: ['open'], closed: ['closed'] },
  },
  tags: { table: ALPHA_TAG_LIST.name, id: 'tag_id', select: TAGS },
} satisfies { [T in SearchType]: TypeRead<unknown> };

/** The first `limit` matches of one type in rank order, and how many match in all. */
async function searchType<Row>(
  ctx: RouteContext,
  type: SearchType,
  r: TypeRead<Row>,
  words: string[],
  status: SearchStatus,
  limit: number,
): Promise<{ rows: Row[]; total: number }> {
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
    SELECT ${r.select.sql}
    FROM ${r.table}
    WHERE ${r.id} IN (SELECT arrayJoin(found).1)
    ${order}`;
  const raw = await ctx.deps.clickhouse.read(`api.alpha.search.${type}`, sql, {
    ...where.params,
    ...searchParams(words),
    limit,
  });
  const rows = raw.map(r.select.zip);
  return { rows, total: rows.length > 0 ? Number(rows[0]!.total) : 0 };
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
  const run = <Row>(type: SearchType, r: TypeRead<Row>) =>
    types.has(type)
      ? searchType(ctx, type, r, words, status, limit)
      : Promise.resolve({ rows: [] as Row[], total: 0 });
  const [markets, events, tags] = await Promise.all([
    run('markets', READS.markets),
    run('events', READS.events),
    run('tags', READS.tags),
  ]);
  return {
    query: q.q,
    markets: markets.rows.map(toMarket),
    // Events come without their markets (toEvent: markets null).
    events: events.rows.map(toEvent),
    tags: tags.rows.map(toTag),
    counts: { markets: markets.total, events: events.total, tags: tags.total },
  };
}
