/**
 * `GET /v2/alpha/tags`, `/v2/alpha/tag/{slug}` and `/v2/alpha/tag/{slug}/subtags` over the derived
 * `alpha_tag_list` (analytics/catalog/: counts and money rolled up from the events, the hierarchy from
 * the tag relations). Subtag counts come from `alpha_event_list` with the events list's own rule for
 * `tag=<child>&status=<status>`: `has(tags, child) AND status = status`, so each equals what that list
 * pages out.
 */

import type { SortColumn } from '../../../core/clickhouse/sort-keys.ts';
import { columnOf, expression, fields, type RowOfSelection, select } from '../../../core/clickhouse/table.ts';
import type { AlphaTag } from '../../../schemas/api/alpha-catalog.ts';
import type {
  Subtag,
  SubtagStatus,
  SubtagsResponse,
  TagSort,
  TagsResponse,
} from '../../../schemas/api/alpha-tags.ts';
import { ALPHA_TAG_LIST } from '../../../schemas/tables/alpha-catalog-lists.ts';
import type { RouteContext } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { filtersDigest, rejectOffset } from '../../pagination.ts';
import { tablePage } from '../../read/keyset.ts';
import { createWhere } from '../../read/where.ts';
import { parseSearch, searchWhere } from './catalog-search.ts';

/**
 * The rollup columns a tag row and a category row share (migration 030): counts and money of their
 * events (no open interest, SPEC).
 */
export const ROLLUP_COLUMNS = [
  'event_count',
  'open_event_count',
  'market_count',
  'volume',
  'liquidity',
  'trades_all_time',
] as const;

const ROLLUP = select(ALPHA_TAG_LIST, ROLLUP_COLUMNS);
/** The rollup fields of a tag or category row (both tables describe them alike). */
export type RollupRow = RowOfSelection<typeof ROLLUP>;

export function rollupOf(r: RollupRow) {
  return {
    event_count: Number(r.event_count),
    open_event_count: Number(r.open_event_count),
    market_count: Number(r.market_count),
    total_volume_usd: Number(r.volume),
    liquidity_usd: Number(r.liquidity),
    trades_all_time: Number(r.trades_all_time),
  };
}

/** The columns of an AlphaTag (also read with a search's total: search.ts). */
export const TAG_COLUMNS = [
  'tag_id',
  'label',
  'slug',
  ...ROLLUP_COLUMNS,
  'parent_slug',
  'subtag_count',
] as const;

export const TAG_SELECTION = select(ALPHA_TAG_LIST, TAG_COLUMNS);
export type TagRow = RowOfSelection<typeof TAG_SELECTION>;

/** A tag row → the AlphaTag. */
export function toTag(r: TagRow): AlphaTag {
  return {
    id: r.tag_id,
    label: r.label,
    slug: r.slug,
    ...rollupOf(r),
    parent_slug: r.parent_slug,
    subtag_count: Number(r.subtag_count),
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
  const page = await tablePage(ctx, {
    label: 'api.alpha.tags',
    table: ALPHA_TAG_LIST.name,
    select: TAG_SELECTION,
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
  const rows = await ctx.deps.clickhouse.read(
    'api.alpha.tag',
    `SELECT ${TAG_SELECTION.sql} FROM alpha_tag_list WHERE slug = {slug:String} ORDER BY tag_id LIMIT 1`,
    { slug },
  );
  if (rows.length === 0) throw unknownTag(slug);
  return toTag(TAG_SELECTION.zip(rows[0]!));
}

/** The tag of a subtags request: its slug, label and children (the build's rank order). */
const SUBTAG_PARENT = select(ALPHA_TAG_LIST, ['slug', 'label', 'children']);

/** A child tag with its events of the requested status counted (the counts' join: t tags, e events). */
const SUBTAG_COUNTS = fields({
  slug: columnOf(ALPHA_TAG_LIST, 'slug', 't.slug'),
  label: columnOf(ALPHA_TAG_LIST, 'label', 't.label'),
  events: expression<string>('ifNull(e.events, 0)'),
  volume: expression<number>('ifNull(e.volume, 0)'),
  liquidity: expression<number>('ifNull(e.liquidity, 0)'),
});

/** A child tag's counts → the Subtag. */
const toSubtag = (r: RowOfSelection<typeof SUBTAG_COUNTS>): Subtag => ({
  slug: r.slug,
  label: r.label,
  event_count: Number(r.events),
  total_volume_usd: Number(r.volume),
  liquidity_usd: Number(r.liquidity),
});

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
  const tags = await ch.read(
    'api.alpha.tag-subtags.tag',
    `SELECT ${SUBTAG_PARENT.sql} FROM alpha_tag_list WHERE slug = {slug:String} ORDER BY tag_id LIMIT 1`,
    { slug },
  );
  if (tags.length === 0) throw unknownTag(slug);
  const { slug: tagSlug, label, children } = SUBTAG_PARENT.zip(tags[0]!);
  let subtags: Subtag[] = [];
  if (children.length > 0) {
    // An event counts once per child whatever its tags array holds (arrayDistinct), as has() counts it.
    const rows = await ch.read(
      'api.alpha.tag-subtags.counts',
      `SELECT ${SUBTAG_COUNTS.sql}
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
      .map((raw) => toSubtag(SUBTAG_COUNTS.zip(raw)))
      .sort((a, b) => b.event_count - a.event_count || rank.get(a.slug)! - rank.get(b.slug)!)
      .slice(0, limit);
  }
  return { tag: { slug: tagSlug, label }, status, subtags, count: subtags.length };
}
