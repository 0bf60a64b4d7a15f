/**
 * `GET /v2/<code>/markets` of a venue with a market list, from its contract (schemas/venues/<code>.ts
 * `list`: the route's text, its query and response schemas) and its list query (a venue's is
 * api/queries/venue-markets.ts `contractListQuery`: the page and the contract's row mapping).
 * api/routes/index.ts registers one per contract that has a list.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import { keyedErrorResponses } from '../../../schemas/api/common.ts';
import type { MarketList, VenueContract } from '../../../schemas/venues/contract.ts';
import type { RouteContext, RoutePlugin } from '../../context.ts';

/** What every venue list's description ends with, after the venue's own text. */
const LIST_RULES =
  'Filters combine with AND; a list parameter (repeat the key, up to 50 items) matches any of its items; ' +
  'canonical_id matches a market when any of its outcomes has one of the ids. Cursor paginated: pass ' +
  'pagination_key back with the same filters and sort. limit 1–100 (default 20). Free and unlimited: ' +
  'not counted toward the monthly quota.';

/** A contract with a market list (schemas/venues/index.ts `ListContract` is every venue's). */
export type ListedContract = VenueContract & { list: MarketList };

/** A venue's list query: the validated query string → the response. */
export type VenueMarketsQuery<C extends ListedContract> = (
  ctx: RouteContext,
  q: Static<C['list']['query']>,
) => Promise<Static<C['list']['response']>>;

export function venueMarketsRoutes<C extends ListedContract>(
  venue: C,
  list: VenueMarketsQuery<C>,
): RoutePlugin {
  return async (scope, ctx) => {
    scope.withTypeProvider<TypeBoxTypeProvider>().get(
      `/v2/${venue.code}/markets`,
      {
        schema: {
          summary: `${venue.name} markets`,
          description: `${venue.list.about} ${LIST_RULES}`,
          tags: [venue.code],
          querystring: venue.list.query,
          response: { 200: venue.list.response, ...keyedErrorResponses },
        },
      },
      async (request) => list(ctx, request.query as Static<C['list']['query']>),
    );
  };
}
