/**
 * `GET /v2/beta/markets` (interface-shapes §18.1): query and response. beta's markets are binary
 * (outcomes `Yes`, `No`, in that order); prices and bids/asks are 0–1 decimals, while `min_price` /
 * `max_price` are integer cents 0–100 on the last price. Multivariate (parlay) markets are not ingested.
 */
import { type Static, Type } from '@sinclair/typebox';
import type { BetaListRow } from '../venues/beta.ts';
import { cursorQuery, Pagination, StringEnum } from './common.ts';
import { isoFromMs, num, numOrNull } from './values.ts';
import {
  canonicalIdParam,
  floorParam,
  isoTime,
  nullableNumber,
  nullableString,
  searchParam,
  servedStatus,
  statusParam,
  stringList,
} from './venue-markets.ts';

export const BETA_MARKET_SORTS = [
  'volume',
  'open_interest',
  'price_desc',
  'price_asc',
  'close_time',
] as const;
export type BetaMarketSort = (typeof BETA_MARKET_SORTS)[number];

const cents = (description: string) => Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description }));

export const BetaMarketsQuery = Type.Object({
  status: statusParam(),
  min_price: cents(
    'Minimum last price in cents (0–100, inclusive); markets without a last price never match',
  ),
  max_price: cents('Maximum last price in cents (0–100, inclusive); min_price above max_price is a 400'),
  min_open_interest: floorParam('Minimum open interest, whole dollars (dollar_open_interest)', true),
  min_volume: floorParam('Minimum lifetime volume, whole dollars (dollar_volume)', true),
  search: searchParam(),
  ticker: stringList('Market ticker'),
  event_ticker: stringList('Event ticker'),
  series_ticker: stringList('Series ticker'),
  canonical_id: canonicalIdParam(),
  sort: Type.Optional(
    StringEnum(BETA_MARKET_SORTS, {
      default: 'volume',
      description:
        'volume (dollar volume, default), open_interest (dollar open interest), price_desc / price_asc (last ' +
        'price; markets without one last either way), close_time (soonest close first; none last). Ties by ticker',
    }),
  ),
  ...cursorQuery({ min: 1, max: 100, default: 20 }),
});
export type BetaMarketsQuery = Static<typeof BetaMarketsQuery>;

export const BetaOutcome = Type.Object(
  {
    label: Type.String({ description: 'Yes or No' }),
    canonical_id: Type.Union([Type.String({ pattern: '^pmc_[a-z2-7]{12}$' }), Type.Null()], {
      description: 'Stable identifier of this real-world outcome across venues (pmc_ + 12 base32 characters)',
    }),
    bid: nullableNumber('Best bid, 0–1'),
    ask: nullableNumber('Best ask, 0–1'),
  },
  { title: 'BetaOutcome' },
);

export const BetaMarketEvent = Type.Object({
  event_ticker: Type.String(),
  series_ticker: nullableString(),
  title: Type.String({ default: '' }),
  subtitle: Type.String({ default: '' }),
});

export const BetaMarket = Type.Object(
  {
    ticker: Type.String(),
    event_ticker: Type.String(),
    market_id: nullableString('Not published by the venue: null'),
    title: Type.String(),
    yes_subtitle: Type.String({ default: '' }),
    no_subtitle: Type.String({ default: '' }),
    status: servedStatus(),
    result: nullableString('Settlement result (yes, no, ...); null until settled'),
    open_time: isoTime(),
    close_time: isoTime(),
    expected_expiration_time: isoTime(),
    settlement_time: isoTime(),
    determination_time: isoTime(),
    can_close_early: Type.Boolean({ default: false }),
    strike_type: nullableString(),
    custom_strike: nullableString(),
    outcomes: Type.Array(BetaOutcome),
    last_price: nullableNumber('Last traded price, 0–1'),
    volume: Type.Integer({ default: 0, description: 'Lifetime contracts traded' }),
    open_interest: Type.Integer({ default: 0, description: 'Contracts outstanding' }),
    dollar_volume: Type.Integer({ default: 0 }),
    dollar_open_interest: Type.Integer({ default: 0 }),
    event: BetaMarketEvent,
    created_at: isoTime(),
    updated_at: isoTime(),
  },
  { title: 'BetaMarket' },
);
export type BetaMarket = Static<typeof BetaMarket>;

export const BetaMarketsResponse = Type.Object({ markets: Type.Array(BetaMarket), pagination: Pagination });

// ---- the row → BetaMarket mapping (the list's named columns: schemas/venues/beta.ts) ----

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const textOrNull = (v: unknown) => (v === null || v === undefined ? null : String(v));
const whole = (v: unknown) => Math.floor(num(v));

/** One row of the list (its named columns) and its outcomes' canonical ids → the resource. */
export function toBetaMarket(r: BetaListRow, canonicalIds: readonly string[]): BetaMarket {
  const labels = r.outcomes?.length ? r.outcomes : ['Yes', 'No'];
  const quotes = [
    [r.yes_bid, r.yes_ask],
    [r.no_bid, r.no_ask],
  ];
  return {
    ticker: String(r.ticker),
    event_ticker: text(r.event_key),
    market_id: null,
    title: text(r.title),
    yes_subtitle: text(r.yes_subtitle),
    no_subtitle: text(r.no_subtitle),
    status: String(r.status) as BetaMarket['status'],
    result: textOrNull(r.result) || null,
    open_time: isoFromMs(r.open_time_ms),
    close_time: isoFromMs(r.close_time_ms),
    expected_expiration_time: isoFromMs(r.expected_expiration_time_ms),
    settlement_time: isoFromMs(r.settlement_time_ms),
    determination_time: isoFromMs(r.determination_time_ms),
    can_close_early: Boolean(r.can_close_early),
    strike_type: textOrNull(r.strike_type) || null,
    custom_strike: textOrNull(r.custom_strike) || null,
    outcomes: labels.map((label, i) => ({
      label,
      canonical_id: canonicalIds[i] || null,
      bid: numOrNull(quotes[i]?.[0]),
      ask: numOrNull(quotes[i]?.[1]),
    })),
    last_price: numOrNull(r.last_price),
    volume: whole(r.volume),
    open_interest: whole(r.open_interest),
    dollar_volume: whole(r.dollar_volume),
    dollar_open_interest: whole(r.dollar_open_interest),
    event: {
      event_ticker: text(r.event_key),
      series_ticker: textOrNull(r.series_ticker) || null,
      title: text(r.event_title),
      subtitle: text(r.event_subtitle),
    },
    created_at: isoFromMs(r.created_time_ms),
    updated_at: isoFromMs(r.updated_time_ms),
  };
}
