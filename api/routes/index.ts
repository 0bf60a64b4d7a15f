/**
 * Every data route module of the API. A module is a Fastify plugin taking the route context; add a line
 * here to serve a new one (its access rule comes from api/access.ts, its OpenAPI from its schemas).
 * How a list endpoint is built: docs/api.md, "How a list endpoint is built".
 */
import type { RoutePlugin } from '../context.ts';

export type { RouteContext, RoutePlugin } from '../context.ts';

import { alphaCandlesticksRoutes } from './v2/alpha/candlesticks.ts';
import { alphaCategoriesRoutes } from './v2/alpha/categories.ts';
import { alphaEventsRoutes } from './v2/alpha/events.ts';
import { alphaMarketPriceRoutes } from './v2/alpha/market-price.ts';
import { alphaMarketVolumeRoutes } from './v2/alpha/market-volume.ts';
import { alphaMarketsRoutes } from './v2/alpha/markets.ts';
import { alphaOpenInterestRoutes } from './v2/alpha/open-interest.ts';
import { alphaPositionsRoutes } from './v2/alpha/positions.ts';
import { alphaProfilesRoutes } from './v2/alpha/profiles.ts';
import { alphaSearchRoutes } from './v2/alpha/search.ts';
import { alphaSeriesRoutes } from './v2/alpha/series.ts';
import { alphaTagsRoutes } from './v2/alpha/tags.ts';
import { alphaVolumeChartRoutes } from './v2/alpha/volume-chart.ts';
import { alphaWalletPnlRoutes } from './v2/alpha/wallet-pnl.ts';

export const DATA_ROUTES: RoutePlugin[] = [
  alphaCandlesticksRoutes,
  alphaVolumeChartRoutes,
  alphaMarketVolumeRoutes,
  alphaOpenInterestRoutes,
  alphaMarketPriceRoutes,
  alphaMarketsRoutes,
  alphaEventsRoutes,
  alphaSeriesRoutes,
  alphaTagsRoutes,
  alphaCategoriesRoutes,
  alphaSearchRoutes,
  alphaPositionsRoutes,
  alphaWalletPnlRoutes,
  alphaProfilesRoutes,
];
