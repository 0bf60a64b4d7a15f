/**
 * Venue gamma's tables (schemas/clickhouse/036_gamma.sql), written by its REST ingestor
 * (ingest/venues/gamma/) with `writeChanged`: one row per market slug (`gamma_markets`, the markets of a
 * group included) and per group slug (`gamma_events`), the newest `observed_at` winning (read with
 * FINAL). Times are Unix ms in rows; prices 0–1; amounts USD. The columns up to `tags` of gamma_markets
 * are the ones every `<venue>_markets` table shares (docs/venues.md).
 *
 * Inserted as JSONEachRow (a few hundred rows at a time), so text arrays hold any UTF-8 and the kinds
 * below that core/clickhouse/table.ts does not list (nullable prices, a nullable UInt64, small integer
 * arrays) are only ever written that way.
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

export const GAMMA_MARKETS = defineTable('gamma_markets', {
  slug: c.text,
  title: c.text,
  words: textArray,
  /** open | closed | resolved. */
  status: c.lowText<'open' | 'closed' | 'resolved'>(),
  outcomes: textArray,
  /** '' where the market has no token ids (amm markets). */
  token_ids: textArray,
  prices: nullablePrices,
  volume_usd: c.f64,
  end_time: c.nullableTime,
  created_time: c.nullableTime,
  /** The group's slug; '' for a single market. */
  event_key: c.text,
  event_title: c.text,
  /** The market's title inside its group; null for a single market. */
  group_label: c.nullableText,
  /** The first of `categories` ('' when none). */
  category: c.text,
  tags: textArray,
  condition_id: c.hex(),
  market_id: nullableU64,
  description: c.text,
  /** amm | clob. */
  trade_type: c.lowText<'amm' | 'clob'>(),
  /** Null for clob markets, a number for amm markets. */
  open_interest_usd: c.nullableF64,
  liquidity_usd: c.f64,
  image_url: c.text,
  categories: textArray,
  collateral_address: c.hex(),
  collateral_symbol: c.text,
  collateral_decimals: c.u8(),
  market_address: c.nullableHex,
  exchange_address: c.nullableHex,
  expired: c.bool,
  winning_outcome: nullableU8,
  payout_numerators: u32Array,
  resolution_block: nullableU64,
  resolution_tx: c.nullableHex,
  expiration_time: c.nullableTime,
  updated_time: c.nullableTime,
  ...VERSION,
});

export const GAMMA_EVENTS = defineTable('gamma_events', {
  slug: c.text,
  id: nullableU64,
  title: c.text,
  words: textArray,
  description: c.text,
  status: c.lowText<'open' | 'closed' | 'resolved'>(),
  trade_type: c.lowText(),
  market_slugs: textArray,
  volume_usd: c.f64,
  liquidity_usd: c.f64,
  category: c.text,
  categories: textArray,
  tags: textArray,
  expired: c.bool,
  expiration_time: c.nullableTime,
  created_time: c.nullableTime,
  ...VERSION,
});

export const GAMMA_TABLES = { GAMMA_MARKETS, GAMMA_EVENTS } as const;
