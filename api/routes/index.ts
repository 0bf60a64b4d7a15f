/**
 * Every data route module of the API. A module is a Fastify plugin taking the route context; add a line
 * here to serve a new one (its access rule comes from api/access.ts, its OpenAPI from its schemas).
 * How a list endpoint is built: docs/api.md, "How a list endpoint is built".
 */
import { LIST_CONTRACTS, type ListContract } from '../../schemas/venues/index.ts';
import type { RoutePlugin } from '../context.ts';
import { contractListQuery } from '../queries/venue-markets.ts';

export type { RouteContext, RoutePlugin } from '../context.ts';

import { betaTradesRoutes } from './v2/beta/trades.ts';
import { marketsSearchRoutes } from './v2/markets-search.ts';
import { type VenueMarketsQuery, venueMarketsRoutes } from './v2/venue-markets.ts';

/**
 * `GET /v2/<code>/markets` of each venue with a list, in venue order: the page of its contract's list,
 * rows mapped by the contract (schemas/venues/<code>.ts `list.resource`).
 */
const venueListRoutes = LIST_CONTRACTS.map((venue) =>
  venueMarketsRoutes(venue, contractListQuery(venue) as VenueMarketsQuery<ListContract>),
);

export const DATA_ROUTES: RoutePlugin[] = [...venueListRoutes, betaTradesRoutes, marketsSearchRoutes];
