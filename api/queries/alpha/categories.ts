/**
 * `GET /v2/alpha/categories`: every row of the derived `alpha_category_list` (the distinct non-empty
 * event categories with their events' counts and money, analytics/catalog/), by volume then slug.
 */
import { type RowOfSelection, select } from '../../../core/clickhouse/table.ts';
import type { AlphaCategory } from '../../../schemas/api/alpha-catalog.ts';
import type { CategoriesResponse } from '../../../schemas/api/alpha-tags.ts';
import { ALPHA_CATEGORY_LIST } from '../../../schemas/tables/alpha-catalog-lists.ts';
import type { RouteContext } from '../../context.ts';
import { ROLLUP_COLUMNS, rollupOf } from './tags.ts';

const CATEGORY_SELECTION = select(ALPHA_CATEGORY_LIST, ['category', 'slug', ...ROLLUP_COLUMNS]);

/** A category row → the AlphaCategory. */
const toCategory = (r: RowOfSelection<typeof CATEGORY_SELECTION>): AlphaCategory => ({
  category: r.category,
  slug: r.slug,
  ...rollupOf(r),
});

export async function alphaCategories(ctx: RouteContext): Promise<CategoriesResponse> {
  const rows = await ctx.deps.clickhouse.read(
    'api.alpha.categories',
    `SELECT ${CATEGORY_SELECTION.sql}
     FROM alpha_category_list ORDER BY volume DESC, slug ASC`,
  );
  return { categories: rows.map((raw) => toCategory(CATEGORY_SELECTION.zip(raw))) };
}
