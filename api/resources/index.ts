/**
 * Every served data resource, in the order of `/openapi.json`. A resource is one file under
 * api/resources/<venue>/ (docs/contributing.md, "An endpoint"); a test fails when a file there defines a
 * resource that is not listed here. Each venue's order book history follows its existing routes (the
 * venue market lists are one generated group, so gamma's, delta's and epsilon's come after beta's).
 */
import { alphaActivityResource } from './alpha/activity.ts';
import { alphaCandlesticksResource, alphaTokenCandlesticksResource } from './alpha/candlesticks.ts';
import { alphaCategoriesResource } from './alpha/categories.ts';
import { alphaEventsKeysetResource, alphaEventsResource } from './alpha/events.ts';
import { alphaMarketPriceResource } from './alpha/market-price.ts';
import { alphaMarketVolumeResource } from './alpha/market-volume.ts';
import { alphaMarketsKeysetResource, alphaMarketsResource } from './alpha/markets.ts';
import { alphaOpenInterestResource } from './alpha/open-interest.ts';
import { alphaOrderbooksResource } from './alpha/orderbooks.ts';
import {
  alphaPositionsResource,
  alphaTopHoldersResource,
  alphaWalletPositionsResource,
} from './alpha/positions.ts';
import { alphaProfilesResource } from './alpha/profiles.ts';
import { alphaSearchResource } from './alpha/search.ts';
import { alphaSeriesDetailResource, alphaSeriesResource } from './alpha/series.ts';
import { alphaSubtagsResource, alphaTagResource, alphaTagsResource } from './alpha/tags.ts';
import { alphaTradesResource } from './alpha/trades.ts';
import { alphaVolumeChartResource } from './alpha/volume-chart.ts';
import { alphaWalletPnlResource } from './alpha/wallet-pnl.ts';
import { betaOrderbooksResource, betaSubcentOrderbooksResource } from './beta/orderbooks.ts';
import { betaTradesResource } from './beta/trades.ts';
import { dataTicksResource } from './data-ticks.ts';
import type { Resource } from './define.ts';
import { deltaOrderbooksResource } from './delta/orderbooks.ts';
import { epsilonOrderbooksResource } from './epsilon/orderbooks.ts';
import { gammaOrderbooksResource } from './gamma/orderbooks.ts';
import { marketsSearchResource } from './markets-search.ts';
import { VENUE_MARKET_RESOURCES } from './venue-markets.ts';

export const RESOURCES: Resource[] = [
  alphaTradesResource,
  alphaActivityResource,
  alphaCandlesticksResource,
  alphaTokenCandlesticksResource,
  alphaVolumeChartResource,
  alphaMarketVolumeResource,
  alphaOpenInterestResource,
  alphaMarketPriceResource,
  alphaMarketsResource,
  alphaMarketsKeysetResource,
  alphaEventsKeysetResource,
  alphaEventsResource,
  alphaSeriesResource,
  alphaSeriesDetailResource,
  alphaTagsResource,
  alphaTagResource,
  alphaSubtagsResource,
  alphaCategoriesResource,
  alphaSearchResource,
  alphaPositionsResource,
  alphaWalletPositionsResource,
  alphaTopHoldersResource,
  alphaWalletPnlResource,
  alphaProfilesResource,
  alphaOrderbooksResource,
  ...VENUE_MARKET_RESOURCES,
  betaTradesResource,
  betaOrderbooksResource,
  betaSubcentOrderbooksResource,
  gammaOrderbooksResource,
  deltaOrderbooksResource,
  epsilonOrderbooksResource,
  marketsSearchResource,
  dataTicksResource,
];
