/**
 * `GET /v2/epsilon/markets` (interface-shapes §18.4): query and response. Outcomes carry best bid and
 * ask, no price; `token_id` and `canonical_id` default to `""` (§0.5). The venue has no end time.
 */
import { type Static, Type } from '@sinclair/typebox';
import type { EpsilonListRow } from '../venues/epsilon.ts';
import { cursorQuery, Pagination, StringEnum } from './common.ts';
import { isoFromMs, num, numOrNull } from './values.ts';
import {
  canonicalIdParam,
  floorParam,
  integerList,
  isoTime,
  nullableInteger,
  nullableNumber,
  nullableString,
  searchParam,
  servedStatus,
  statusParam,
  stringList,
} from './venue-markets.ts';

export const EPSILON_MARKET_SORTS = [
  'created',
  'created_asc',
  'price_desc',
  'price_asc',
  'bid_depth',
] as const;
export type EpsilonMarketSort = (typeof EPSILON_MARKET_SORTS)[number];
export const EPSILON_MARKET_VARIANTS = [
  'DEFAULT',
  'CRYPTO_UP_DOWN',
  'SPORTS_TEAM_MATCH',
  'SPORTS_MATCH',
  'TWEET_COUNT',
] as const;

export const EpsilonMarketsQuery = Type.Object({
  status: statusParam(),
  market_variant: Type.Optional(StringEnum(EPSILON_MARKET_VARIANTS)),
  search: searchParam(),
  min_bid_depth: floorParam('Minimum bid depth'),
  condition_id: stringList('Condition id'),
  market_slug: stringList('Market slug'),
  market_id: integerList('Market id'),
  token_id: stringList('Outcome token id; matches any outcome'),
  canonical_id: canonicalIdParam(),
  event_slug: stringList('Event slug'),
  sort: Type.Optional(
    StringEnum(EPSILON_MARKET_SORTS, {
      default: 'created',
      description:
        'created (newest first, default), created_asc, price_desc / price_asc (first outcome’s price; none ' +
        'last either way), bid_depth (deepest first). Ties by market_id',
    }),
  ),
  ...cursorQuery({ min: 1, max: 100, default: 20 }),
});
export type EpsilonMarketsQuery = Static<typeof EpsilonMarketsQuery>;

export const EpsilonOutcome = Type.Object(
  {
    label: Type.String(),
    token_id: Type.String({ default: '' }),
    canonical_id: Type.String({
      default: '',
      description:
        'Stable identifier of this real-world outcome across venues (pmc_ + 12 base32); "" when none',
    }),
    best_bid: nullableNumber('0–1'),
    best_ask: nullableNumber('0–1'),
  },
  { title: 'EpsilonOutcome' },
);

export const EpsilonMarket = Type.Object(
  {
    market_id: Type.Integer(),
    condition_id: Type.String({ default: '' }),
    title: Type.String(),
    description: Type.String({ default: '' }),
    status: servedStatus(),
    market_variant: Type.String({ default: '' }),
    outcomes: Type.Array(EpsilonOutcome),
    best_bid: nullableNumber('First outcome, 0–1'),
    best_ask: nullableNumber('First outcome, 0–1'),
    bid_depth: Type.Number({ default: 0 }),
    ask_depth: Type.Number({ default: 0 }),
    is_yield_bearing: Type.Boolean({ default: false }),
    is_neg_risk: Type.Boolean({ default: false }),
    event_slug: nullableString(),
    image_url: Type.String({ default: '' }),
    winning_outcome: nullableInteger(),
    payout_numerators: Type.Array(Type.Integer()),
    resolution_block: nullableInteger(),
    resolution_tx: nullableString(),
    created_time: isoTime(),
    updated_time: isoTime(),
  },
  { title: 'EpsilonMarket' },
);
export type EpsilonMarket = Static<typeof EpsilonMarket>;

export const EpsilonMarketsResponse = Type.Object({
  markets: Type.Array(EpsilonMarket),
  pagination: Pagination,
});

// ---- the row → EpsilonMarket mapping (the list's named columns: schemas/venues/epsilon.ts) ----

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const textOrNull = (v: unknown) => (v === null || v === undefined || v === '' ? null : String(v));
const intOrNull = (v: unknown) => {
  const x = numOrNull(v);
  return x === null ? null : Math.trunc(x);
};
const strings = (v: unknown) => ((v as unknown[] | null) ?? []).map(String);

/** One row of the list (its named columns) and its outcomes' canonical ids → the resource. */
export function toEpsilonMarket(r: EpsilonListRow, canonicalIds: readonly string[]): EpsilonMarket {
  const tokens = strings(r.token_ids);
  const bidList = r.outcome_best_bids ?? [];
  const askList = r.outcome_best_asks ?? [];
  return {
    market_id: Number(r.market_id),
    condition_id: text(r.condition_id),
    title: text(r.title),
    description: text(r.description),
    status: String(r.status) as EpsilonMarket['status'],
    market_variant: text(r.market_variant),
    outcomes: strings(r.outcomes).map((label, i) => ({
      label,
      token_id: tokens[i] ?? '',
      canonical_id: canonicalIds[i] ?? '',
      best_bid: numOrNull(bidList[i]),
      best_ask: numOrNull(askList[i]),
    })),
    best_bid: numOrNull(r.best_bid),
    best_ask: numOrNull(r.best_ask),
    bid_depth: num(r.bid_depth),
    ask_depth: num(r.ask_depth),
    is_yield_bearing: Boolean(r.is_yield_bearing),
    is_neg_risk: Boolean(r.is_neg_risk),
    event_slug: textOrNull(r.event_slug),
    image_url: text(r.image_url),
    winning_outcome: intOrNull(r.winning_outcome),
    payout_numerators: (r.payout_numerators ?? []).map(Number),
    resolution_block: intOrNull(r.resolution_block),
    resolution_tx: textOrNull(r.resolution_tx),
    created_time: isoFromMs(r.created_time_ms),
    updated_time: isoFromMs(r.updated_time_ms),
  };
}
