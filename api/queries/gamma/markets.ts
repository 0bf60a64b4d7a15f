/**
 * `GET /v2/gamma/markets` (interface-shapes §18.2) over `gamma_markets`: the page of the list gamma's
 * contract declares (schemas/venues/gamma.ts: columns, filters, sorts) through
 * api/queries/venue-markets.ts, and the row → GammaMarket mapping (`open_interest_usd` null for
 * order-book markets).
 */
import type { GammaMarket, GammaMarketsQuery } from '../../../schemas/api/gamma-markets.ts';
import { GAMMA } from '../../../schemas/venues/gamma.ts';
import type { RouteContext } from '../../routes/context.ts';
import type { PageInfo } from '../list.ts';
import { isoFromMs, num, numOrNull, venueMarketsPage } from '../venue-markets.ts';

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const textOrNull = (v: unknown) => (v === null || v === undefined ? null : String(v));
const intOrNull = (v: unknown) => {
  const x = numOrNull(v);
  return x === null ? null : Math.trunc(x);
};
const strings = (v: unknown) => ((v as unknown[] | null) ?? []).map(String);

export function toGammaMarket(v: unknown[], canonicalIds: readonly string[]): GammaMarket {
  const [conditionId, marketId, slug, title, description, status, tradeType, outcomes, tokenIds, prices] = v;
  const [volume, oi, liquidity, image, categories, tags, colAddress, colSymbol, colDecimals] = v.slice(10);
  const [marketAddress, exchange, expired, winning, payouts, resBlock, resTx, expiration, created, updated] =
    v.slice(19);
  const tokens = strings(tokenIds);
  const priceList = (prices as unknown[] | null) ?? [];
  return {
    condition_id: text(conditionId),
    market_id: intOrNull(marketId),
    market_slug: String(slug),
    title: text(title),
    description: text(description),
    status: String(status) as GammaMarket['status'],
    trade_type: String(tradeType) as GammaMarket['trade_type'],
    outcomes: strings(outcomes).map((label, i) => ({
      label,
      token_id: tokens[i] ?? '',
      canonical_id: canonicalIds[i] ?? '',
      price: numOrNull(priceList[i]),
    })),
    total_volume_usd: num(volume),
    open_interest_usd: tradeType === 'clob' ? null : numOrNull(oi),
    liquidity_usd: num(liquidity),
    image_url: text(image),
    categories: strings(categories),
    tags: strings(tags),
    collateral: {
      address: text(colAddress),
      symbol: text(colSymbol),
      decimals: colDecimals === null || colDecimals === undefined ? 6 : Number(colDecimals),
    },
    market_address: textOrNull(marketAddress) || null,
    exchange_address: textOrNull(exchange) || null,
    expired: Boolean(expired),
    winning_outcome: intOrNull(winning),
    payout_numerators: ((payouts as unknown[] | null) ?? []).map(Number),
    resolution_block: intOrNull(resBlock),
    resolution_tx: textOrNull(resTx) || null,
    expiration_time: isoFromMs(expiration),
    created_time: isoFromMs(created),
    updated_time: isoFromMs(updated),
  };
}

export async function listGammaMarkets(
  ctx: RouteContext,
  q: GammaMarketsQuery,
): Promise<{ markets: GammaMarket[]; pagination: PageInfo }> {
  const { rows, pagination } = await venueMarketsPage(ctx, GAMMA, q);
  return { markets: rows.map((r) => toGammaMarket(r.values, r.canonicalIds)), pagination };
}
