/**
 * `GET /v2/gamma/markets` (interface-shapes §18.2): query and response. `open_interest_usd` is null for
 * order-book (`clob`) markets and a number for AMM markets (SPEC); `min_open_interest` therefore never
 * matches an order-book market. Outcome `token_id` and `canonical_id` default to `""` (§0.5).
 */
import { type Static, Type } from '@sinclair/typebox';
import type { GammaListRow } from '../venues/gamma.ts';
import { cursorQuery, Pagination, StringEnum } from './common.ts';
import { isoFromMs, num, numOrNull } from './values.ts';
import {
  canonicalIdParam,
  floorParam,
  isoTime,
  nullableInteger,
  nullableNumber,
  nullableString,
  searchParam,
  servedStatus,
  statusParam,
  stringList,
} from './venue-markets.ts';

export const GAMMA_MARKET_SORTS = [
  'volume',
  'open_interest',
  'liquidity',
  'price_desc',
  'price_asc',
  'expiration',
  'created',
  'created_asc',
] as const;
export type GammaMarketSort = (typeof GAMMA_MARKET_SORTS)[number];
export const GAMMA_TRADE_TYPES = ['amm', 'clob'] as const;

export const GammaMarketsQuery = Type.Object({
  status: statusParam(),
  trade_type: Type.Optional(StringEnum(GAMMA_TRADE_TYPES, { description: 'amm or clob (order book)' })),
  search: searchParam(),
  categories: stringList('Category (any of the market’s categories)'),
  tags: stringList('Tag (any of the market’s tags)'),
  min_volume: floorParam('Minimum lifetime volume, USD'),
  min_open_interest: floorParam(
    'Minimum open interest, USD; order-book markets (no open interest) never match',
  ),
  condition_id: stringList('Condition id'),
  market_slug: stringList('Market slug'),
  canonical_id: canonicalIdParam(),
  token_id: stringList('Outcome token id; matches either outcome'),
  sort: Type.Optional(
    StringEnum(GAMMA_MARKET_SORTS, {
      default: 'volume',
      description:
        'volume (default), open_interest (order-book markets last), liquidity, price_desc / price_asc (first ' +
        'outcome; none last), expiration (latest first), created (newest first), created_asc. Descending ' +
        'metrics; ties by market_slug; missing values last either way',
    }),
  ),
  ...cursorQuery({ min: 1, max: 100, default: 20 }),
});
export type GammaMarketsQuery = Static<typeof GammaMarketsQuery>;

export const GammaOutcome = Type.Object(
  {
    label: Type.String(),
    token_id: Type.String({ default: '' }),
    canonical_id: Type.String({
      default: '',
      description:
        'Stable identifier of this real-world outcome across venues (pmc_ + 12 base32); "" when none',
    }),
    price: nullableNumber('Current price, 0–1'),
  },
  { title: 'GammaOutcome' },
);

export const GammaMarket = Type.Object(
  {
    condition_id: Type.String(),
    market_id: nullableInteger(),
    market_slug: Type.String(),
    title: Type.String(),
    description: Type.String({ default: '' }),
    status: servedStatus(),
    trade_type: StringEnum(GAMMA_TRADE_TYPES),
    outcomes: Type.Array(GammaOutcome),
    total_volume_usd: Type.Number({ default: 0 }),
    open_interest_usd: nullableNumber('null for order-book (clob) markets; set for AMM markets'),
    liquidity_usd: Type.Number({ default: 0 }),
    image_url: Type.String({ default: '' }),
    categories: Type.Array(Type.String()),
    tags: Type.Array(Type.String()),
    collateral: Type.Object({
      address: Type.String({ default: '' }),
      symbol: Type.String({ default: '' }),
      decimals: Type.Integer({ default: 6 }),
    }),
    market_address: nullableString('AMM contract (amm markets)'),
    exchange_address: nullableString('Order-book exchange (clob markets)'),
    expired: Type.Boolean({ default: false }),
    winning_outcome: nullableInteger('Index of the winning outcome'),
    payout_numerators: Type.Array(Type.Integer()),
    resolution_block: nullableInteger(),
    resolution_tx: nullableString(),
    expiration_time: isoTime(),
    created_time: isoTime(),
    updated_time: isoTime(),
  },
  { title: 'GammaMarket' },
);
export type GammaMarket = Static<typeof GammaMarket>;

export const GammaMarketsResponse = Type.Object({ markets: Type.Array(GammaMarket), pagination: Pagination });

// ---- the row → GammaMarket mapping (the list's named columns: schemas/venues/gamma.ts) ----

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const textOrNull = (v: unknown) => (v === null || v === undefined ? null : String(v));
const intOrNull = (v: unknown) => {
  const x = numOrNull(v);
  return x === null ? null : Math.trunc(x);
};
const strings = (v: unknown) => ((v as unknown[] | null) ?? []).map(String);

/** One row of the list (its named columns) and its outcomes' canonical ids → the resource. */
export function toGammaMarket(r: GammaListRow, canonicalIds: readonly string[]): GammaMarket {
  const tokens = strings(r.token_ids);
  const priceList = r.prices ?? [];
  return {
    condition_id: text(r.condition_id),
    market_id: intOrNull(r.market_id),
    market_slug: String(r.slug),
    title: text(r.title),
    description: text(r.description),
    status: String(r.status) as GammaMarket['status'],
    trade_type: String(r.trade_type) as GammaMarket['trade_type'],
    outcomes: strings(r.outcomes).map((label, i) => ({
      label,
      token_id: tokens[i] ?? '',
      canonical_id: canonicalIds[i] ?? '',
      price: numOrNull(priceList[i]),
    })),
    total_volume_usd: num(r.volume_usd),
    open_interest_usd: r.trade_type === 'clob' ? null : numOrNull(r.open_interest_usd),
    liquidity_usd: num(r.liquidity_usd),
    image_url: text(r.image_url),
    categories: strings(r.categories),
    tags: strings(r.tags),
    collateral: {
      address: text(r.collateral_address),
      symbol: text(r.collateral_symbol),
      decimals:
        r.collateral_decimals === null || r.collateral_decimals === undefined
          ? 6
          : Number(r.collateral_decimals),
    },
    market_address: textOrNull(r.market_address) || null,
    exchange_address: textOrNull(r.exchange_address) || null,
    expired: Boolean(r.expired),
    winning_outcome: intOrNull(r.winning_outcome),
    payout_numerators: (r.payout_numerators ?? []).map(Number),
    resolution_block: intOrNull(r.resolution_block),
    resolution_tx: textOrNull(r.resolution_tx) || null,
    expiration_time: isoFromMs(r.expiration_time_ms),
    created_time: isoFromMs(r.created_time_ms),
    updated_time: isoFromMs(r.updated_time_ms),
  };
}
