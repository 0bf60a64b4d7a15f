/**
 * alpha metadata records → rows of the catalog tables (schemas/tables/alpha-catalog.ts), without their
 * version columns (`content_hash`, `observed_at`: the sync adds them). Absent values become '', 0, false,
 * [] or null (times); times are Unix ms, read from ISO 8601 or the upstream's Postgres form
 * (`2026-04-01 12:00:00+00`); JSON-encoded arrays are decoded.
 */
import type { RowOf } from '../../../../core/clickhouse/table.ts';
import type {
  ALPHA_EVENTS,
  ALPHA_MARKETS,
  ALPHA_SERIES,
  ALPHA_TAG_RELATIONS,
  ALPHA_TAGS,
} from '../../../../schemas/tables/alpha-catalog.ts';
import type { EventRecord } from './client.ts';
import {
  type EventPayload,
  jsonStringArray,
  type MarketPayload,
  type RelatedTagPayload,
  type SeriesPayload,
  type TagPayload,
} from './payloads.ts';

type Unversioned<R> = Omit<R, 'content_hash' | 'observed_at'>;
export type EventRow = Unversioned<RowOf<typeof ALPHA_EVENTS>>;
export type MarketRow = Unversioned<RowOf<typeof ALPHA_MARKETS>>;
export type SeriesRow = Unversioned<RowOf<typeof ALPHA_SERIES>>;
export type TagRow = Unversioned<RowOf<typeof ALPHA_TAGS>>;
export type TagRelationRow = Unversioned<RowOf<typeof ALPHA_TAG_RELATIONS>>;

/** Unix ms of an upstream time (ISO 8601, a date, or `YYYY-MM-DD HH:MM:SS[.f]+00`); null when absent. */
export function parseTime(value: string | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  let v = value.trim();
  const pg = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?)([+-]\d{2})(?::?(\d{2}))?$/.exec(v);
  if (pg) v = `${pg[1]}T${pg[2]}${pg[3]}:${pg[4] ?? '00'}`;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : null;
}

const str = (v: string | null | undefined): string => v ?? '';
const bool = (v: boolean | null | undefined): boolean => v ?? false;
const num = (v: number | string | null | undefined): number => {
  if (v === null || v === undefined || v === '') return 0;
  const x = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(x) ? x : 0;
};
const uint = (v: number | string | null | undefined): number => Math.max(0, Math.trunc(num(v)));
const arr = (v: string | null | undefined): string[] => jsonStringArray(v) ?? [];
/** Ids of nested records (`[{id}]`), in the upstream's order. */
const ids = (list: readonly unknown[] | null | undefined): string[] =>
  (list ?? []).flatMap((x) =>
    x && typeof x === 'object' && typeof (x as { id?: unknown }).id === 'string'
      ? [(x as { id: string }).id]
      : [],
  );

export function eventRow(e: EventPayload): EventRow {
  return {
    id: e.id,
    ticker: str(e.ticker),
    slug: str(e.slug),
    title: str(e.title),
    subtitle: str(e.subtitle),
    description: str(e.description),
    resolution_source: str(e.resolutionSource),
    category: str(e.category),
    image: str(e.image),
    icon: str(e.icon),
    start_date: parseTime(e.startDate),
    creation_date: parseTime(e.creationDate),
    end_date: parseTime(e.endDate),
    closed_time: parseTime(e.closedTime),
    created_at: parseTime(e.createdAt),
    updated_at: parseTime(e.updatedAt),
    active: bool(e.active),
    closed: bool(e.closed),
    archived: bool(e.archived),
    featured: bool(e.featured),
    restricted: bool(e.restricted),
    neg_risk: bool(e.negRisk),
    enable_neg_risk: bool(e.enableNegRisk),
    neg_risk_augmented: bool(e.negRiskAugmented),
    neg_risk_market_id: e.negRiskMarketID ? e.negRiskMarketID.toLowerCase() : null,
    neg_risk_fee_bips: uint(e.negRiskFeeBips),
    liquidity: num(e.liquidity),
    liquidity_clob: num(e.liquidityClob),
    volume: num(e.volume),
    volume_24hr: num(e.volume24hr),
    volume_1wk: num(e.volume1wk),
    volume_1mo: num(e.volume1mo),
    volume_1yr: num(e.volume1yr),
    open_interest: num(e.openInterest),
    competitive: num(e.competitive),
    comment_count: uint(e.commentCount),
    sort_by: str(e.sortBy),
    series_slug: str(e.seriesSlug),
    series_ids: ids(e.series),
    tag_ids: ids(e.tags),
    market_ids: ids(e.markets),
    start_time: parseTime(e.startTime),
    event_date: str(e.eventDate),
  };
}

