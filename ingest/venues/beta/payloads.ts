/**
 * TypeBox schemas of venue beta's records (schemas/upstream/beta-api.yaml, "Kalshi" trade API v2), limited
 * to the fields the ingestor keeps, each checked one record at a time (ingest/rest/records.ts): a record
 * that fails comes back with its reason for the quarantine and the others go on. Unknown fields are allowed.
 *
 * - Prices are fixed-point dollar strings (`*_dollars`, "0.5600"); counts fixed-point strings (`*_fp`,
 *   "13.00"), fractional when fractional trading is on; the integer cents and counts beside them are
 *   deprecated and not kept.
 * - Times are ISO 8601 strings.
 * - A record's id: a market's, series' or order book's `ticker`, an event's `event_ticker`, a trade's
 *   `trade_id`.
 */
import { type Static, Type } from '@sinclair/typebox';
import { type InvalidRecord, idText, recordChecker } from '../../rest/records.ts';

export type { InvalidRecord };

/** FixedPointDollars / FixedPointCount: a non-negative decimal string. */
const Fixed = Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' });
const Time = Type.String({ minLength: 1 });
const OptTime = Type.Optional(Type.Union([Type.String(), Type.Null()]));
const OptStr = Type.Optional(Type.Union([Type.String(), Type.Null()]));

/** The upstream's market statuses (beta-api.yaml); another value fails the record. */
export const MARKET_STATUSES = [
  'initialized',
  'inactive',
  'active',
  'closed',
  'determined',
  'disputed',
  'amended',
  'finalized',
] as const;
export type MarketStatus = (typeof MARKET_STATUSES)[number];

export const MarketPayload = Type.Object({
  ticker: Type.String({ minLength: 1 }),
  event_ticker: Type.String(),
  market_type: Type.Optional(Type.String()),
  title: Type.String(),
  yes_sub_title: Type.String(),
  no_sub_title: Type.String(),
  created_time: Time,
  updated_time: Time,
  open_time: Time,
  close_time: Time,
  expected_expiration_time: OptTime,
  status: Type.Union(MARKET_STATUSES.map((x) => Type.Literal(x))),
  notional_value_dollars: Fixed,
  yes_bid_dollars: Fixed,
  yes_ask_dollars: Fixed,
  no_bid_dollars: Fixed,
  no_ask_dollars: Fixed,
  last_price_dollars: Fixed,
  volume_fp: Fixed,
  open_interest_fp: Fixed,
  result: Type.String(),
  can_close_early: Type.Boolean(),
  settlement_ts: OptTime,
  /** Seconds from determination to settlement. */
  settlement_timer_seconds: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
  strike_type: OptStr,
  custom_strike: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  mve_collection_ticker: OptStr,
});
export type MarketPayload = Static<typeof MarketPayload>;

export const EventPayload = Type.Object({
  event_ticker: Type.String({ minLength: 1 }),
  series_ticker: Type.String(),
  title: Type.String(),
  sub_title: Type.String(),
  category: Type.String(),
  mutually_exclusive: Type.Boolean(),
  collateral_return_type: Type.String(),
  strike_date: OptTime,
});
export type EventPayload = Static<typeof EventPayload>;

export const SeriesPayload = Type.Object({
  ticker: Type.String({ minLength: 1 }),
  frequency: Type.String(),
  title: Type.String(),
  category: Type.String(),
  tags: Type.Union([Type.Array(Type.String()), Type.Null()]),
  settlement_sources: Type.Union([
    Type.Array(Type.Object({ name: Type.Optional(Type.String()), url: Type.Optional(Type.String()) })),
    Type.Null(),
  ]),
  contract_url: Type.String(),
  contract_terms_url: Type.String(),
  fee_type: Type.String(),
  fee_multiplier: Type.Number(),
  volume_fp: Type.Optional(Fixed),
});
export type SeriesPayload = Static<typeof SeriesPayload>;

export const TradePayload = Type.Object({
  trade_id: Type.String({ minLength: 1 }),
  ticker: Type.String({ minLength: 1 }),
  count_fp: Fixed,
  yes_price_dollars: Fixed,
  no_price_dollars: Fixed,
  taker_side: Type.Union([Type.Literal('yes'), Type.Literal('no')]),
  created_time: Time,
});
export type TradePayload = Static<typeof TradePayload>;

/** A price level of `orderbook_fp`: [dollars, contracts], both fixed-point strings. */
const Level = Type.Tuple([Fixed, Fixed]);

/** One market's book of `/markets/orderbooks`: its YES bids and NO bids (no asks), any order. */
export const OrderbookPayload = Type.Object({
  ticker: Type.String({ minLength: 1 }),
  orderbook_fp: Type.Object({ yes_dollars: Type.Array(Level), no_dollars: Type.Array(Level) }),
});
export type OrderbookPayload = Static<typeof OrderbookPayload>;

/** A price outside (0, 1] fails the book. */
const badPrice = (b: OrderbookPayload): string | null => {
  for (const [price] of [...b.orderbook_fp.yes_dollars, ...b.orderbook_fp.no_dollars]) {
    const p = Number(price);
    if (!(p > 0 && p <= 1)) return `price ${price} outside (0, 1]`;
  }
  return null;
};

const validTime = (...values: (string | null | undefined)[]): string | null => {
  for (const v of values) {
    if (v !== null && v !== undefined && v !== '' && !Number.isFinite(Date.parse(v)))
      return `unreadable time ${v}`;
  }
  return null;
};

export const CHECKERS = {
  market: recordChecker(
    'market',
    MarketPayload,
    (r) => idText(r.ticker),
    (m) =>
      validTime(
        m.created_time,
        m.updated_time,
        m.open_time,
        m.close_time,
        m.expected_expiration_time,
        m.settlement_ts,
      ),
  ),
  event: recordChecker(
    'event',
    EventPayload,
    (r) => idText(r.event_ticker),
    (e) => validTime(e.strike_date),
  ),
  series: recordChecker('series', SeriesPayload, (r) => idText(r.ticker)),
  orderbook: recordChecker('orderbook', OrderbookPayload, (r) => idText(r.ticker), badPrice),
  trade: recordChecker(
    'trade',
    TradePayload,
    (r) => idText(r.trade_id),
    (t) => validTime(t.created_time),
  ),
} as const;
