/**
 * The data sources alpha's resources name (core/data-version.ts): what the response cache keys their
 * answers on. A resource must list every source its answer depends on: one left out would let a change
 * of it go unseen.
 */
import type { DataSource } from '../../../core/data-version.ts';
import { PRODUCT_SOURCES } from '../../../schemas/products.ts';

export { ALPHA_CHAIN_SOURCE } from '../../../core/data-version.ts';

/** alpha's market metadata (slugs); bumped by the venue's market ingestion once it writes them. */
export const ALPHA_VENUE: DataSource = 'venue:alpha';

/**
 * alpha's market analytics (candles, volume, open interest, totals: analytics/), bumped by each analytics
 * run that wrote. The market-data routes read those tables, the volume routes also chain rows (the maker
 * fills of end_time's minute; the chart maps them through alpha_tokens), so they list alpha-chain too;
 * alpha_tokens otherwise answers only their 404s, which are never cached.
 */
export const ALPHA_MARKET_DATA = PRODUCT_SOURCES['alpha-market-data'];

/** alpha's positions and token prices (analytics/positions/), bumped by each positions run that wrote. */
export const ALPHA_POSITIONS = PRODUCT_SOURCES['alpha-positions'];

/** alpha's catalog lists (analytics/catalog/), rebuilt whole by their build. */
export const ALPHA_CATALOG_LISTS = PRODUCT_SOURCES['alpha-catalog-lists'];

/** alpha's wallet profiles (analytics/profiles/), rewritten whole by each profiles run. */
export const ALPHA_PROFILES = PRODUCT_SOURCES['alpha-profiles'];
