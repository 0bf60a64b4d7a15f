/**
 * `GET /v2/delta/markets` (interface-shapes §18.3): query and response. A categorical market's
 * alternatives are markets of one event (`event_id` = the parent categorical market). Outcome
 * `token_id` and `canonical_id` default to `""` (§0.5).
 */
import { type Static, Type } from '@sinclair/typebox';
import type { DeltaListRow } from '../venues/delta.ts';
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

// ---- the row → DeltaMarket mapping (the list's named columns: schemas/venues/delta.ts) ----

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const textOrNull = (v: unknown) => (v === null || v === undefined || v === '' ? null : String(v));
const strings = (v: unknown) => ((v as unknown[] | null) ?? []).map(String);

/** One row of the list (its named columns) and its outcomes' canonical ids → the resource. */
export function toDeltaMarket(r: DeltaListRow, canonicalIds: readonly string[]): DeltaMarket {
  const tokens = strings(r.token_ids);
  const priceList = r.prices ?? [];
  const event = numOrNull(r.event_id);
  return {
    market_id: Number(r.market_id),
    title: text(r.title),
    slug: text(r.slug),
    description: text(r.description),
    status: String(r.status) as DeltaMarket['status'],
    market_type: String(r.market_type) as DeltaMarket['market_type'],
    outcomes: strings(r.outcomes).map((label, i) => ({
      label,
      token_id: tokens[i] ?? '',
      canonical_id: canonicalIds[i] ?? '',
      price: numOrNull(priceList[i]),
    })),
    total_volume_usd: num(r.volume_usd),
    volume_24h_usd: num(r.volume_24h_usd),
    volume_7d_usd: num(r.volume_7d_usd),
    condition_id: text(r.condition_id),
    question_id: text(r.question_id),
    result_token_id: textOrNull(r.result_token_id),
    event_id: event === null || event === 0 ? null : event,
    event_slug: textOrNull(r.event_slug),
    event_title: textOrNull(r.event_title),
    labels: strings(r.labels),
    thumbnail_url: text(r.thumbnail_url),
    chain_id: text(r.chain_id),
    quote_token: text(r.quote_token),
    collection:
      text(r.collection_title) === '' &&
      text(r.collection_symbol) === '' &&
      text(r.collection_frequency) === ''
        ? null
        : {
            title: text(r.collection_title),
            symbol: text(r.collection_symbol),
            frequency: text(r.collection_frequency),
          },
    created_time: isoFromMs(r.created_time_ms),
    cutoff_time: isoFromMs(r.cutoff_time_ms),
    resolved_time: isoFromMs(r.resolved_time_ms),
  };
}
