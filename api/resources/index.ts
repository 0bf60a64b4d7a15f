/**
 * Every served data resource, in the order of `/openapi.json`. A resource is one file under
 * api/resources/<venue>/ (docs/contributing.md, "An endpoint"); a test fails when a file there defines a
 * resource that is not listed here.
 */
import { alphaActivityResource } from './alpha/activity.ts';
import { alphaCategoriesResource } from './alpha/categories.ts';
import { alphaEventsKeysetResource, alphaEventsResource } from './alpha/events.ts';
import { alphaMarketsKeysetResource, alphaMarketsResource } from './alpha/markets.ts';
import { alphaSearchResource } from './alpha/search.ts';
import { alphaSeriesDetailResource, alphaSeriesResource } from './alpha/series.ts';
import { alphaSubtagsResource, alphaTagResource, alphaTagsResource } from './alpha/tags.ts';
import { alphaTradesResource } from './alpha/trades.ts';
import type { Resource } from './define.ts';

export const RESOURCES: Resource[] = [
  alphaTradesResource,
  alphaActivityResource,
  // catalog
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
];
