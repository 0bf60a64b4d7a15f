/**
 * Venue alpha's catalog tables (schemas/clickhouse/028_alpha_catalog.sql), written by the metadata sync
 * (ingest/venues/alpha/metadata/): one row per upstream id, the newest `observed_at` winning (read with
 * FINAL). Ids are the upstream's decimal strings; times are Unix ms in rows (NULL when the upstream gives
 * none); `content_hash` is the SHA-256 (hex) of the row without `observed_at`.
 *
 * These tables are inserted as JSONEachRow (the sync writes a few hundred rows at a time), so their text
 * arrays hold any UTF-8 (`textArray`), which a RowBinary encoder of them would not write.
 */
import { c, defineTable } from '../../core/clickhouse/table.ts';

/** Array(String) of any UTF-8 text (outcome labels, ids, slugs). */
const textArray = { ...c.hexArray, write: 'strArray' } as typeof c.hexArray;

const VERSION = {
  content_hash: c.hex(),
  observed_at: c.time,
} as const;

/** `/events` records (markets, series and tags nested in them are kept by id). */
export const ALPHA_EVENTS = defineTable('alpha_events', {
  id: c.hex(),
  ticker: c.text,
  slug: c.text,
  title: c.text,
  subtitle: c.text,
  description: c.text,
  resolution_source: c.text,
  category: c.text,
  image: c.text,
  icon: c.text,
  start_date: c.nullableTime,
  creation_date: c.nullableTime,
  end_date: c.nullableTime,
  closed_time: c.nullableTime,
  created_at: c.nullableTime,
  updated_at: c.nullableTime,
  active: c.bool,
  closed: c.bool,
  archived: c.bool,
  featured: c.bool,
  restricted: c.bool,
  neg_risk: c.bool,
  enable_neg_risk: c.bool,
  neg_risk_augmented: c.bool,
  neg_risk_market_id: c.nullableHex,
  neg_risk_fee_bips: c.u32,
  liquidity: c.f64,
  liquidity_clob: c.f64,
  volume: c.f64,
  volume_24hr: c.f64,
  volume_1wk: c.f64,
  volume_1mo: c.f64,
  volume_1yr: c.f64,
  open_interest: c.f64,
  competitive: c.f64,
  comment_count: c.u32,
  sort_by: c.text,
  series_slug: c.text,
  series_ids: textArray,
  tag_ids: textArray,
  market_ids: textArray,
  /** Sports events: the game's start and date. */
  start_time: c.nullableTime,
  event_date: c.text,
  ...VERSION,
});

/** Markets, as nested in `/events` (`event_id` is the parent event's id). */
export const ALPHA_MARKETS = defineTable('alpha_markets', {
  id: c.hex(),
  event_id: c.hex(),
  condition_id: c.hex(),
  question_id: c.hex(),
  slug: c.text,
  question: c.text,
  description: c.text,
  resolution_source: c.text,
  category: c.text,
  image: c.text,
  icon: c.text,
  outcomes: textArray,
  /** Decimal strings, as the upstream gives them. */
  outcome_prices: textArray,
  short_outcomes: textArray,
  clob_token_ids: textArray,
  group_item_title: c.text,
  /** The neg-risk index of a neg-risk market ("0" otherwise), as the upstream gives it. */
  group_item_threshold: c.text,
  market_type: c.text,
  start_date: c.nullableTime,
  end_date: c.nullableTime,
  closed_time: c.nullableTime,
  created_at: c.nullableTime,
  updated_at: c.nullableTime,
  active: c.bool,
  closed: c.bool,
  archived: c.bool,
  restricted: c.bool,
  accepting_orders: c.bool,
  enable_order_book: c.bool,
  automatically_resolved: c.bool,
  neg_risk: c.bool,
  neg_risk_other: c.bool,
  neg_risk_market_id: c.nullableHex,
  neg_risk_request_id: c.nullableHex,
  uma_resolution_status: c.text,
  uma_resolution_statuses: textArray,
  resolved_by: c.hex(),
  order_price_min_tick_size: c.f64,
  order_min_size: c.f64,
  maker_base_fee: c.f64,
  taker_base_fee: c.f64,
  liquidity: c.f64,
  volume: c.f64,
  volume_24hr: c.f64,
  volume_1wk: c.f64,
  volume_1mo: c.f64,
  volume_1yr: c.f64,
  competitive: c.f64,
  spread: c.f64,
  best_bid: c.f64,
  best_ask: c.f64,
  last_trade_price: c.f64,
  one_day_price_change: c.f64,
  one_week_price_change: c.f64,
  game_id: c.text,
  sports_market_type: c.text,
  game_start_time: c.nullableTime,
  team_a_id: c.text,
  team_b_id: c.text,
  ...VERSION,
});

/** `/series` records (`event_ids`: the events the upstream lists in them). */
export const ALPHA_SERIES = defineTable('alpha_series', {
  id: c.hex(),
  ticker: c.text,
  slug: c.text,
  title: c.text,
  series_type: c.text,
  recurrence: c.text,
  layout: c.text,
  image: c.text,
  icon: c.text,
  active: c.bool,
  closed: c.bool,
  archived: c.bool,
  featured: c.bool,
  restricted: c.bool,
  published_at: c.nullableTime,
  created_at: c.nullableTime,
  updated_at: c.nullableTime,
  start_date: c.nullableTime,
  volume: c.f64,
  volume_24hr: c.f64,
  liquidity: c.f64,
  comment_count: c.u32,
  event_ids: textArray,
  ...VERSION,
});

/** `/tags` records. */
export const ALPHA_TAGS = defineTable('alpha_tags', {
  id: c.hex(),
  label: c.text,
  slug: c.text,
  force_show: c.bool,
  force_hide: c.bool,
  is_carousel: c.bool,
  published_at: c.nullableTime,
  created_at: c.nullableTime,
  updated_at: c.nullableTime,
  ...VERSION,
});

/** `/tags/{id}/related-tags` records, by relation id. */
export const ALPHA_TAG_RELATIONS = defineTable('alpha_tag_relations', {
  id: c.hex(),
  tag_id: c.hex(),
  related_tag_id: c.hex(),
  rank: c.u32,
  ...VERSION,
});

/** Every table of the catalog sync, by name. */
export const ALPHA_CATALOG_TABLES = {
  alpha_events: ALPHA_EVENTS,
  alpha_markets: ALPHA_MARKETS,
  alpha_series: ALPHA_SERIES,
  alpha_tags: ALPHA_TAGS,
  alpha_tag_relations: ALPHA_TAG_RELATIONS,
} as const;
