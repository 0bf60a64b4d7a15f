/**
 * `GET /v2/alpha/categories`: every row of the derived `alpha_category_list` (the distinct non-empty
 * event categories with their events' counts and money, analytics/catalog/), by volume then slug.
 */
import type { AlphaCategory } from '../../../schemas/api/alpha-catalog.ts';
import type { CategoriesResponse } from '../../../schemas/api/alpha-tags.ts';
import type { RouteContext } from '../../context.ts';
import { ROLLUP_COLUMNS, type RollupRow, rollupOf } from './tags.ts';

type CategoryRow = [category: string, slug: string, ...RollupRow];

const toCategory = (r: CategoryRow): AlphaCategory => ({ category: r[0], slug: r[1], ...rollupOf(r, 2) });

export async function alphaCategories(ctx: RouteContext): Promise<CategoriesResponse> {
  const rows = await ctx.deps.clickhouse.read<CategoryRow>(
    'api.alpha.categories',
    `SELECT category, slug, ${ROLLUP_COLUMNS.join(', ')}
     FROM alpha_category_list ORDER BY volume DESC, slug ASC`,
  );
  return { categories: rows.map(toCategory) };
}
