/**
 * `GET /v2/epsilon/markets` (interface-shapes §18.4) over `epsilon_markets` (schemas/tables/epsilon.ts):
 * the declaration of its filters and sorts for api/queries/venue-markets.ts, and the row → EpsilonMarket
 * mapping. Outcomes carry their best bid and ask (no price); the price sorts use the first outcome's
 * price (`prices[1]`).
 */
import type {
  EpsilonMarket,
  EpsilonMarketSort,
  EpsilonMarketsQuery,
} from '../../../schemas/api/epsilon-markets.ts';
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

const byId: SortColumn = { expr: 'market_id', type: 'UInt64', dir: 'asc' };

const COLUMNS = [
  'market_id',
  'condition_id',
  'title',
  'description',
  'status',
  'market_variant',
  'outcomes',
  'token_ids',
  'outcome_best_bids',
  'outcome_best_asks',
  'best_bid',
  'best_ask',
  'bid_depth',
  'ask_depth',
  'is_yield_bearing',
  'is_neg_risk',
  'event_slug',
  'image_url',
  'winning_outcome',
  'payout_numerators',
  'resolution_block',
  'resolution_tx',
  msOf('created_time'),
  msOf('updated_time'),
] as const;

export const EPSILON_MARKETS: VenueMarketsSpec<EpsilonMarketSort> = {
  venue: 'epsilon',
  table: 'epsilon_markets',
  key: { column: 'market_id', type: 'UInt64' },
  columns: COLUMNS,
  filters: [
    { param: 'market_variant', kind: 'eq', column: 'market_variant' },
    { param: 'min_bid_depth', kind: 'min', column: 'bid_depth' },
    { param: 'condition_id', kind: 'in', column: 'condition_id' },
    { param: 'market_slug', kind: 'in', column: 'market_slug' },
    { param: 'market_id', kind: 'in', column: 'market_id', type: 'UInt64' },
    { param: 'token_id', kind: 'has', column: 'token_ids' },
    { param: 'event_slug', kind: 'in', column: 'event_slug' },
  ],
  sorts: {
    created: [...nullableTimeKeys('created_time', 'desc'), byId],
    created_asc: [...nullableTimeKeys('created_time', 'asc'), byId],
    price_desc: [...nullsLastKeys('prices[1]', 'ifNull(prices[1], 0)', 'Float64', 'desc'), byId],
    price_asc: [...nullsLastKeys('prices[1]', 'ifNull(prices[1], 0)', 'Float64', 'asc'), byId],
    bid_depth: [descKey('bid_depth', 'Float64'), byId],
  },
  defaultSort: 'created',
};

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const textOrNull = (v: unknown) => (v === null || v === undefined || v === '' ? null : String(v));
const intOrNull = (v: unknown) => {
  const x = numOrNull(v);
  return x === null ? null : Math.trunc(x);
};
const strings = (v: unknown) => ((v as unknown[] | null) ?? []).map(String);

export function toEpsilonMarket(v: unknown[], canonicalIds: readonly string[]): EpsilonMarket {
  const [marketId, conditionId, title, description, status, variant, outcomes, tokenIds, bids, asks] = v;
  const [bestBid, bestAsk, bidDepth, askDepth, yieldBearing, negRisk, eventSlug, image] = v.slice(10);
  const [winning, payouts, resBlock, resTx, created, updated] = v.slice(18);
  const tokens = strings(tokenIds);
  const bidList = (bids as unknown[] | null) ?? [];
  const askList = (asks as unknown[] | null) ?? [];
  return {
    market_id: Number(marketId),
    condition_id: text(conditionId),
    title: text(title),
    description: text(description),
    status: String(status) as EpsilonMarket['status'],
    market_variant: text(variant),
    outcomes: strings(outcomes).map((label, i) => ({
      label,
      token_id: tokens[i] ?? '',
      canonical_id: canonicalIds[i] ?? '',
      best_bid: numOrNull(bidList[i]),
      best_ask: numOrNull(askList[i]),
    })),
    best_bid: numOrNull(bestBid),
    best_ask: numOrNull(bestAsk),
    bid_depth: num(bidDepth),
    ask_depth: num(askDepth),
    is_yield_bearing: Boolean(yieldBearing),
    is_neg_risk: Boolean(negRisk),
    event_slug: textOrNull(eventSlug),
    image_url: text(image),
    winning_outcome: intOrNull(winning),
    payout_numerators: ((payouts as unknown[] | null) ?? []).map(Number),
    resolution_block: intOrNull(resBlock),
    resolution_tx: textOrNull(resTx),
    created_time: isoFromMs(created),
    updated_time: isoFromMs(updated),
  };
}

export async function listEpsilonMarkets(
  ctx: RouteContext,
  q: EpsilonMarketsQuery,
): Promise<{ markets: EpsilonMarket[]; pagination: PageInfo }> {
  const { rows, pagination } = await venueMarketsPage(ctx, EPSILON_MARKETS, q);
  return { markets: rows.map((r) => toEpsilonMarket(r.values, r.canonicalIds)), pagination };
}
