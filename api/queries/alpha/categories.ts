/**
 * `GET /v2/alpha/categories`: every row of the derived `alpha_category_list` (the distinct non-empty
 * event categories with their events' counts and money, analytics/catalog/), by volume then slug.
 */
import type { AlphaCategory } from '../../../schemas/api/alpha-catalog.ts';
import type { CategoriesResponse } from '../../../schemas/api/alpha-tags.ts';
import type { RouteContext } from '../../routes/context.ts';

type CategoryRow = [
  category: string,
  slug: string,
  eventCount: number,
  openEventCount: number,
  marketCount: number,
  volume: number,
  liquidity: number,
  trades: string,
];

function toCategory(r: CategoryRow): AlphaCategory {
  return {
    category: r[0],
    slug: r[1],
    event_count: Number(r[2]),
    open_event_count: Number(r[3]),
    market_count: Number(r[4]),
    total_volume_usd: Number(r[5]),
    liquidity_usd: Number(r[6]),
    trades_all_time: Number(r[7]),
  };
}

export async function alphaCategories(ctx: RouteContext): Promise<CategoriesResponse> {
  const rows = await ctx.deps.clickhouse.read<CategoryRow>(
    'api.alpha.categories',
    `SELECT category, slug, event_count, open_event_count, market_count, volume, liquidity, trades_all_time
     FROM alpha_category_list ORDER BY volume DESC, slug ASC`,
  );
  return { categories: rows.map(toCategory) };
}
