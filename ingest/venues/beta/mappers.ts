/**
 * Venue beta's records → rows of beta_markets, beta_events, beta_series and beta_trades
 * (schemas/tables/beta.ts):
 *
 * - prices: the `*_dollars` strings as numbers (0–1); `prices` = [last, 1 − last] once the market has
 *   traded (`volume_fp` > 0), [null, null] before (the upstream serves a last price of 0 then);
 * - `volume` / `open_interest`: the fixed-point counts (`volume_fp`, `open_interest_fp`) in contracts;
 *   `dollar_volume` / `dollar_open_interest` = contracts × `notional_value_dollars`, floored to whole
 *   dollars; `volume_usd` = `dollar_volume`;
 * - `status`: initialized, inactive (paused) or active → open; closed or disputed → closed; determined,
 *   amended or finalized → resolved; `result` '' → null;
 * - the event gives `event_title`, `event_subtitle`, `series_ticker` and `category`, the series `tags`;
 *   `group_label` is `yes_sub_title` when the event is mutually exclusive and has more than one market;
 * - `custom_strike` (an object upstream) is stored as its JSON text;
 * - `determination_time` = `settlement_ts` − `settlement_timer_seconds` (the upstream settles a market
 *   that long after its determination); null until the market is settled (`settlement_ts` served).
 */
import type { RowOf } from '../../../core/clickhouse/table.ts';
import { searchWords } from '../../../core/search-words.ts';
import type { BETA_EVENTS, BETA_MARKETS, BETA_SERIES, BETA_TRADES } from '../../../schemas/tables/beta.ts';
import type { EventPayload, MarketPayload, MarketStatus, SeriesPayload, TradePayload } from './payloads.ts';

export type BetaMarketRow = Omit<RowOf<typeof BETA_MARKETS>, 'content_hash' | 'observed_at'>;
export type BetaEventRow = Omit<RowOf<typeof BETA_EVENTS>, 'content_hash' | 'observed_at'>;
export type BetaSeriesRow = Omit<RowOf<typeof BETA_SERIES>, 'content_hash' | 'observed_at'>;
export type BetaTradeRow = Omit<RowOf<typeof BETA_TRADES>, 'observed_at'>;
export type Status = 'open' | 'closed' | 'resolved';

/** What a market row takes from its event (a record read now, or the stored row). */
export interface EventInfo {
  title: string;
  subtitle: string;
  series_ticker: string;
  category: string;
  mutually_exclusive: boolean;
  /** Markets the event holds (read or stored). */
  markets: number;
}

/** A served time as Unix ms; null when absent or unreadable. */
export function timeOf(value: string | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const t = Date.parse(value);
  return Number.isFinite(t) ? t : null;
}

/** A fixed-point string as a number (12 significant digits, no float noise). */
export function fixed(value: string | null | undefined): number {
  if (value === null || value === undefined || value === '') return 0;
  return Number(Number(value).toPrecision(12));
}

export function statusOf(s: MarketStatus): Status {
  switch (s) {
    case 'initialized':
    case 'inactive':
    case 'active':
      return 'open';
    case 'closed':
    case 'disputed':
      return 'closed';
    default:
      return 'resolved';
  }
}

/** Contracts × the contract's face value, floored to whole dollars. */
export function wholeDollars(contracts: number, notional: number): number {
  return Math.floor(Number((contracts * notional).toPrecision(12)));
}

/** A multivariate (combination) market: not listed (interface-shapes §18.1). */
export function isMultivariate(m: MarketPayload): boolean {
  return typeof m.mve_collection_ticker === 'string' && m.mve_collection_ticker !== '';
}

/** When the market was determined: its settlement time minus the settlement timer (null before). */
export function determinationOf(m: MarketPayload): number | null {
  const settled = timeOf(m.settlement_ts);
  const timer = m.settlement_timer_seconds;
  if (settled === null || timer === null || timer === undefined) return null;
  return settled - timer * 1000;
}

