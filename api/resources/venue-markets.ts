/**
 * `GET /v2/<code>/markets`: one resource per venue contract with a market list (schemas/venues/index.ts
 * `LIST_CONTRACTS`, in venue order), generated from the contract (schemas/venues/<code>.ts `list`: the
 * route's text, its query and response schemas) and its list query (api/queries/venue-markets.ts
 * `contractListQuery`: the page and the contract's row mapping).
 */
import type { Static } from '@sinclair/typebox';
import { keyedErrorResponses } from '../../schemas/api/common.ts';
import type { MarketList, VenueContract } from '../../schemas/venues/contract.ts';
import { LIST_CONTRACTS } from '../../schemas/venues/index.ts';
import type { RouteContext } from '../context.ts';
import { contractListQuery, type ListVenue } from '../queries/venue-markets.ts';
import { defineResource, FREE, type Resource } from './define.ts';

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

/** The list resource of `venue`, its answers read by `list`. */
export function venueMarketsResource<C extends ListedContract>(
  venue: C,
  list: VenueMarketsQuery<C>,
): Resource {
  return defineResource({
    path: `/v2/${venue.code}/markets`,
    schema: {
      summary: `${venue.name} markets`,
      description: `${venue.list.about} ${LIST_RULES}`,
      tags: [venue.code],
      querystring: venue.list.query,
      response: { 200: venue.list.response, ...keyedErrorResponses },
    },
    access: FREE,
    // Each row's canonical ids come from canonical_outcomes, whose assignment (ingest/canonical/) bumps no
    // data version: no source list would see them change. Never cached before resources either.
    sources: { uncached: 'canonical ids (canonical_outcomes) change with no data version bump' },
    read: (ctx, { query }) => list(ctx, query as Static<C['list']['query']>),
  });
}

/** The list resource of each venue with a list, in venue order. */
export const VENUE_MARKET_RESOURCES: Resource[] = LIST_CONTRACTS.map((venue) =>
  venueMarketsResource(venue, contractListQuery(venue as ListVenue) as VenueMarketsQuery<ListedContract>),
);
