/**
 * The analytics products' data sources (core/data-version.ts), by product name: the source each product
 * bumps after a run that wrote (its definition's `source`, analytics/<product>/index.ts) and the API's
 * response cache keys the resources that read it with (their `sources`, api/resources/). A contract both sides read, so
 * neither restates a name.
 */
import type { DataSource } from '../core/data-version.ts';

export const PRODUCT_SOURCES = {
  'alpha-market-data': 'analytics:alpha-market-data',
  'alpha-rolling-metrics': 'analytics:alpha-rolling',
  'alpha-positions': 'analytics:alpha-positions',
  'alpha-profiles': 'analytics:alpha-profiles',
  'alpha-catalog-lists': 'analytics:alpha-catalog',
} as const satisfies Record<string, DataSource>;

export type ProductName = keyof typeof PRODUCT_SOURCES;