/** A market row; `eventId` is the parent event (nested markets carry none, `/markets` ones an `events[]`). */
export function marketRow(m: MarketPayload, eventId: string): MarketRow {
  return {
    id: m.id,
    event_id: eventId,
    condition_id: str(m.conditionId).toLowerCase(),
    question_id: str(m.questionID).toLowerCase(),
    slug: str(m.slug),
    question: str(m.question),
    description: str(m.description),
    resolution_source: str(m.resolutionSource),
    category: str(m.category),
    image: str(m.image),
    icon: str(m.icon),
    outcomes: arr(m.outcomes),
    outcome_prices: arr(m.outcomePrices),
    short_outcomes: arr(m.shortOutcomes),
    clob_token_ids: arr(m.clobTokenIds),
    group_item_title: str(m.groupItemTitle),
    group_item_threshold: str(m.groupItemThreshold),
    market_type: str(m.marketType),
    start_date: parseTime(m.startDate),
    end_date: parseTime(m.endDate),
    closed_time: parseTime(m.closedTime),
    created_at: parseTime(m.createdAt),
    updated_at: parseTime(m.updatedAt),
    active: bool(m.active),
    closed: bool(m.closed),
    archived: bool(m.archived),
    restricted: bool(m.restricted),
    accepting_orders: bool(m.acceptingOrders),
    enable_order_book: bool(m.enableOrderBook),
    automatically_resolved: bool(m.automaticallyResolved),
    neg_risk: bool(m.negRisk),
    neg_risk_other: bool(m.negRiskOther),
    neg_risk_market_id: m.negRiskMarketID ? m.negRiskMarketID.toLowerCase() : null,
    neg_risk_request_id: m.negRiskRequestID ? m.negRiskRequestID.toLowerCase() : null,
    uma_resolution_status: str(m.umaResolutionStatus),
    uma_resolution_statuses: arr(m.umaResolutionStatuses),
    resolved_by: str(m.resolvedBy).toLowerCase(),
    order_price_min_tick_size: num(m.orderPriceMinTickSize),
    order_min_size: num(m.orderMinSize),
    maker_base_fee: num(m.makerBaseFee),
    taker_base_fee: num(m.takerBaseFee),
    liquidity: num(m.liquidityNum),
    volume: num(m.volumeNum),
    volume_24hr: num(m.volume24hr),
    volume_1wk: num(m.volume1wk),
    volume_1mo: num(m.volume1mo),
    volume_1yr: num(m.volume1yr),
    competitive: num(m.competitive),
    spread: num(m.spread),
    best_bid: num(m.bestBid),
    best_ask: num(m.bestAsk),
    last_trade_price: num(m.lastTradePrice),
    one_day_price_change: num(m.oneDayPriceChange),
    one_week_price_change: num(m.oneWeekPriceChange),
    game_id: str(m.gameId),
    sports_market_type: str(m.sportsMarketType),
    game_start_time: parseTime(m.gameStartTime),
    team_a_id: str(m.teamAID),
    team_b_id: str(m.teamBID),
  };
}

/** An event's row and its nested markets' rows. */
export function eventRows(r: EventRecord): { event: EventRow; markets: MarketRow[] } {
  return { event: eventRow(r.event), markets: r.markets.map((m) => marketRow(m, r.event.id)) };
}

export function seriesRow(s: SeriesPayload): SeriesRow {
  return {
    id: s.id,
    ticker: str(s.ticker),
    slug: str(s.slug),
    title: str(s.title),
    series_type: str(s.seriesType),
    recurrence: str(s.recurrence),
    layout: str(s.layout),
    image: str(s.image),
    icon: str(s.icon),
    active: bool(s.active),
    closed: bool(s.closed),
    archived: bool(s.archived),
    featured: bool(s.featured),
    restricted: bool(s.restricted),
    published_at: parseTime(s.publishedAt),
    created_at: parseTime(s.createdAt),
    updated_at: parseTime(s.updatedAt),
    start_date: parseTime(s.startDate),
    volume: num(s.volume),
    volume_24hr: num(s.volume24hr),
    liquidity: num(s.liquidity),
    comment_count: uint(s.commentCount),
    event_ids: ids(s.events),
  };
}

export function tagRow(t: TagPayload): TagRow {
  return {
    id: t.id,
    label: str(t.label),
    slug: str(t.slug),
    force_show: bool(t.forceShow),
    force_hide: bool(t.forceHide),
    is_carousel: bool(t.isCarousel),
    published_at: parseTime(t.publishedAt),
    created_at: parseTime(t.createdAt),
    updated_at: parseTime(t.updatedAt),
  };
}

export function tagRelationRow(r: RelatedTagPayload): TagRelationRow {
  return {
    id: r.id,
    tag_id: String(r.tagID),
    related_tag_id: String(r.relatedTagID),
    rank: uint(r.rank),
  };
}
