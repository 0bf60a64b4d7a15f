/**
 * `GET /v2/alpha/tags`, `/v2/alpha/tag/{slug}` and `/v2/alpha/tag/{slug}/subtags` over the derived
 * `alpha_tag_list` (analytics/catalog/: counts and money rolled up from the events, the hierarchy from
 * the tag relations). Subtag counts come from `alpha_event_list` with the events list's own rule for
 * `tag=<child>&status=<status>`: `has(tags, child) AND status = status`, so each equals what that list
 * pages out.
 */

import type { SortColumn } from '../../../core/clickhouse/sort-keys.ts';
import type { AlphaTag } from '../../../schemas/api/alpha-catalog.ts';
import type {
  Subtag,
  SubtagStatus,
  SubtagsResponse,
  TagSort,
  TagsResponse,
} from '../../../schemas/api/alpha-tags.ts';
import type { RouteContext } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { filtersDigest, rejectOffset } from '../../pagination.ts';
import { createWhere } from '../list.ts';
import { sortedPage } from '../sorted-page.ts';
import { parseSearch, searchWhere } from './catalog-search.ts';

/**
 * The rollup columns a tag row and a category row share (migration 030), in the order `rollupOf`
 * reads them: counts and money of their events (no open interest, SPEC).
 */
export const ROLLUP_COLUMNS = [
  'event_count',
  'open_event_count',
  'market_count',
  'volume',
  'liquidity',
  'trades_all_time',
] as const;

export type RollupRow = [
  eventCount: number,
  openEventCount: number,
  marketCount: number,
  volume: number,
  liquidity: number,
  trades: string,
];

export function rollupOf(r: readonly unknown[], at: number) {
  const n = (i: number) => Number(r[at + i]);
  return {
    event_count: n(0),
    open_event_count: n(1),
    market_count: n(2),
    total_volume_usd: n(3),
    liquidity_usd: n(4),
    trades_all_time: n(5),
  };
}

/** The columns of an AlphaTag, in the order `toTag` reads them. */
export const TAG_COLUMNS = [
  'tag_id',
  'label',
  'slug',
  ...ROLLUP_COLUMNS,
  'parent_slug',
  'subtag_count',
] as const;

export type TagRow = [
  id: string,
  label: string,
  slug: string,
  ...RollupRow,
  parentSlug: string | null,
  subtagCount: number,
];

export function toTag(r: TagRow): AlphaTag {
  return {
    id: r[0],
    label: r[1],
    slug: r[2],
    ...rollupOf(r, 3),
    parent_slug: r[9],
    subtag_count: Number(r[10]),
  };
}

const BY_ID: SortColumn = { expr: 'tag_id', type: 'String', dir: 'asc' };

/** Each sort's keys, ties by tag id. */
const TAG_SORT_KEYS: Record<TagSort, readonly SortColumn[]> = {
  volume: [{ expr: 'volume', type: 'Float64', dir: 'desc' }, BY_ID],
  events: [{ expr: 'event_count', type: 'UInt64', dir: 'desc' }, BY_ID],
  label: [{ expr: 'lowerUTF8(label)', type: 'String', dir: 'asc' }, BY_ID],
};

export interface TagsRequest {
  search?: string;
  sort?: TagSort;
  limit?: number;
  pagination_key?: string;
  offset?: number;
}

/** One page of `GET /v2/alpha/tags`. */
export async function alphaTags(ctx: RouteContext, q: TagsRequest): Promise<TagsResponse> {
  rejectOffset(q.offset);
  const words = parseSearch(q.search, 'search');
  const sort = q.sort ?? 'volume';
  const where = createWhere();
  if (words) where.add(searchWhere(words));
  const page = await sortedPage<TagRow>(ctx, {
    label: 'api.alpha.tags',
    table: 'alpha_tag_list',
    columns: TAG_COLUMNS,
    keys: TAG_SORT_KEYS[sort],
    where,
    digest: filtersDigest('alpha.tags', { search: words ?? null, sort }),
    token: q.pagination_key,
    limit: q.limit ?? 50,
  });
  return { tags: page.rows.map(toTag), pagination: page.pagination };
}

const unknownTag = (slug: string) => new ApiError(404, `No tag has the slug "${slug.slice(0, 100)}"`);

/** `GET /v2/alpha/tag/{slug}`: one tag, or 404. */
export async function alphaTag(ctx: RouteContext, slug: string): Promise<AlphaTag> {
  const rows = await ctx.deps.clickhouse.read<TagRow>(
    'api.alpha.tag',
    `SELECT ${TAG_COLUMNS.join(', ')} FROM alpha_tag_list WHERE slug = {slug:String} ORDER BY tag_id LIMIT 1`,
    { slug },
  );
  if (rows.length === 0) throw unknownTag(slug);
  return toTag(rows[0]!);
}

type SubtagRow = [slug: string, label: string, events: string, volume: number, liquidity: number];

/**
 * `GET /v2/alpha/tag/{slug}/subtags`: the tag's children (the build's rank order) with their events of
 * `status` counted, by event count (highest first), then that rank order. Two reads: the tag, then its
 * children's labels with their counts (one pass over the events' tags).
 */
export async function alphaSubtags(
  ctx: RouteContext,
  slug: string,
  q: { status?: SubtagStatus; limit?: number },
): Promise<SubtagsResponse> {
  const status = q.status ?? 'open';
  const limit = q.limit ?? 30;
  const ch = ctx.deps.clickhouse;
  const tags = await ch.read<[string, string, string[]]>(
    'api.alpha.tag-subtags.tag',
    'SELECT slug, label, children FROM alpha_tag_list WHERE slug = {slug:String} ORDER BY tag_id LIMIT 1',
    { slug },
  );
  if (tags.length === 0) throw unknownTag(slug);
  const [tagSlug, label, children] = tags[0]!;
  let subtags: Subtag[] = [];
  if (children.length > 0) {
    // An event counts once per child whatever its tags array holds (arrayDistinct), as has() counts it.
    const rows = await ch.read<SubtagRow>(
      'api.alpha.tag-subtags.counts',
      `SELECT t.slug, t.label, ifNull(e.events, 0), ifNull(e.volume, 0), ifNull(e.liquidity, 0)
       FROM (SELECT slug, any(label) AS label FROM alpha_tag_list
             WHERE slug IN {children:Array(String)} GROUP BY slug) AS t
       LEFT JOIN (SELECT child, count() AS events, sum(volume) AS volume, sum(liquidity) AS liquidity
                  FROM alpha_event_list ARRAY JOIN arrayDistinct(tags) AS child
                  WHERE status = {status:String} AND child IN {children:Array(String)}
                  GROUP BY child) AS e ON e.child = t.slug
       SETTINGS join_use_nulls = 1`,
      { children, status },
    );
    const rank = new Map(children.map((c, i) => [c, i]));
    subtags = rows
      .map(([s, l, events, volume, liquidity]) => ({
        slug: s,
        label: l,
        event_count: Number(events),
        total_volume_usd: Number(volume),
        liquidity_usd: Number(liquidity),
      }))
      .sort((a, b) => b.event_count - a.event_count || rank.get(a.slug)! - rank.get(b.slug)!)
      .slice(0, limit);
  }
  return { tag: { slug: tagSlug, label }, status, subtags, count: subtags.length };
}
