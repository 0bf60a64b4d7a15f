/**
 * `GET /v2/delta/markets` (interface-shapes §18.3): query and response. A categorical market's
 * alternatives are markets of one event (`event_id` = the parent categorical market). Outcome
 * `token_id` and `canonical_id` default to `""` (§0.5).
 */
import { type Static, Type } from '@sinclair/typebox';
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

export const DELTA_MARKET_SORTS = [
  'volume',
  'volume_24h',
  'volume_7d',
  'created',
  'created_asc',
  'expiration',
] as const;
export type DeltaMarketSort = (typeof DELTA_MARKET_SORTS)[number];
export const DELTA_MARKET_TYPES = ['binary', 'categorical'] as const;

export const DeltaMarketsQuery = Type.Object({
  status: statusParam(),
  market_type: Type.Optional(StringEnum(DELTA_MARKET_TYPES, { description: 'binary or categorical' })),
  search: searchParam(),
  labels: stringList('Label (any of the market’s labels)'),
  min_volume: floorParam('Minimum lifetime volume, USD'),
  condition_id: stringList('Condition id'),
  market_slug: stringList('Market slug'),
  market_id: integerList('Market id'),
  canonical_id: canonicalIdParam(),
  token_id: stringList('Outcome token id; matches any outcome'),
  event_id: integerList('Event (parent categorical market) id'),
  event_slug: stringList('Event slug'),
  sort: Type.Optional(
    StringEnum(DELTA_MARKET_SORTS, {
      default: 'volume',
      description:
        'volume (lifetime, default), volume_24h, volume_7d, created (newest first), created_asc, expiration ' +
        '(latest cutoff first). Descending metrics; ties by market_id; missing times last either way',
    }),
  ),
  ...cursorQuery({ min: 1, max: 100, default: 20 }),
});
export type DeltaMarketsQuery = Static<typeof DeltaMarketsQuery>;

export const DeltaOutcome = Type.Object(
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
  { title: 'DeltaOutcome' },
);

export const DeltaMarket = Type.Object(
  {
    market_id: Type.Integer(),
    title: Type.String(),
    slug: Type.String(),
    description: Type.String({ default: '' }),
    status: servedStatus(),
    market_type: StringEnum(DELTA_MARKET_TYPES),
    outcomes: Type.Array(DeltaOutcome),
    total_volume_usd: Type.Number({ default: 0 }),
    volume_24h_usd: Type.Number({ default: 0 }),
    volume_7d_usd: Type.Number({ default: 0 }),
    condition_id: Type.String({ default: '' }),
    question_id: Type.String({ default: '' }),
    result_token_id: nullableString('The winning token once resolved'),
    event_id: nullableInteger('Parent categorical market id'),
    event_slug: nullableString(),
    event_title: nullableString(),
    labels: Type.Array(Type.String()),
    thumbnail_url: Type.String({ default: '' }),
    chain_id: Type.String({ default: '' }),
    quote_token: Type.String({ default: '', description: 'Collateral token address' }),
    collection: Type.Union([
      Type.Object({ title: Type.String(), symbol: Type.String(), frequency: Type.String() }),
      Type.Null(),
    ]),
    created_time: isoTime(),
    cutoff_time: isoTime(),
    resolved_time: isoTime(),
  },
  { title: 'DeltaMarket' },
);
export type DeltaMarket = Static<typeof DeltaMarket>;

export const DeltaMarketsResponse = Type.Object({ markets: Type.Array(DeltaMarket), pagination: Pagination });

// ---- the row → DeltaMarket mapping (the list's `columns`, in order: schemas/venues/delta.ts) ----

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
