/**
 * `GET /v2/beta/markets` (interface-shapes §18.1) over `beta_markets`: the page of the list beta's
 * contract declares (schemas/venues/beta.ts: columns, filters, sorts) through api/queries/venue-markets.ts,
 * beta's own 400 (min_price above max_price), and the row → BetaMarket mapping.
 */
import type { BetaMarket, BetaMarketsQuery } from '../../../schemas/api/beta-markets.ts';
import { BETA } from '../../../schemas/venues/beta.ts';
import { ApiError } from '../../errors.ts';
import type { RouteContext } from '../../routes/context.ts';
import type { PageInfo } from '../list.ts';
import { isoFromMs, num, numOrNull, venueMarketsPage } from '../venue-markets.ts';

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
  const { rows, pagination } = await venueMarketsPage(ctx, BETA, q, () => {
    if (q.min_price !== undefined && q.max_price !== undefined && q.min_price > q.max_price) {
      throw new ApiError(400, `min_price (${q.min_price}) is above max_price (${q.max_price})`);
    }
  });
  return { markets: rows.map((r) => toBetaMarket(r.values, r.canonicalIds)), pagination };
}
