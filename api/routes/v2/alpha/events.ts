/**
 * `GET /v2/alpha/events/keyset` and `GET /v2/alpha/events` (identical): the schemas here; filters, sorts
 * and SQL in api/queries/alpha/events.ts.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { EventsQuery, EventsResponse } from '../../../../schemas/api/alpha-events.ts';
import { keyedErrorResponses } from '../../../../schemas/api/common.ts';
import type { RouteContext } from '../../../context.ts';
import { alphaEvents } from '../../../queries/alpha/events.ts';

const DESCRIPTION =
  "alpha's events with filters (combined with AND), a sort and cursor pagination. Array parameters " +
  '(id, slug, tag) repeat the key and match any item. With include_markets=true each event nests up to ' +
  'markets_per_event of its markets, by volume; for deeper paging of one event use the market list ' +
  'filtered by event slug. offset accepts only 0. Free and unlimited.';

export async function alphaEventsRoutes(scope: FastifyInstance, ctx: RouteContext) {
  const typed = scope.withTypeProvider<TypeBoxTypeProvider>();
  for (const [url, summary] of [
    ['/v2/alpha/events/keyset', 'Alpha events (keyset)'],
    ['/v2/alpha/events', 'Alpha events'],
  ] as const) {
    typed.get(
      url,
      {
        schema: {
          summary,
          description: DESCRIPTION,
          tags: ['alpha'],
          querystring: EventsQuery,
          response: { 200: EventsResponse, ...keyedErrorResponses },
        },
      },
      async (request) => alphaEvents(ctx, request.query),
    );
  }
}
