/**
 * Which data sources each cached route reads (core/data-version.ts), keyed by the route's URL pattern as
 * Fastify spells it (`/v2/alpha/markets/:id/volume`). The response cache keys an answer with the
 * versions of these sources, so a route must list every source its answer depends on: a source left
 * out would let a change of it go unseen. Routes not listed here are never cached (their answers still
 * carry an ETag).
 */
import { ALPHA_CHAIN_SOURCE, type DataSource } from '../../core/data-version.ts';
import { PRODUCT_SOURCES } from '../../schemas/products.ts';

/** alpha's market metadata (slugs); bumped by the venue's market ingestion once it writes them. */
const ALPHA_VENUE: DataSource = 'venue:alpha';

/**
 * alpha's market analytics (candles, volume, open interest, totals: analytics/), bumped by each analytics
 * run that wrote. The market-data routes read those tables, the volume routes also chain rows (the maker
 * fills of end_time's minute; the chart maps them through alpha_tokens), so they list alpha-chain too;
 * alpha_tokens otherwise answers only their 404s, which are never cached.
 */
const ALPHA_MARKET_DATA = PRODUCT_SOURCES['alpha-market-data'];

/** alpha's positions and token prices (analytics/positions/), bumped by each positions run that wrote. */
const ALPHA_POSITIONS = PRODUCT_SOURCES['alpha-positions'];

/** alpha's catalog lists (analytics/catalog/), rebuilt whole by their build. */
const ALPHA_CATALOG_LISTS = PRODUCT_SOURCES['alpha-catalog-lists'];

/** alpha's wallet profiles (analytics/profiles/), rewritten whole by each profiles run. */
const ALPHA_PROFILES = PRODUCT_SOURCES['alpha-profiles'];

export type RouteSources = Readonly<Record<string, readonly DataSource[]>>;

export const ROUTE_SOURCES: RouteSources = {
  // Fills and activity are chain rows; market_slug (and the market_slug filter) come from the venue.
  '/v2/alpha/trades': [ALPHA_CHAIN_SOURCE, ALPHA_VENUE],
  '/v2/alpha/activity': [ALPHA_CHAIN_SOURCE, ALPHA_VENUE],
  '/v2/alpha/candlesticks/:condition_id': [ALPHA_MARKET_DATA],
  '/v2/alpha/candlesticks/token/:token_id': [ALPHA_MARKET_DATA],
  // The last period reads the maker fills of end_time's minute (chain rows) too.
  '/v2/alpha/volume-chart/:condition_id': [ALPHA_MARKET_DATA, ALPHA_CHAIN_SOURCE],
  '/v2/alpha/markets/:token_id/volume': [ALPHA_MARKET_DATA, ALPHA_CHAIN_SOURCE],
  // market_id comes from the venue's catalog.
  '/v2/alpha/markets/:condition_id/open_interest': [ALPHA_MARKET_DATA, ALPHA_VENUE],
  // The price reads the fills (maker fills of the token and its complement) and alpha_tokens.
  '/v2/alpha/market-price/:token_id': [ALPHA_CHAIN_SOURCE],
  '/v2/alpha/tags': [ALPHA_CATALOG_LISTS],
  '/v2/alpha/tag/:slug': [ALPHA_CATALOG_LISTS],
  '/v2/alpha/tag/:slug/subtags': [ALPHA_CATALOG_LISTS],
  '/v2/alpha/categories': [ALPHA_CATALOG_LISTS],
  '/v2/alpha/search': [ALPHA_CATALOG_LISTS],
  '/v2/alpha/markets': [ALPHA_CATALOG_LISTS],
  '/v2/alpha/markets/keyset': [ALPHA_CATALOG_LISTS],
  // The catalog lists (analytics/catalog/), rebuilt whole by the build, which bumps analytics:alpha-catalog.
  '/v2/alpha/events': [ALPHA_CATALOG_LISTS],
  '/v2/alpha/events/keyset': [ALPHA_CATALOG_LISTS],
  '/v2/alpha/series': [ALPHA_CATALOG_LISTS],
  '/v2/alpha/series/:slug': [ALPHA_CATALOG_LISTS],
  // Positions and token prices (alpha_positions, alpha_token_prices: the positions job bumps
  // analytics:alpha-positions); slugs, titles and outcome labels from the catalog lists. top-holders
  // reads alpha_tokens too: only for its 404s, which are never cached, and a token's condition never changes.
  '/v2/alpha/positions': [ALPHA_POSITIONS, ALPHA_CATALOG_LISTS],
  '/v2/alpha/wallet/positions/:wallet': [ALPHA_POSITIONS, ALPHA_CATALOG_LISTS],
  '/v2/alpha/position/:token_id/top-holders': [ALPHA_POSITIONS, ALPHA_CATALOG_LISTS],
  // Positions, their changes and token prices only (no slugs or titles in the answer).
  '/v2/alpha/wallet/pnl/:wallet': [ALPHA_POSITIONS],
  // The profiles table, rewritten whole by the profiles job.
  '/v2/alpha/wallets/profiles': [ALPHA_PROFILES],
};

/** The sources of a route URL pattern (trailing slash ignored), or undefined: not cached. */
export function sourcesFor(
  url: string,
  table: RouteSources = ROUTE_SOURCES,
): readonly DataSource[] | undefined {
  const path = url.length > 1 ? url.replace(/\/+$/, '') : url;
  return Object.hasOwn(table, path) ? table[path] : undefined;
}