export function marketRow(m: MarketPayload, event: EventInfo | null, tags: readonly string[]): BetaMarketRow {
  const volume = fixed(m.volume_fp);
  const openInterest = fixed(m.open_interest_fp);
  const notional = fixed(m.notional_value_dollars);
  const traded = volume > 0;
  const last = traded ? fixed(m.last_price_dollars) : null;
  const dollarVolume = wholeDollars(volume, notional);
  return {
    ticker: m.ticker,
    title: m.title,
    words: searchWords(m.title),
    status: statusOf(m.status),
    outcomes: ['Yes', 'No'],
    token_ids: ['', ''],
    prices: last === null ? [null, null] : [last, Number((1 - last).toPrecision(12))],
    volume_usd: dollarVolume,
    end_time: timeOf(m.close_time),
    created_time: timeOf(m.created_time),
    event_key: m.event_ticker,
    event_title: event?.title ?? '',
    group_label: event?.mutually_exclusive && event.markets > 1 ? m.yes_sub_title : null,
    category: event?.category ?? '',
    tags: [...tags],
    yes_subtitle: m.yes_sub_title,
    no_subtitle: m.no_sub_title,
    result: m.result === '' ? null : m.result,
    open_time: timeOf(m.open_time),
    close_time: timeOf(m.close_time),
    expected_expiration_time: timeOf(m.expected_expiration_time),
    settlement_time: timeOf(m.settlement_ts),
    determination_time: determinationOf(m),
    can_close_early: m.can_close_early,
    strike_type: m.strike_type ?? null,
    custom_strike: m.custom_strike ? JSON.stringify(m.custom_strike) : null,
    last_price: last,
    yes_bid: fixed(m.yes_bid_dollars),
    yes_ask: fixed(m.yes_ask_dollars),
    no_bid: fixed(m.no_bid_dollars),
    no_ask: fixed(m.no_ask_dollars),
    volume,
    open_interest: openInterest,
    dollar_volume: dollarVolume,
    dollar_open_interest: wholeDollars(openInterest, notional),
    series_ticker: event?.series_ticker ?? '',
    event_subtitle: event?.subtitle ?? '',
    updated_time: timeOf(m.updated_time),
  };
}

/** The event's status from its markets': open while any is open, resolved when all are, else closed. */
export function eventStatus(statuses: readonly string[]): Status {
  if (statuses.length === 0 || statuses.some((s) => s === 'open')) return 'open';
  return statuses.every((s) => s === 'resolved') ? 'resolved' : 'closed';
}

export interface EventMarkets {
  tickers: string[];
  statuses: string[];
  volume: number;
  dollarVolume: number;
}

export function eventRow(e: EventPayload, markets: EventMarkets): BetaEventRow {
  return {
    event_ticker: e.event_ticker,
    series_ticker: e.series_ticker,
    title: e.title,
    words: searchWords(e.title),
    subtitle: e.sub_title,
    category: e.category,
    mutually_exclusive: e.mutually_exclusive,
    collateral_return_type: e.collateral_return_type,
    strike_date: timeOf(e.strike_date),
    status: eventStatus(markets.statuses),
    market_tickers: [...markets.tickers].sort(),
    volume: Number(markets.volume.toFixed(2)),
    dollar_volume: markets.dollarVolume,
  };
}

export function eventInfo(e: EventPayload, markets: number): EventInfo {
  return {
    title: e.title,
    subtitle: e.sub_title,
    series_ticker: e.series_ticker,
    category: e.category,
    mutually_exclusive: e.mutually_exclusive,
    markets,
  };
}

export function seriesRow(s: SeriesPayload): BetaSeriesRow {
  return {
    ticker: s.ticker,
    title: s.title,
    words: searchWords(s.title),
    frequency: s.frequency,
    category: s.category,
    tags: [...(s.tags ?? [])],
    settlement_sources: (s.settlement_sources ?? []).map((x) => x.name ?? x.url ?? ''),
    contract_url: s.contract_url,
    contract_terms_url: s.contract_terms_url,
    fee_type: s.fee_type,
    fee_multiplier: s.fee_multiplier,
    volume: fixed(s.volume_fp),
  };
}

export function tradeRow(t: TradePayload): BetaTradeRow {
  return {
    trade_id: t.trade_id,
    ticker: t.ticker,
    count: fixed(t.count_fp),
    yes_price: fixed(t.yes_price_dollars),
    no_price: fixed(t.no_price_dollars),
    taker_side: t.taker_side,
    created_time: timeOf(t.created_time) ?? 0,
  };
}
