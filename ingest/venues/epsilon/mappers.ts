/**
 * Venue epsilon's records → rows of epsilon_markets, epsilon_events and epsilon_tags
 * (schemas/tables/epsilon.ts):
 *
 * - `status`: `active` → open; closed with a `winningOutcome` → resolved; closed otherwise → closed;
 * - prices: the served `outcomePrices` (0–1), one per outcome (null where none is served);
 * - `best_bid`/`best_ask`: the listing's `bestBid`/`bestAsk` (the YES token's); per outcome and the
 *   depths from the YES token's book (given by the sync; null for a market not trading): outcome 0 bids
 *   and asks as in the book, outcome 1 mirrored (its best bid = 1 − YES best ask, its best ask = 1 − YES
 *   best bid: the book of a binary CLOB is one book seen from both sides); `bid_depth`/`ask_depth` the
 *   contracts on each side; no book → nulls and 0;
 * - the event (`event_id`): `event_key` its id, `event_title`, `event_slug`, `is_neg_risk` (`negRisk`),
 *   `tags` (the labels); `group_label` the market's `groupItemTitle` when its event has several markets;
 * - `winning_outcome` the index of `winningOutcome` in `outcomes`, `payout_numerators` 1 for it and 0
 *   for the others once resolved, else [];
 * - `created_time` = `startDate`, `end_time` = `endDate`, `resolved_time` = `resolvedAt`;
 * - `market_variant` = `marketVariant`, `image_url` = `image` (fields of the live API the file does not
 *   list; '' when absent); `is_yield_bearing` false unless `isYieldBearing`;
 * - not served: `resolution_block`, `resolution_tx`, `updated_time` (null), `category` ('').
 */
import type { RowOf } from '../../../core/clickhouse/table.ts';
import { searchWords } from '../../../core/search-words.ts';
import type { EPSILON_EVENTS, EPSILON_MARKETS, EPSILON_TAGS } from '../../../schemas/tables/epsilon.ts';
import { bestFirst } from '../../orderbooks/levels.ts';
import type { BookSnapshot } from '../../orderbooks/store.ts';
import type { BookPayload, EventPayload, MarketPayload, TagPayload } from './payloads.ts';

export type EpsilonMarketRow = Omit<RowOf<typeof EPSILON_MARKETS>, 'content_hash' | 'observed_at'>;
export type EpsilonEventRow = Omit<RowOf<typeof EPSILON_EVENTS>, 'content_hash' | 'observed_at'>;
export type EpsilonTagRow = Omit<RowOf<typeof EPSILON_TAGS>, 'content_hash' | 'observed_at'>;
export type Status = 'open' | 'closed' | 'resolved';

/** A served time (ISO text) as Unix ms; null when absent or unreadable. */
export function timeOf(value: string | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const t = Date.parse(value);
  return Number.isFinite(t) ? t : null;
}

const numOf = (v: string | number | null | undefined): number | null =>
  v === null || v === undefined || v === '' ? null : Number(v);
const round4 = (x: number) => Math.round(x * 10_000) / 10_000;
const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

export function statusOf(m: MarketPayload): Status {
  if (m.active && !m.closed) return 'open';
  return m.winningOutcome ? 'resolved' : 'closed';
}

/** Best prices and depths of a YES token's book. */
export interface BookSummary {
  bestBid: number | null;
  bestAsk: number | null;
  bidDepth: number;
  askDepth: number;
}

export function bookSummary(b: BookPayload | null): BookSummary {
  if (b === null) return { bestBid: null, bestAsk: null, bidDepth: 0, askDepth: 0 };
  const bids = b.bids.map((l) => ({ price: Number(l.price), size: Number(l.size) }));
  const asks = b.asks.map((l) => ({ price: Number(l.price), size: Number(l.size) }));
  return {
    bestBid: bids.length ? Math.max(...bids.map((l) => l.price)) : null,
    bestAsk: asks.length ? Math.min(...asks.map((l) => l.price)) : null,
    bidDepth: round6(bids.reduce((s, l) => s + l.size, 0)),
    askDepth: round6(asks.reduce((s, l) => s + l.size, 0)),
  };
}

