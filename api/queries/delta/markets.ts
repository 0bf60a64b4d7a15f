/**
 * `GET /v2/delta/markets` (interface-shapes §18.3) over `delta_markets` (schemas/tables/delta.ts): the
 * declaration of its filters and sorts for api/queries/venue-markets.ts, and the row → DeltaMarket
 * mapping. A categorical market's alternatives are markets of one event (`event_id` = the parent's id).
 */
import type { DeltaMarket, DeltaMarketSort, DeltaMarketsQuery } from '../../../schemas/api/delta-markets.ts';
import type { RouteContext } from '../../routes/context.ts';
import type { PageInfo } from '../list.ts';
import { descKey, nullableTimeKeys, type SortColumn } from '../sorted-page.ts';
import {
  isoFromMs,
  msOf,
  num,
  numOrNull,
  type VenueMarketsSpec,
  venueMarketsPage,
} from '../venue-markets.ts';

const byId: SortColumn = { expr: 'market_id', type: 'UInt64', dir: 'asc' };

const COLUMNS = [
  'market_id',
  'title',
  'slug',
  'description',
  'status',
  'market_type',
  'outcomes',
  'token_ids',
  'prices',
  'volume_usd',
  'volume_24h_usd',
  'volume_7d_usd',
  'condition_id',
  'question_id',
  'result_token_id',
  'event_id',
  'event_slug',
  'event_title',
  'labels',
  'thumbnail_url',
  'chain_id',
  'quote_token',
  'collection_title',
  'collection_symbol',
  'collection_frequency',
  msOf('created_time'),
  msOf('cutoff_time'),
  msOf('resolved_time'),
] as const;

export const DELTA_MARKETS: VenueMarketsSpec<DeltaMarketSort> = {
  venue: 'delta',
  table: 'delta_markets',
  key: { column: 'market_id', type: 'UInt64' },
  columns: COLUMNS,
  filters: [
    { param: 'market_type', kind: 'eq', column: 'market_type' },
    { param: 'labels', kind: 'has', column: 'labels' },
    { param: 'min_volume', kind: 'min', column: 'volume_usd' },
    { param: 'condition_id', kind: 'in', column: 'condition_id' },
    { param: 'market_slug', kind: 'in', column: 'slug' },
    { param: 'market_id', kind: 'in', column: 'market_id', type: 'UInt64' },
    { param: 'token_id', kind: 'has', column: 'token_ids' },
    { param: 'event_id', kind: 'in', column: 'event_id', type: 'UInt64' },
    { param: 'event_slug', kind: 'in', column: 'event_slug' },
  ],
  sorts: {
    volume: [descKey('volume_usd', 'Float64'), byId],
    volume_24h: [descKey('volume_24h_usd', 'Float64'), byId],
    volume_7d: [descKey('volume_7d_usd', 'Float64'), byId],
    created: [...nullableTimeKeys('created_time', 'desc'), byId],
    created_asc: [...nullableTimeKeys('created_time', 'asc'), byId],
    expiration: [...nullableTimeKeys('cutoff_time', 'desc'), byId],
  },
  defaultSort: 'volume',
};

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const textOrNull = (v: unknown) => (v === null || v === undefined || v === '' ? null : String(v));
const strings = (v: unknown) => ((v as unknown[] | null) ?? []).map(String);

export function toDeltaMarket(v: unknown[], canonicalIds: readonly string[]): DeltaMarket {
  const [marketId, title, slug, description, status, marketType, outcomes, tokenIds, prices, volume] = v;
  const [vol24, vol7, conditionId, questionId, resultToken, eventId, eventSlug, eventTitle, labels] =
    v.slice(10);
  const [thumb, chainId, quote, colTitle, colSymbol, colFrequency, created, cutoff, resolved] = v.slice(19);
  const tokens = strings(tokenIds);
  const priceList = (prices as unknown[] | null) ?? [];
  const event = numOrNull(eventId);
  return {
    market_id: Number(marketId),
    title: text(title),
    slug: text(slug),
    description: text(description),
    status: String(status) as DeltaMarket['status'],
    market_type: String(marketType) as DeltaMarket['market_type'],
    outcomes: strings(outcomes).map((label, i) => ({
      label,
      token_id: tokens[i] ?? '',
      canonical_id: canonicalIds[i] ?? '',
      price: numOrNull(priceList[i]),
    })),
    total_volume_usd: num(volume),
    volume_24h_usd: num(vol24),
    volume_7d_usd: num(vol7),
    condition_id: text(conditionId),
    question_id: text(questionId),
    result_token_id: textOrNull(resultToken),
    event_id: event === null || event === 0 ? null : event,
    event_slug: textOrNull(eventSlug),
    event_title: textOrNull(eventTitle),
    labels: strings(labels),
    thumbnail_url: text(thumb),
    chain_id: text(chainId),
    quote_token: text(quote),
    collection:
      text(colTitle) === '' && text(colSymbol) === '' && text(colFrequency) === ''
        ? null
        : { title: text(colTitle), symbol: text(colSymbol), frequency: text(colFrequency) },
    created_time: isoFromMs(created),
    cutoff_time: isoFromMs(cutoff),
    resolved_time: isoFromMs(resolved),
  };
}

export async function listDeltaMarkets(
  ctx: RouteContext,
  q: DeltaMarketsQuery,
): Promise<{ markets: DeltaMarket[]; pagination: PageInfo }> {
  const { rows, pagination } = await venueMarketsPage(ctx, DELTA_MARKETS, q);
  return { markets: rows.map((r) => toDeltaMarket(r.values, r.canonicalIds)), pagination };
}
