/**
 * `GET /v2/alpha/events/keyset` and `GET /v2/alpha/events` (identical, their cursors too): filters, sorts
 * and SQL in api/queries/alpha/events.ts.
 */
import { EventsQuery, EventsResponse } from '../../../schemas/api/alpha-events.ts';
import { keyedErrorResponses } from '../../../schemas/api/common.ts';
import { alphaEvents } from '../../queries/alpha/events.ts';
import { defineResource, FREE } from '../define.ts';
import { ALPHA_CATALOG_LISTS } from './sources.ts';

const DESCRIPTION =
  "alpha's events with filters (combined with AND), a sort and cursor pagination. Array parameters " +
  '(id, slug, tag) repeat the key and match any item. With include_markets=true each event nests up to ' +
  'markets_per_event of its markets, by volume; for deeper paging of one event use the market list ' +
  'filtered by event slug. offset accepts only 0. Free and unlimited.';

const schema = (summary: string) => ({
  summary,
  description: DESCRIPTION,
  tags: ['alpha'],
  querystring: EventsQuery,
  response: { 200: EventsResponse, ...keyedErrorResponses },
});

export const alphaEventsKeysetResource = defineResource({
  path: '/v2/alpha/events/keyset',
  schema: schema('Alpha events (keyset)'),
  access: FREE,
  // The catalog lists (analytics/catalog/), rebuilt whole by the build, which bumps analytics:alpha-catalog.
  sources: [ALPHA_CATALOG_LISTS],
  read: (ctx, { query }) => alphaEvents(ctx, query),
});

export const alphaEventsResource = defineResource({
  path: '/v2/alpha/events',
  schema: schema('Alpha events'),
  access: FREE,
  // The catalog lists (analytics/catalog/), rebuilt whole by the build, which bumps analytics:alpha-catalog.
  sources: [ALPHA_CATALOG_LISTS],
  read: (ctx, { query }) => alphaEvents(ctx, query),
});
