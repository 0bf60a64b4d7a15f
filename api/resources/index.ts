/**
 * Every served data resource, in the order of `/openapi.json`. A resource is one file under
 * api/resources/<venue>/ (docs/contributing.md, "An endpoint"); a test fails when a file there defines a
 * resource that is not listed here.
 */
import { alphaActivityResource } from './alpha/activity.ts';
import { alphaCandlesticksResource, alphaTokenCandlesticksResource } from './alpha/candlesticks.ts';
import { alphaMarketPriceResource } from './alpha/market-price.ts';
import { alphaMarketVolumeResource } from './alpha/market-volume.ts';
import { alphaOpenInterestResource } from './alpha/open-interest.ts';
import { alphaTradesResource } from './alpha/trades.ts';
import { alphaVolumeChartResource } from './alpha/volume-chart.ts';
import type { Resource } from './define.ts';

export const RESOURCES: Resource[] = [
  alphaTradesResource,
  alphaActivityResource,
  alphaCandlesticksResource,
  alphaTokenCandlesticksResource,
  alphaVolumeChartResource,
  alphaMarketVolumeResource,
  alphaOpenInterestResource,
  alphaMarketPriceResource,
];