/** The YES token's book as market `marketId`'s snapshot: levels best first, `ts` the payload's time, else `date`. */
export function bookSnapshot(marketId: string, tokenId: string, b: BookPayload, date: number): BookSnapshot {
  const ts = b.timestamp === undefined ? Number.NaN : Number(b.timestamp);
  return {
    market: marketId,
    token_id: b.asset_id ?? tokenId,
    ts: Number.isSafeInteger(ts) ? ts : date,
    bids: bestFirst(b.bids, 'bids'),
    asks: bestFirst(b.asks, 'asks'),
  };
}

export function marketRow(
  m: MarketPayload,
  event: EventPayload | null,
  book: BookSummary | null,
): EpsilonMarketRow {
  const status = statusOf(m);
  const n = m.outcomes.length;
  const winner = status === 'resolved' ? m.outcomes.indexOf(m.winningOutcome ?? '') : -1;
  const b = book ?? bookSummary(null);
  const mirror = (p: number | null) => (p === null ? null : round4(1 - p));
  const several = (event?.markets?.length ?? 0) > 1;
  return {
    market_id: Number(m.id),
    title: m.question,
    words: searchWords(m.question),
    status,
    outcomes: [...m.outcomes],
    token_ids: Array.from({ length: n }, (_, i) => m.clobTokenIds?.[i] ?? ''),
    prices: Array.from({ length: n }, (_, i) => numOf(m.outcomePrices?.[i])),
    volume_usd: numOf(m.volume) ?? 0,
    end_time: timeOf(m.endDate),
    created_time: timeOf(m.startDate),
    event_key: m.event_id === null || m.event_id === undefined ? '' : String(m.event_id),
    event_title: event?.title ?? '',
    group_label: several ? (m.groupItemTitle ?? null) : null,
    category: '',
    tags: (event?.tags ?? []).map((t) => t.label),
    market_slug: m.market_slug ?? '',
    condition_id: m.conditionId ?? '',
    question_id: m.questionId ?? '',
    description: m.description ?? '',
    market_variant: m.marketVariant ?? '',
    best_bid: m.bestBid ?? null,
    best_ask: m.bestAsk ?? null,
    outcome_best_bids: n === 2 ? [b.bestBid, mirror(b.bestAsk)] : Array.from({ length: n }, () => null),
    outcome_best_asks: n === 2 ? [b.bestAsk, mirror(b.bestBid)] : Array.from({ length: n }, () => null),
    bid_depth: b.bidDepth,
    ask_depth: b.askDepth,
    last_trade_price: m.lastTradePrice ?? null,
    is_yield_bearing: m.isYieldBearing === true,
    is_neg_risk: event?.negRisk === true,
    event_slug: event?.slug ?? '',
    image_url: m.image ?? '',
    winning_outcome: winner >= 0 ? winner : null,
    payout_numerators: winner >= 0 ? Array.from({ length: n }, (_, i) => (i === winner ? 1 : 0)) : [],
    resolution_block: null,
    resolution_tx: null,
    resolved_time: timeOf(m.resolvedAt),
    updated_time: null,
  };
}

/** The id of a nested market as served ('' when unreadable). */
function nestedId(raw: unknown): string {
  const id = (raw as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : '';
}

/** An event's row; `statuses` are its markets' statuses as stored by this sync (by market id). */
export function eventRow(e: EventPayload, statuses: ReadonlyMap<string, Status>): EpsilonEventRow {
  const ids = (e.markets ?? []).map(nestedId).filter((x) => x !== '');
  const sts = ids.map((id) => statuses.get(id)).filter((s): s is Status => s !== undefined);
  const status: Status =
    sts.length > 0 && sts.every((s) => s === 'resolved')
      ? 'resolved'
      : sts.some((s) => s === 'open') || (sts.length === 0 && e.status === 'active')
        ? 'open'
        : 'closed';
  return {
    event_id: Number(e.id),
    slug: e.slug,
    title: e.title,
    words: searchWords(e.title),
    description: e.description ?? '',
    status,
    market_ids: ids,
    volume_usd: numOf(e.volume) ?? 0,
    neg_risk: e.negRisk === true,
    tags: (e.tags ?? []).map((t) => t.label),
    start_time: timeOf(e.startDate),
    end_time: timeOf(e.endDate),
    created_time: timeOf(e.createdAt),
  };
}

export function tagRow(t: TagPayload): EpsilonTagRow {
  return { tag_id: Number(t.id), label: t.label, slug: t.slug ?? '' };
}
