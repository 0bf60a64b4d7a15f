/**
 * The catalog build of venue alpha (job `analytics.alpha-catalog-rollups`; docs/catalog.md "Derived
 * lists"): reads the catalog tables, the chain's resolutions, the market analytics, the books and the
 * current prices, applies the rules (rows.ts) and replaces the five lists of migration 030 whole, one
 * swap per table, then commits its run mark (the wall clock once all five are swapped) and bumps the data
 * source `analytics:alpha-catalog`. Builds must
 * not overlap (the job takes a lease); a rebuild from the same sources writes the same rows.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { DataVersions } from '../../core/data-version.ts';
import type { Logger } from '../../core/logger.ts';
import { alphaNow } from '../../core/now.ts';
import { PRODUCT_SOURCES } from '../../schemas/products.ts';
import {
  ALPHA_CATEGORY_LIST,
  ALPHA_EVENT_LIST,
  ALPHA_MARKET_LIST,
  ALPHA_SERIES_LIST,
  ALPHA_TAG_LIST,
} from '../../schemas/tables/alpha-catalog-lists.ts';
import { commitRun } from '../shared/chain.ts';
import { currentPrices } from '../shared/current-price.ts';
import { readAssignedIds } from './canonical.ts';
import { readBookLiquidity, readCatalog, readResolutions, readRolling, readTotals } from './read.ts';
import { catalogLists } from './rows.ts';
import { replaceTable } from './write.ts';

/** The product's name: its run mark's source in the progress store. */
export const CATALOG_PRODUCT = 'alpha-catalog-lists';
export const CATALOG_SOURCE = PRODUCT_SOURCES['alpha-catalog-lists'];

export interface CatalogBuildDeps {
  clickhouse: ClickHouse;
  log: Logger;
  /** Bumped after a build (the API's response cache keys the catalog routes on it). */
  versions?: DataVersions;
}

export interface CatalogBuildSummary {
  /** The "now" of statuses and prices, Unix ms. */
  now: number;
  markets: number;
  events: number;
  series: number;
  tags: number;
  categories: number;
  /** Milliseconds: reading the sources, the current prices, building the rows, writing the tables. */
  readMs: number;
  priceMs: number;
  rowsMs: number;
  writeMs: number;
  ms: number;
}

export async function buildAlphaCatalogLists(
  deps: CatalogBuildDeps,
  opts: { now?: number } = {},
): Promise<CatalogBuildSummary> {
  const started = Date.now();
  const ch = deps.clickhouse;
  const now = opts.now ?? (await alphaNow(ch));
  const [sources, resolutions, totals, rolling, canonical] = await Promise.all([
    readCatalog(ch),
    readResolutions(ch, now),
    readTotals(ch),
    readRolling(ch),
    readAssignedIds(ch),
  ]);
  const firstTokens = sources.markets.flatMap((m) => m.clob_token_ids.slice(0, 1));
  const liquidity = await readBookLiquidity(ch, firstTokens);
  const read = Date.now();
  const tokens = sources.markets.flatMap((m) => m.clob_token_ids.slice(0, m.outcomes.length));
  const prices = await currentPrices(ch, tokens, now);
  const priced = Date.now();
  const lists = catalogLists(sources, { resolutions, totals, rolling, prices, liquidity, canonical });
  const rowsDone = Date.now();
  await commitRun(ch, CATALOG_PRODUCT, { kind: 'head' }, async () => {
    await replaceTable(ch, ALPHA_MARKET_LIST, lists.markets);
    await replaceTable(ch, ALPHA_EVENT_LIST, lists.events);
    await replaceTable(ch, ALPHA_SERIES_LIST, lists.series);
    await replaceTable(ch, ALPHA_TAG_LIST, lists.tags);
    await replaceTable(ch, ALPHA_CATEGORY_LIST, lists.categories);
  });
  await deps.versions?.bump(CATALOG_SOURCE);
  const done = Date.now();
  const summary: CatalogBuildSummary = {
    now,
    markets: lists.markets.length,
    events: lists.events.length,
    series: lists.series.length,
    tags: lists.tags.length,
    categories: lists.categories.length,
    readMs: read - started,
    priceMs: priced - read,
    rowsMs: rowsDone - priced,
    writeMs: done - rowsDone,
    ms: done - started,
  };
  deps.log.info(summary, 'Built alpha catalog lists');
  return summary;
}
