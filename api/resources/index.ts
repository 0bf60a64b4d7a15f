/**
 * Every served data resource, in the order of `/openapi.json`. A resource is one file under
 * api/resources/<venue>/ (docs/contributing.md, "An endpoint"); a test fails when a file there defines a
 * resource that is not listed here.
 */
import { alphaActivityResource } from './alpha/activity.ts';
import { alphaTradesResource } from './alpha/trades.ts';
import { betaTradesResource } from './beta/trades.ts';
import type { Resource } from './define.ts';
import { marketsSearchResource } from './markets-search.ts';
import { VENUE_MARKET_RESOURCES } from './venue-markets.ts';

export const RESOURCES: Resource[] = [
  alphaTradesResource,
  alphaActivityResource,
  // venues helper (issue 50): after the alpha catalog resources, in the old DATA_ROUTES order: the venue
  // lists (`/v2/<code>/markets`, venue order), beta's trades, the cross-venue search.
  ...VENUE_MARKET_RESOURCES,
  betaTradesResource,
  marketsSearchResource,
];
