/** `GET /v2/alpha/categories`: SQL and mapping in api/queries/alpha/categories.ts. */
import { CategoriesResponse } from '../../../schemas/api/alpha-tags.ts';
import { keyedErrorResponses } from '../../../schemas/api/common.ts';
import { alphaCategories } from '../../queries/alpha/categories.ts';
import { defineResource, METERED } from '../define.ts';
import { ALPHA_CATALOG_LISTS } from './sources.ts';

export const alphaCategoriesResource = defineResource({
  path: '/v2/alpha/categories',
  schema: {
    summary: 'Alpha categories',
    description:
      'The distinct categories of the events, each with the counts, volume, liquidity and trades of its ' +
      'events (no open interest), by volume (highest first), then slug. The events list’s category ' +
      'filter takes the label or the slug.',
    tags: ['alpha'],
    response: { 200: CategoriesResponse, ...keyedErrorResponses },
  },
  access: METERED,
  // The category list (alpha_category_list), rebuilt whole by the catalog build.
  sources: [ALPHA_CATALOG_LISTS],
  read: (ctx) => alphaCategories(ctx),
});
