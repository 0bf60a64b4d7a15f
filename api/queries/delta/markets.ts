/**
 * `GET /v2/delta/markets` (interface-shapes §18.3) over `delta_markets`: the page of the list delta's
 * contract declares (schemas/venues/delta.ts: columns, filters, sorts) through
 * api/queries/venue-markets.ts, and the row → DeltaMarket mapping. A categorical market's alternatives
 * are markets of one event (`event_id` = the parent's id).
 */
import type { DeltaMarket, DeltaMarketsQuery } from '../../../schemas/api/delta-markets.ts';
import { DELTA } from '../../../schemas/venues/delta.ts';
import type { RouteContext } from '../../routes/context.ts';
import type { PageInfo } from '../list.ts';
import { isoFromMs, num, numOrNull, venueMarketsPage } from '../venue-markets.ts';

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
  const { rows, pagination } = await venueMarketsPage(ctx, DELTA, q);
  return { markets: rows.map((r) => toDeltaMarket(r.values, r.canonicalIds)), pagination };
}
