/**
 * Venue beta's tables (schemas/clickhouse/035_beta.sql), written by its REST ingestor
 * (ingest/venues/beta/): one row per market ticker (`beta_markets`), event ticker (`beta_events`) and
 * series ticker (`beta_series`) written with `writeChanged`, the newest `observed_at` winning (read with
 * FINAL); `beta_trades` one row per trade id (only ids not yet stored are inserted). Times are Unix ms in
 * rows; prices 0–1; `volume`/`open_interest`/`count` contracts; `dollar_*` whole dollars. The columns up to
 * `tags` of beta_markets are the ones every `<venue>_markets` table shares (docs/venues.md).
 *
 * Inserted as JSONEachRow, so text arrays hold any UTF-8 and nullable prices are only ever written that way.
 */
import { type Column, c, defineTable } from '../../core/clickhouse/table.ts';

/** A column kind written as JSON only (no RowBinary writer of its own). */
const jsonOnly = <Ts, Rd = Ts>(ch: string, write: string) =>
  ({ ch, write, written: true }) as Column & { readonly ts?: Ts; readonly rd?: Rd };

/** Array(String) of any UTF-8 text (labels, tickers). */
const textArray = { ...c.hexArray, write: 'strArray' } as typeof c.hexArray;
const nullablePrices = jsonOnly<(number | null)[]>('Array(Nullable(Float64))', 'f64Array');
/** An exact decimal written as its text (JSONEachRow). */
const decimalColumn = <Ch extends string>(ch: Ch) => jsonOnly<string>(ch, 'decimal');

type Status = 'open' | 'closed' | 'resolved';

export const BETA_MARKETS = defineTable('beta_markets', {
  ticker: c.text,
  title: c.text,
  words: textArray,
  /** open | closed | resolved. */
  status: c.lowText<Status>(),
  /** ['Yes', 'No']. */
  outcomes: textArray,
  /** ['', '']: beta has no token ids. */
  token_ids: textArray,
  /** [yes, no] from the last trade price; nulls while the market has no trade. */
  prices: nullablePrices,
  /** = dollar_volume. */
  volume_usd: c.f64,
  /** = close_time. */
  end_time: c.nullableTime,
  created_time: c.nullableTime,
  /** The event's ticker. */
  event_key: c.text,
  event_title: c.text,
  /** yes_subtitle when the event is mutually exclusive with more than one market; else null. */
  group_label: c.nullableText,
  /** The event's category. */
  category: c.text,
  /** The series' tags. */
  tags: textArray,
  yes_subtitle: c.text,
  no_subtitle: c.text,
  /** yes | no once settled; null before. */
  result: c.nullableText,
  open_time: c.nullableTime,
  close_time: c.nullableTime,
  expected_expiration_time: c.nullableTime,
  settlement_time: c.nullableTime,
  /** settlement_ts − settlement_timer_seconds; null until settled. */
  determination_time: c.nullableTime,
  can_close_early: c.bool,
  strike_type: c.nullableText,
  /** The upstream's custom_strike object as JSON text; null when none. */
  custom_strike: c.nullableText,
  last_price: c.nullableF64,
  yes_bid: c.nullableF64,
  yes_ask: c.nullableF64,
  no_bid: c.nullableF64,
  no_ask: c.nullableF64,
  /** Contracts traded (volume_fp). */
  volume: c.f64,
  /** Contracts open (open_interest_fp). */
  open_interest: c.f64,
  /** floor(volume × notional_value_dollars). */
  dollar_volume: c.f64,
  /** floor(open_interest × notional_value_dollars). */
  dollar_open_interest: c.f64,
  series_ticker: c.text,
  event_subtitle: c.text,
  updated_time: c.nullableTime,
  content_hash: c.hex(),
  observed_at: c.time,
});

export const BETA_EVENTS = defineTable('beta_events', {
  event_ticker: c.text,
  series_ticker: c.text,
  title: c.text,
  words: textArray,
  subtitle: c.text,
  category: c.text,
  mutually_exclusive: c.bool,
  collateral_return_type: c.lowText(),
  strike_date: c.nullableTime,
  /** From its stored markets: open while any is open, resolved when all are, else closed. */
  status: c.lowText<Status>(),
  /** Its stored markets' tickers, sorted. */
  market_tickers: textArray,
  volume: c.f64,
  dollar_volume: c.f64,
  content_hash: c.hex(),
  observed_at: c.time,
});

export const BETA_SERIES = defineTable('beta_series', {
  ticker: c.text,
  title: c.text,
  words: textArray,
  frequency: c.lowText(),
  category: c.text,
  tags: textArray,
  /** The sources' names. */
  settlement_sources: textArray,
  contract_url: c.text,
  contract_terms_url: c.text,
  fee_type: c.lowText(),
  fee_multiplier: c.f64,
  /** Contracts traded over the series' markets. */
  volume: c.f64,
  content_hash: c.hex(),
  observed_at: c.time,
});

export const BETA_TRADES = defineTable('beta_trades', {
  trade_id: c.text,
  ticker: c.text,
  /** Contracts (count_fp). */
  count: c.f64,
  yes_price: c.f64,
  no_price: c.f64,
  /** yes | no. */
  taker_side: c.lowText<'yes' | 'no'>(),
  created_time: c.time,
  observed_at: c.time,
});

/**
 * beta's book feed message by message (schemas/clickhouse/044_orderbooks.sql, ingest/venues/beta/feed.ts):
 * snapshot rows (is_snapshot, delta = the level's size) and signed deltas of the yes and no bids.
 */
export const BETA_BOOK_TICKS = defineTable('beta_book_ticks', {
  ticker: c.text,
  ts: c.time,
  sid: c.u32,
  seq: c.u64n,
  side: c.enum8({ yes: 1, no: 2 }),
  /** Dollars, ≤ 4 decimals (a decimal string). */
  price: decimalColumn('Decimal(9, 4)'),
  /** Contracts, ≤ 2 decimals, signed (a decimal string); a snapshot row: the level's size. */
  delta: decimalColumn('Decimal(18, 2)'),
  is_snapshot: c.bool,
  resync: c.bool,
  received_at: c.time,
});

export const BETA_TABLES = { BETA_MARKETS, BETA_EVENTS, BETA_SERIES, BETA_TRADES, BETA_BOOK_TICKS } as const;
