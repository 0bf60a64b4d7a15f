/**
 * Venue delta's records → rows of delta_markets and delta_events (schemas/tables/delta.ts):
 *
 * - a binary market (`marketType` 0) is one market row (`market_type` binary, no event);
 * - a categorical market (`marketType` 1) is an event row, and each of its `childMarkets` a market row
 *   (`market_type` categorical, `event_id`/`event_key` the parent's marketId, `event_title` its title,
 *   `group_label` the child's `marketTitle`);
 * - `status`: 2 Activated → open; 4 Resolved → resolved; 1 Created, 3 Resolving, 5 Failed, 6 Deleted →
 *   closed;
 * - outcomes: `[yesLabel, noLabel]` ('Yes'/'No' when empty), tokens `[yesTokenId, noTokenId]`;
 * - prices: resolved → 1 for the `resultTokenId`'s outcome, 0 for the other; otherwise the YES token's
 *   latest trade price given by the sync (`yes`), NO = 1 − YES (4 places); null when unknown;
 * - amounts: the decimal USD strings as numbers; a child's 24 h and 7 d volumes are not served: 0;
 * - times: Unix seconds → ms, 0 → null; `end_time` = `cutoff_time` = `cutoffAt`;
 * - `slug`: the record's `slug` ('' when not served); a child's `event_slug` is its parent's slug (null for
 *   a binary market, or when the parent serves none);
 * - not served by the upstream: `labels` ([]), `thumbnail_url` ('').
 */
import type { RowOf } from '../../../core/clickhouse/table.ts';
import { searchWords } from '../../../core/search-words.ts';
import type { DELTA_EVENTS, DELTA_MARKETS } from '../../../schemas/tables/delta.ts';
import type { DeltaEntry } from './client.ts';
import type { ChildPayload, MarketPayload } from './payloads.ts';

export type DeltaMarketRow = Omit<RowOf<typeof DELTA_MARKETS>, 'content_hash' | 'observed_at'>;
export type DeltaEventRow = Omit<RowOf<typeof DELTA_EVENTS>, 'content_hash' | 'observed_at'>;
export type Status = 'open' | 'closed' | 'resolved';

export function statusOf(code: number): Status {
  if (code === 2) return 'open';
  if (code === 4) return 'resolved';
  return 'closed';
}

/** Unix seconds → ms; 0 or absent → null. */
export function msOf(seconds: number | null | undefined): number | null {
  return seconds ? seconds * 1000 : null;
}

/** A decimal USD amount as a number (0 when absent). */
export function usd(amount: string | number | null | undefined): number {
  if (amount === null || amount === undefined || amount === '') return 0;
  return Number(amount);
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** The prices of a market: by its result token once resolved, else from the YES price (null = unknown). */
export function pricesOf(m: ChildPayload, yes: number | null): (number | null)[] {
  const tokens = [m.yesTokenId ?? '', m.noTokenId ?? ''];
  if (statusOf(m.status) === 'resolved' && m.resultTokenId) {
    return tokens.map((t) => (t === m.resultTokenId ? 1 : 0));
  }
  if (yes === null) return [null, null];
  return [round4(yes), round4(1 - yes)];
}

/** Whether a market's price is fixed by its resolution (no price read needed). */
export function settled(m: ChildPayload): boolean {
  return statusOf(m.status) === 'resolved' && Boolean(m.resultTokenId);
}

/** The binary markets of an entry: the market itself, or a categorical market's children. */
export function marketsOf(e: DeltaEntry): ChildPayload[] {
  return e.market.marketType === 0 ? [e.market] : e.children;
}

/** A market's row; `parent` is its categorical market (null for a binary market). */
export function marketRow(
  m: ChildPayload | MarketPayload,
  parent: MarketPayload | null,
  yes: number | null,
): DeltaMarketRow {
  const own = parent === null ? (m as MarketPayload) : null;
  const collection = own?.collection ?? null;
  return {
    market_id: m.marketId,
    title: m.marketTitle,
    words: searchWords(m.marketTitle),
    status: statusOf(m.status),
    outcomes: [m.yesLabel || 'Yes', m.noLabel || 'No'],
    token_ids: [m.yesTokenId ?? '', m.noTokenId ?? ''],
    prices: pricesOf(m, yes),
    volume_usd: usd(m.volume),
    end_time: msOf(m.cutoffAt),
    created_time: msOf(m.createdAt),
    event_key: parent ? String(parent.marketId) : '',
    event_title: parent?.marketTitle ?? '',
    group_label: parent ? m.marketTitle : null,
    category: '',
    tags: [],
    slug: m.slug ?? '',
    description: m.rules ?? '',
    market_type: parent ? 'categorical' : 'binary',
    volume_24h_usd: usd(own?.volume24h),
    volume_7d_usd: usd(own?.volume7d),
    condition_id: m.conditionId ?? '',
    question_id: m.questionId ?? '',
    result_token_id: m.resultTokenId ? m.resultTokenId : null,
    event_id: parent ? parent.marketId : null,
    event_slug: parent?.slug ? parent.slug : null,
    labels: [],
    thumbnail_url: '',
    chain_id: m.chainId ?? parent?.chainId ?? '',
    quote_token: m.quoteToken ?? parent?.quoteToken ?? '',
    collection_title: collection?.title ?? '',
    collection_symbol: collection?.symbol ?? '',
    collection_frequency: collection?.frequency ?? '',
    cutoff_time: msOf(m.cutoffAt),
    resolved_time: msOf(m.resolvedAt),
  };
}

export function eventRow(e: DeltaEntry): DeltaEventRow {
  const p = e.market;
  return {
    event_id: p.marketId,
    title: p.marketTitle,
    words: searchWords(p.marketTitle),
    description: p.rules ?? '',
    status: statusOf(p.status),
    market_ids: [...e.childIds],
    volume_usd: usd(p.volume),
    volume_24h_usd: usd(p.volume24h),
    volume_7d_usd: usd(p.volume7d),
    chain_id: p.chainId ?? '',
    quote_token: p.quoteToken ?? '',
    created_time: msOf(p.createdAt),
    cutoff_time: msOf(p.cutoffAt),
    resolved_time: msOf(p.resolvedAt),
  };
}

/** The rows of one entry; `yes(marketId)` gives a market's YES price (null when unknown). */
export function entryRows(
  e: DeltaEntry,
  yes: (marketId: number) => number | null,
): { markets: DeltaMarketRow[]; event: DeltaEventRow | null } {
  if (e.market.marketType === 0) {
    return { markets: [marketRow(e.market, null, yes(e.market.marketId))], event: null };
  }
  return {
    markets: e.children.map((c) => marketRow(c, e.market, yes(c.marketId))),
    event: eventRow(e),
  };
}
