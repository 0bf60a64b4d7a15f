/**
 * Venue alpha's catalog lists (schemas/clickhouse/030_alpha_catalog_lists.sql), rebuilt whole by the
 * catalog build (analytics/catalog/, job analytics.alpha-catalog-rollups) and read by the catalog
 * endpoints. One row per market, event, series, tag and category; `doc` is the resource's JSON as the API
 * returns it. Money in USD, times Unix ms in rows (NULL when unknown). Inserted as JSONEachRow, so text
 * arrays hold any UTF-8. Checked against `DESCRIBE TABLE` by test/table-descriptions.test.ts.
 */
import { c, defineTable } from '../../core/clickhouse/table.ts';

/** Array(String) of any UTF-8 text (words, slugs, ids). */
const textArray = { ...c.hexArray, write: 'strArray' } as typeof c.hexArray;
const u64 = c.u64n;

const WINDOWS = {
  volume_1d: c.f64,
  volume_7d: c.f64,
  volume_30d: c.f64,
  trades_1d: u64,
  trades_7d: u64,
  trades_30d: u64,
} as const;

export const ALPHA_MARKET_LIST = defineTable('alpha_market_list', {
  market_id: c.hex(),
  condition_id: c.hex(),
  question_id: c.hex(),
  slug: c.text,
  event_id: c.hex(),
  event_slug: c.text,
  title: c.text,
  words: textArray,
  status: c.lowText<'open' | 'closed' | 'resolved'>(),
  token_ids: textArray,
  canonical_ids: textArray,
  tags: textArray,
  /** The first outcome's current price. */
  price: c.nullableF64,
  volume: c.f64,
  liquidity: c.f64,
  open_interest: c.f64,
  ...WINDOWS,
  oi_change_1d: c.f64,
  oi_change_7d: c.f64,
  oi_change_30d: c.f64,
  created_at: c.nullableTime,
  end_date: c.nullableTime,
  /** JSON of AlphaMarket (schemas/api/alpha-catalog.ts). */
  doc: c.text,
});

export const ALPHA_EVENT_LIST = defineTable('alpha_event_list', {
  event_id: c.hex(),
  slug: c.text,
  title: c.text,
  words: textArray,
  category: c.text,
  category_slug: c.text,
  status: c.lowText<'open' | 'closed'>(),
  tags: textArray,
  series_slugs: textArray,
  created_at: c.nullableTime,
  start_date: c.nullableTime,
  end_date: c.nullableTime,
  market_count: c.u32,
  volume: c.f64,
  liquidity: c.f64,
  open_interest: c.f64,
  ...WINDOWS,
  trades_all_time: u64,
  /** JSON of AlphaEventDoc (an Event without `markets`). */
  doc: c.text,
  /** JSON of its first MAX_NESTED_MARKETS markets (AlphaMarket) by volume desc, then market id. */
  markets: textArray,
});

/** Markets an event row carries for `include_markets` (the bound of `markets_per_event`). */
export const MAX_NESTED_MARKETS = 50;

export const ALPHA_SERIES_LIST = defineTable('alpha_series_list', {
  series_id: c.hex(),
  slug: c.text,
  recurrence: c.text,
  active: c.bool,
  event_count: c.u32,
  open_event_count: c.u32,
  volume: c.f64,
  liquidity: c.f64,
  trades_all_time: u64,
  /** JSON of AlphaSeries. */
  doc: c.text,
});

const ROLLUP = {
  event_count: c.u32,
  open_event_count: c.u32,
  market_count: c.u32,
  volume: c.f64,
  liquidity: c.f64,
  trades_all_time: u64,
} as const;

export const ALPHA_TAG_LIST = defineTable('alpha_tag_list', {
  tag_id: c.hex(),
  slug: c.text,
  label: c.text,
  words: textArray,
  is_category: c.bool,
  parent_slug: c.nullableText,
  children: textArray,
  subtag_count: c.u32,
  ...ROLLUP,
});

export const ALPHA_CATEGORY_LIST = defineTable('alpha_category_list', {
  category: c.text,
  slug: c.text,
  ...ROLLUP,
});

/** The catalog lists, by name. */
export const ALPHA_CATALOG_LIST_TABLES = {
  alpha_market_list: ALPHA_MARKET_LIST,
  alpha_event_list: ALPHA_EVENT_LIST,
  alpha_series_list: ALPHA_SERIES_LIST,
  alpha_tag_list: ALPHA_TAG_LIST,
  alpha_category_list: ALPHA_CATEGORY_LIST,
} as const;
