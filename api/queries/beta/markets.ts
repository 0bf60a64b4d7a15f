/**
 * `GET /v2/beta/markets` (interface-shapes §18.1) over `beta_markets` (schemas/tables/beta.ts): the
 * declaration of its filters and sorts for api/queries/venue-markets.ts, and the row → BetaMarket
 * mapping. `min_price` / `max_price` are integer cents on the last price; the volume and open-interest
 * floors are whole dollars (`dollar_volume`, `dollar_open_interest`).
 */
import type { BetaMarket, BetaMarketSort, BetaMarketsQuery } from '../../../schemas/api/beta-markets.ts';
import { ApiError } from '../../errors.ts';
import type { RouteContext } from '../../routes/context.ts';
import type { PageInfo } from '../list.ts';
import { descKey, nullableTimeKeys, nullsLastKeys, type SortColumn } from '../sorted-page.ts';
import {
  isoFromMs,
  msOf,
  num,
  numOrNull,
  type VenueMarketsSpec,
  venueMarketsPage,
} from '../venue-markets.ts';

const byTicker: SortColumn = { expr: 'ticker', type: 'String', dir: 'asc' };

/** Columns of a row, in the order `toBetaMarket` reads them. */
const COLUMNS = [
  'ticker',
  'event_key',
  'title',
  'yes_subtitle',
  'no_subtitle',
  'status',
  'result',
  msOf('open_time'),
  msOf('close_time'),
  msOf('expected_expiration_time'),
  msOf('settlement_time'),
  msOf('determination_time'),
  'can_close_early',
  'strike_type',
  'custom_strike',
  'outcomes',
  'yes_bid',
  'yes_ask',
  'no_bid',
  'no_ask',
  'last_price',
  'volume',
  'open_interest',
  'dollar_volume',
  'dollar_open_interest',
  'series_ticker',
  'event_title',
  'event_subtitle',
  msOf('created_time'),
  msOf('updated_time'),
] as const;

export const BETA_MARKETS: VenueMarketsSpec<BetaMarketSort> = {
  venue: 'beta',
  table: 'beta_markets',
  key: { column: 'ticker', type: 'String' },
  columns: COLUMNS,
  filters: [
    // Cents against the 0–1 last price, rounded so that 0.29 and 29 cents compare equal.
    { param: 'min_price', kind: 'min', column: 'round(last_price * 100, 6)' },
    { param: 'max_price', kind: 'max', column: 'round(last_price * 100, 6)' },
    { param: 'min_open_interest', kind: 'min', column: 'dollar_open_interest' },
    { param: 'min_volume', kind: 'min', column: 'dollar_volume' },
    { param: 'ticker', kind: 'in', column: 'ticker' },
    { param: 'event_ticker', kind: 'in', column: 'event_key' },
    { param: 'series_ticker', kind: 'in', column: 'series_ticker' },
  ],
  sorts: {
    volume: [descKey('dollar_volume', 'Float64'), byTicker],
    open_interest: [descKey('dollar_open_interest', 'Float64'), byTicker],
    price_desc: [...nullsLastKeys('last_price', 'ifNull(last_price, 0)', 'Float64', 'desc'), byTicker],
    price_asc: [...nullsLastKeys('last_price', 'ifNull(last_price, 0)', 'Float64', 'asc'), byTicker],
    close_time: [...nullableTimeKeys('close_time', 'asc'), byTicker],
  },
  defaultSort: 'volume',
};

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const textOrNull = (v: unknown) => (v === null || v === undefined ? null : String(v));
const whole = (v: unknown) => Math.floor(num(v));

export function toBetaMarket(v: unknown[], canonicalIds: readonly string[]): BetaMarket {
  const [
    ticker,
    eventTicker,
    title,
    yesSub,
    noSub,
    status,
    result,
    open,
    close,
    expected,
    settled,
    determined,
  ] = v;
  const [canCloseEarly, strikeType, customStrike, outcomes, yesBid, yesAsk, noBid, noAsk, last] = v.slice(12);
  const [volume, oi, dollarVolume, dollarOi, series, eventTitle, eventSubtitle, created, updated] =
    v.slice(21);
  const labels = (outcomes as string[] | null)?.length ? (outcomes as string[]) : ['Yes', 'No'];
  const quotes = [
    [yesBid, yesAsk],
    [noBid, noAsk],
  ];
  return {
    ticker: String(ticker),
    event_ticker: text(eventTicker),
    market_id: null,
    title: text(title),
    yes_subtitle: text(yesSub),
    no_subtitle: text(noSub),
    status: String(status) as BetaMarket['status'],
    result: textOrNull(result) || null,
    open_time: isoFromMs(open),
    close_time: isoFromMs(close),
    expected_expiration_time: isoFromMs(expected),
    settlement_time: isoFromMs(settled),
    determination_time: isoFromMs(determined),
    can_close_early: Boolean(canCloseEarly),
    strike_type: textOrNull(strikeType) || null,
    custom_strike: textOrNull(customStrike) || null,
    outcomes: labels.map((label, i) => ({
      label,
      canonical_id: canonicalIds[i] || null,
      bid: numOrNull(quotes[i]?.[0]),
      ask: numOrNull(quotes[i]?.[1]),
    })),
    last_price: numOrNull(last),
    volume: whole(volume),
    open_interest: whole(oi),
    dollar_volume: whole(dollarVolume),
    dollar_open_interest: whole(dollarOi),
    event: {
      event_ticker: text(eventTicker),
      series_ticker: textOrNull(series) || null,
      title: text(eventTitle),
      subtitle: text(eventSubtitle),
    },
    created_at: isoFromMs(created),
    updated_at: isoFromMs(updated),
  };
}

export async function listBetaMarkets(
  ctx: RouteContext,
  q: BetaMarketsQuery,
): Promise<{ markets: BetaMarket[]; pagination: PageInfo }> {
  const { rows, pagination } = await venueMarketsPage(ctx, BETA_MARKETS, q, () => {
    if (q.min_price !== undefined && q.max_price !== undefined && q.min_price > q.max_price) {
      throw new ApiError(400, `min_price (${q.min_price}) is above max_price (${q.max_price})`);
    }
  });
  return { markets: rows.map((r) => toBetaMarket(r.values, r.canonicalIds)), pagination };
}
