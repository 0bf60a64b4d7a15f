/**
 * `GET /v2/gamma/markets` (interface-shapes §18.2) over `gamma_markets` (schemas/tables/gamma.ts): the
 * declaration of its filters and sorts for api/queries/venue-markets.ts, and the row → GammaMarket
 * mapping. `open_interest_usd` is stored null for order-book markets (SPEC), so `min_open_interest`
 * never matches them and the `open_interest` sort puts them last.
 */
import type { GammaMarket, GammaMarketSort, GammaMarketsQuery } from '../../../schemas/api/gamma-markets.ts';
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

const bySlug: SortColumn = { expr: 'slug', type: 'String', dir: 'asc' };

const COLUMNS = [
  'condition_id',
  'market_id',
  'slug',
  'title',
  'description',
  'status',
  'trade_type',
  'outcomes',
  'token_ids',
  'prices',
  'volume_usd',
  'open_interest_usd',
  'liquidity_usd',
  'image_url',
  'categories',
  'tags',
  'collateral_address',
  'collateral_symbol',
  'collateral_decimals',
  'market_address',
  'exchange_address',
  'expired',
  'winning_outcome',
  'payout_numerators',
  'resolution_block',
  'resolution_tx',
  msOf('expiration_time'),
  msOf('created_time'),
  msOf('updated_time'),
] as const;

export const GAMMA_MARKETS: VenueMarketsSpec<GammaMarketSort> = {
  venue: 'gamma',
  table: 'gamma_markets',
  key: { column: 'slug', type: 'String' },
  columns: COLUMNS,
  filters: [
    { param: 'trade_type', kind: 'eq', column: 'trade_type' },
    { param: 'categories', kind: 'has', column: 'categories' },
    { param: 'tags', kind: 'has', column: 'tags' },
    { param: 'min_volume', kind: 'min', column: 'volume_usd' },
    // A null open interest (order book) compares as null: never matches.
    { param: 'min_open_interest', kind: 'min', column: 'open_interest_usd' },
    { param: 'condition_id', kind: 'in', column: 'condition_id' },
    { param: 'market_slug', kind: 'in', column: 'slug' },
    { param: 'token_id', kind: 'has', column: 'token_ids' },
  ],
  sorts: {
    volume: [descKey('volume_usd', 'Float64'), bySlug],
    open_interest: [
      ...nullsLastKeys('open_interest_usd', 'ifNull(open_interest_usd, 0)', 'Float64', 'desc'),
      bySlug,
    ],
    liquidity: [descKey('liquidity_usd', 'Float64'), bySlug],
    price_desc: [...nullsLastKeys('prices[1]', 'ifNull(prices[1], 0)', 'Float64', 'desc'), bySlug],
    price_asc: [...nullsLastKeys('prices[1]', 'ifNull(prices[1], 0)', 'Float64', 'asc'), bySlug],
    expiration: [...nullableTimeKeys('expiration_time', 'desc'), bySlug],
    created: [...nullableTimeKeys('created_time', 'desc'), bySlug],
    created_asc: [...nullableTimeKeys('created_time', 'asc'), bySlug],
  },
  defaultSort: 'volume',
};

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
  const { rows, pagination } = await venueMarketsPage(ctx, GAMMA_MARKETS, q);
  return { markets: rows.map((r) => toGammaMarket(r.values, r.canonicalIds)), pagination };
}
