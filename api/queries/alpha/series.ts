/**
 * alpha's series (`alpha_series_list`, one row per series, rebuilt by analytics/catalog/):
 * `GET /v2/alpha/series` pages them by offset (SPEC lists `offset` there without deprecation), most open
 * events first, then slug; `GET /v2/alpha/series/{slug}` answers one series and a cursor page of its
 * events, newest first, through the events list's own query (events.ts).
 */
import { expression, fields, type RowOfSelection, select } from '../../../core/clickhouse/table.ts';
import type { AlphaSeries } from '../../../schemas/api/alpha-catalog.ts';
import type {
  SeriesDetailQuery,
  SeriesDetailResponse,
  SeriesListQuery,
  SeriesListResponse,
} from '../../../schemas/api/alpha-series.ts';
import { ALPHA_SERIES_LIST } from '../../../schemas/tables/alpha-catalog-lists.ts';
import type { RouteContext } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { filtersDigest } from '../../pagination.ts';
import { createWhere } from '../../read/where.ts';
import { eventsPage } from './events.ts';

/** A series row: its stored doc. */
const SERIES_DOC = select(ALPHA_SERIES_LIST, ['doc']);

/** A series row → the AlphaSeries it stores. */
const toSeries = (row: RowOfSelection<typeof SERIES_DOC>): AlphaSeries => JSON.parse(row.doc) as AlphaSeries;

const COUNT = fields({ count: expression<string>('count()') });

/** One page and the total, two reads side by side (the total must not depend on the page being empty). */
export async function alphaSeriesList(ctx: RouteContext, q: SeriesListQuery): Promise<SeriesListResponse> {
  const limit = q.limit ?? 50;
  const offset = q.offset ?? 0;
  const where = createWhere();
  if (q.active ?? true) where.add({ sql: 'active', params: {} });
  if (q.recurrence !== undefined) {
    where.add({ sql: 'recurrence = {recurrence:String}', params: { recurrence: q.recurrence } });
  }
  const ch = ctx.deps.clickhouse;
  const [rows, count] = await Promise.all([
    ch
      .read(
        'api.alpha.series',
        `SELECT ${SERIES_DOC.sql} FROM alpha_series_list ${where.sql()}
       ORDER BY open_event_count DESC, slug ASC LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
        { ...where.params, limit, offset },
      )
      .then((raw) => raw.map(SERIES_DOC.zip)),
    ch
      .read(
        'api.alpha.series.count',
        `SELECT ${COUNT.sql} FROM alpha_series_list ${where.sql()}`,
        where.params,
      )
      .then((raw) => raw.map(COUNT.zip)),
  ]);
  const total = Number(count[0]?.count ?? 0);
  return {
    series: rows.map(toSeries),
    pagination: { limit, offset, total, has_more: offset + rows.length < total },
  };
}

/** The series of `slug` (404 when unknown) and a page of its events, newest first, ties by id. */
export async function alphaSeriesDetail(
  ctx: RouteContext,
  slug: string,
  q: SeriesDetailQuery,
): Promise<SeriesDetailResponse> {
  const digest = filtersDigest('alpha.series.events', { series: slug, status: q.status, sort: 'created' });
  const [series, page] = await Promise.allSettled([
    ctx.deps.clickhouse
      .read(
        'api.alpha.series.detail',
        `SELECT ${SERIES_DOC.sql} FROM alpha_series_list WHERE slug = {slug:String} LIMIT 1`,
        { slug },
      )
      .then((raw) => raw.map(SERIES_DOC.zip)),
    eventsPage(ctx, {
      label: 'api.alpha.series.events',
      digest,
      filters: { series: slug, status: q.status },
      sort: 'created',
      limit: q.limit ?? 50,
      token: q.pagination_key,
    }),
  ]);
  if (series.status === 'rejected') throw series.reason;
  const row = series.value[0];
  if (row === undefined) throw new ApiError(404, `Unknown series slug "${slug.slice(0, 100)}"`);
  if (page.status === 'rejected') throw page.reason;
  return { series: toSeries(row), ...page.value };
}
