/**
 * Venue epsilon's tables (schemas/clickhouse/038_epsilon.sql), written by its REST ingestor
 * (ingest/venues/epsilon/) with `writeChanged`: one row per market id (`epsilon_markets`), event id
 * (`epsilon_events`) and tag id (`epsilon_tags`), the newest `observed_at` winning (read with FINAL).
 * Times are Unix ms in rows; prices 0–1; amounts USD; depths contracts. The columns up to `tags` of
 * epsilon_markets are the ones every `<venue>_markets` table shares (docs/venues.md).
 *
 * Inserted as JSONEachRow, so text arrays hold any UTF-8 and the kinds below that
 * core/clickhouse/table.ts does not list (nullable prices, nullable integers, small integer arrays) are
 * only written that way.
 */
import { type Column, c, defineTable } from '../../core/clickhouse/table.ts';

/** A column kind written as JSON only (no RowBinary writer of its own). */
const jsonOnly = <Ts, Rd = Ts>(ch: string, write: string) =>
  ({ ch, write, written: true }) as Column & { readonly ts?: Ts; readonly rd?: Rd };

/** Array(String) of any UTF-8 text (labels, slugs, ids). */
const textArray = { ...c.hexArray, write: 'strArray' } as typeof c.hexArray;
const nullablePrices = jsonOnly<(number | null)[]>('Array(Nullable(Float64))', 'f64Array');
const nullableU64 = jsonOnly<number | null, string | null>('Nullable(UInt64)', 'nullableU64');
const nullableU8 = jsonOnly<number | null>('Nullable(UInt8)', 'nullableU8');
const u32Array = jsonOnly<number[]>('Array(UInt32)', 'u32Array');

const VERSION = {
  content_hash: c.hex(),
  observed_at: c.time,
} as const;

export const EPSILON_MARKETS = defineTable('epsilon_markets', {
  market_id: c.u64n,
  title: c.text,
  words: textArray,
  /** open | closed | resolved. */
  status: c.lowText<'open' | 'closed' | 'resolved'>(),
  outcomes: textArray,
  token_ids: textArray,
  /** The served `outcomePrices`. */
  prices: nullablePrices,
  volume_usd: c.f64,
  /** The upstream's `endDate`. */
  end_time: c.nullableTime,
  /** The upstream's `startDate`. */
  created_time: c.nullableTime,
  /** The event's id. */
  event_key: c.text,
  event_title: c.text,
  /** `groupItemTitle` in an event of several markets; null otherwise. */
  group_label: c.nullableText,
  category: c.text,
  /** The event's tag labels. */
  tags: textArray,
  market_slug: c.text,
  condition_id: c.text,
  question_id: c.text,
  description: c.text,
  market_variant: c.lowText(),
  best_bid: c.nullableF64,
  best_ask: c.nullableF64,
  outcome_best_bids: nullablePrices,
  outcome_best_asks: nullablePrices,
  /** Total contracts bid / asked on the YES token's book (0 when not trading). */
  bid_depth: c.f64,
  ask_depth: c.f64,
  last_trade_price: c.nullableF64,
  is_yield_bearing: c.bool,
  is_neg_risk: c.bool,
  event_slug: c.text,
  image_url: c.text,
  winning_outcome: nullableU8,
  payout_numerators: u32Array,
  resolution_block: nullableU64,
  resolution_tx: c.nullableText,
  resolved_time: c.nullableTime,
  updated_time: c.nullableTime,
  ...VERSION,
});

export const EPSILON_EVENTS = defineTable('epsilon_events', {
  event_id: c.u64n,
  slug: c.text,
  title: c.text,
  words: textArray,
  description: c.text,
  status: c.lowText<'open' | 'closed' | 'resolved'>(),
  market_ids: textArray,
  volume_usd: c.f64,
  neg_risk: c.bool,
  tags: textArray,
  start_time: c.nullableTime,
  end_time: c.nullableTime,
  created_time: c.nullableTime,
  ...VERSION,
});

export const EPSILON_TAGS = defineTable('epsilon_tags', {
  tag_id: c.u64n,
  label: c.text,
  slug: c.text,
  ...VERSION,
});

export const EPSILON_TABLES = { EPSILON_MARKETS, EPSILON_EVENTS, EPSILON_TAGS } as const;
