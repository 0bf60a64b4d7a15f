/**
 * `GET /v2/epsilon/markets` (interface-shapes §18.4) over `epsilon_markets`: the page of the list
 * epsilon's contract declares (schemas/venues/epsilon.ts: columns, filters, sorts) through
 * api/queries/venue-markets.ts, and the row → EpsilonMarket mapping. Outcomes carry their best bid and
 * ask (no price).
 */
import type { EpsilonMarket, EpsilonMarketsQuery } from '../../../schemas/api/epsilon-markets.ts';
import { EPSILON } from '../../../schemas/venues/epsilon.ts';
import type { RouteContext } from '../../routes/context.ts';
import type { PageInfo } from '../list.ts';
import { isoFromMs, num, numOrNull, venueMarketsPage } from '../venue-markets.ts';

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
  const { rows, pagination } = await venueMarketsPage(ctx, EPSILON, q);
  return { markets: rows.map((r) => toEpsilonMarket(r.values, r.canonicalIds)), pagination };
}
