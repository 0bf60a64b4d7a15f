/** `GET /v2/alpha/categories`: the schema here; SQL and mapping in api/queries/alpha/categories.ts. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { CategoriesResponse } from '../../../../schemas/api/alpha-tags.ts';
import { keyedErrorResponses } from '../../../../schemas/api/common.ts';
import type { RouteContext } from '../../../context.ts';
import { alphaCategories } from '../../../queries/alpha/categories.ts';

export async function alphaCategoriesRoutes(scope: FastifyInstance, ctx: RouteContext) {
  scope.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v2/alpha/categories',
    {
      schema: {
        summary: 'Alpha categories',
        description:
          'The distinct categories of the events, each with the counts, volume, liquidity and trades of its ' +
          'events (no open interest), by volume (highest first), then slug. The events list’s category ' +
          'filter takes the label or the slug.',
        tags: ['alpha'],
        response: { 200: CategoriesResponse, ...keyedErrorResponses },
      },
    },
    async () => alphaCategories(ctx),
  );
}
