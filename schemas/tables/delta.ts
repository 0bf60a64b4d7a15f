/**
 * Venue delta's tables (schemas/clickhouse/037_delta.sql), written by its REST ingestor
 * (ingest/venues/delta/) with `writeChanged`: one row per market id (`delta_markets`, a categorical
 * market's children included) and per categorical parent (`delta_events`), the newest `observed_at`
 * winning (read with FINAL). Times are Unix ms in rows; prices 0–1; amounts USD. The columns up to `tags`
 * of delta_markets are the ones every `<venue>_markets` table shares (docs/venues.md).
 *
 * Inserted as JSONEachRow, so text arrays hold any UTF-8 and the kinds below that
 * core/clickhouse/table.ts does not list (nullable prices, a nullable UInt64) are only written that way.
 */
import { type Column, c, defineTable } from '../../core/clickhouse/table.ts';

/** A column kind written as JSON only (no RowBinary writer of its own). */
const jsonOnly = <Ts, Rd = Ts>(ch: string, write: string) =>
  ({ ch, write, written: true }) as Column & { readonly ts?: Ts; readonly rd?: Rd };

/** Array(String) of any UTF-8 text (labels, ids). */
const textArray = { ...c.hexArray, write: 'strArray' } as typeof c.hexArray;
const nullablePrices = jsonOnly<(number | null)[]>('Array(Nullable(Float64))', 'f64Array');
const nullableU64 = jsonOnly<number | null, string | null>('Nullable(UInt64)', 'nullableU64');

const VERSION = {
  content_hash: c.hex(),
  observed_at: c.time,
} as const;

export const DELTA_MARKETS = defineTable('delta_markets', {
  market_id: c.u64n,
  title: c.text,
  words: textArray,
  /** open | closed | resolved. */
  status: c.lowText<'open' | 'closed' | 'resolved'>(),
  outcomes: textArray,
  token_ids: textArray,
  prices: nullablePrices,
  volume_usd: c.f64,
  /** The upstream's `cutoffAt`. */
  end_time: c.nullableTime,
  created_time: c.nullableTime,
  /** The categorical parent's marketId; '' for a binary market. */
  event_key: c.text,
  event_title: c.text,
  /** The child's `marketTitle` inside its categorical parent; null for a binary market. */
  group_label: c.nullableText,
  category: c.text,
  tags: textArray,
  slug: c.text,
  description: c.text,
  /** binary | categorical (an alternative of a categorical parent). */
  market_type: c.lowText<'binary' | 'categorical'>(),
  volume_24h_usd: c.f64,
  volume_7d_usd: c.f64,
  condition_id: c.text,
  question_id: c.text,
  result_token_id: c.nullableText,
  event_id: nullableU64,
  event_slug: c.nullableText,
  labels: textArray,
  thumbnail_url: c.text,
  chain_id: c.text,
  quote_token: c.text,
  collection_title: c.text,
  collection_symbol: c.text,
  collection_frequency: c.text,
  cutoff_time: c.nullableTime,
  resolved_time: c.nullableTime,
  ...VERSION,
});

export const DELTA_EVENTS = defineTable('delta_events', {
  event_id: c.u64n,
  title: c.text,
  words: textArray,
  description: c.text,
  status: c.lowText<'open' | 'closed' | 'resolved'>(),
  market_ids: textArray,
  volume_usd: c.f64,
  volume_24h_usd: c.f64,
  volume_7d_usd: c.f64,
  chain_id: c.text,
  quote_token: c.text,
  created_time: c.nullableTime,
  cutoff_time: c.nullableTime,
  resolved_time: c.nullableTime,
  ...VERSION,
});

export const DELTA_TABLES = { DELTA_MARKETS, DELTA_EVENTS } as const;
