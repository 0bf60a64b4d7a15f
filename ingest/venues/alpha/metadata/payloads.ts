/**
 * TypeBox schemas of alpha's metadata API records (schemas/upstream/alpha-metadata-api.yaml: Event,
 * Market, Series, Tag, RelatedTag), limited to the fields the catalog keeps, each checked one record at a
 * time: a record that fails is returned with its reason (the caller quarantines it) and the others go on.
 * Unknown fields are allowed (the upstream adds fields freely); a field the catalog keeps must have its
 * documented type when present. `id` is required everywhere.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { recordChecker } from '../../../rest/records.ts';

const Str = Type.Optional(Type.Union([Type.String(), Type.Null()]));
const Num = Type.Optional(Type.Union([Type.Number(), Type.Null()]));
const Bool = Type.Optional(Type.Union([Type.Boolean(), Type.Null()]));
/** A number the upstream sends as a number or as a decimal string, depending on the field's history. */
const NumOrStr = Type.Optional(Type.Union([Type.Number(), Type.String(), Type.Null()]));

export const TagPayload = Type.Object({
  id: Type.String(),
  label: Str,
  slug: Str,
  forceShow: Bool,
  forceHide: Bool,
  isCarousel: Bool,
  publishedAt: Str,
  createdAt: Str,
  updatedAt: Str,
});
export type TagPayload = Static<typeof TagPayload>;

export const RelatedTagPayload = Type.Object({
  id: Type.String(),
  tagID: Type.Union([Type.Integer(), Type.String()]),
  relatedTagID: Type.Union([Type.Integer(), Type.String()]),
  rank: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
});
export type RelatedTagPayload = Static<typeof RelatedTagPayload>;

export const MarketPayload = Type.Object({
  id: Type.String(),
  question: Str,
  conditionId: Str,
  questionID: Str,
  slug: Str,
  resolutionSource: Str,
  description: Str,
  category: Str,
  image: Str,
  icon: Str,
  /** JSON-encoded string arrays. */
  outcomes: Str,
  outcomePrices: Str,
  shortOutcomes: Str,
  clobTokenIds: Str,
  umaResolutionStatuses: Str,
  groupItemTitle: Str,
  groupItemThreshold: Str,
  marketType: Str,
  startDate: Str,
  endDate: Str,
  closedTime: Str,
  createdAt: Str,
  updatedAt: Str,
  active: Bool,
  closed: Bool,
  archived: Bool,
  restricted: Bool,
  acceptingOrders: Bool,
  enableOrderBook: Bool,
  automaticallyResolved: Bool,
  negRisk: Bool,
  negRiskOther: Bool,
  negRiskMarketID: Str,
  negRiskRequestID: Str,
  umaResolutionStatus: Str,
  resolvedBy: Str,
  orderPriceMinTickSize: Num,
  orderMinSize: Num,
  makerBaseFee: Num,
  takerBaseFee: Num,
  liquidityNum: Num,
  volumeNum: Num,
  volume24hr: Num,
  volume1wk: Num,
  volume1mo: Num,
  volume1yr: Num,
  competitive: Num,
  spread: Num,
  bestBid: Num,
  bestAsk: Num,
  lastTradePrice: Num,
  oneDayPriceChange: Num,
  oneWeekPriceChange: Num,
  gameId: Str,
  sportsMarketType: Str,
  gameStartTime: Str,
  teamAID: Str,
  teamBID: Str,
  /** `/markets` only: the parent events. */
  events: Type.Optional(Type.Array(Type.Object({ id: Type.String() }))),
});
export type MarketPayload = Static<typeof MarketPayload>;

/** An event's own fields; its nested markets, series and tags are checked one by one with their schemas. */
export const EventPayload = Type.Object({
  id: Type.String(),
  ticker: Str,
  slug: Str,
  title: Str,
  subtitle: Str,
  description: Str,
  resolutionSource: Str,
  category: Str,
  image: Str,
  icon: Str,
  startDate: Str,
  creationDate: Str,
  endDate: Str,
  closedTime: Str,
  createdAt: Str,
  updatedAt: Str,
  active: Bool,
  closed: Bool,
  archived: Bool,
  featured: Bool,
  restricted: Bool,
  negRisk: Bool,
  enableNegRisk: Bool,
  negRiskAugmented: Bool,
  negRiskMarketID: Str,
  negRiskFeeBips: Num,
  liquidity: NumOrStr,
  liquidityClob: NumOrStr,
  volume: NumOrStr,
  volume24hr: Num,
  volume1wk: Num,
  volume1mo: Num,
  volume1yr: Num,
  openInterest: NumOrStr,
  competitive: NumOrStr,
  commentCount: Num,
  sortBy: Str,
  seriesSlug: Str,
  startTime: Str,
  eventDate: Str,
  markets: Type.Optional(Type.Union([Type.Array(Type.Unknown()), Type.Null()])),
  series: Type.Optional(Type.Union([Type.Array(Type.Unknown()), Type.Null()])),
  tags: Type.Optional(Type.Union([Type.Array(Type.Unknown()), Type.Null()])),
});
export type EventPayload = Static<typeof EventPayload>;

export const SeriesPayload = Type.Object({
  id: Type.String(),
  ticker: Str,
  slug: Str,
  title: Str,
  seriesType: Str,
  recurrence: Str,
  layout: Str,
  image: Str,
  icon: Str,
  active: Bool,
  closed: Bool,
  archived: Bool,
  featured: Bool,
  restricted: Bool,
  publishedAt: Str,
  createdAt: Str,
  updatedAt: Str,
  startDate: Str,
  volume: NumOrStr,
  volume24hr: NumOrStr,
  liquidity: NumOrStr,
  commentCount: Num,
  events: Type.Optional(Type.Union([Type.Array(Type.Unknown()), Type.Null()])),
});
export type SeriesPayload = Static<typeof SeriesPayload>;

/** The kinds of record, as `quarantine.kind`. */
export type RecordKind = 'event' | 'market' | 'series' | 'tag' | 'tag_relation';

/** A record that failed its schema: what `quarantine` keeps of it. */
export interface InvalidRecord {
  kind: RecordKind;
  recordId: string;
  reason: string;
  payload: string;
}

export interface Checker<T> {
  kind: RecordKind;
  /** The record typed, or its reason of failure. */
  check(raw: unknown): { ok: true; value: T } | { ok: false; invalid: InvalidRecord };
}

/**
 * The id a failed record is quarantined under: its `id` when that is a string; when `id` itself is
 * broken, `slug:<slug>` (or the fallback the kind gives), so the record can still be found.
 */
export function recordIdOf(raw: unknown, fallback?: (r: Record<string, unknown>) => string | null): string {
  if (raw === null || typeof raw !== 'object') return '';
  const r = raw as Record<string, unknown>;
  if (typeof r.id === 'string') return r.id;
  const alt = fallback?.(r) ?? (typeof r.slug === 'string' ? `slug:${r.slug}` : null);
  return alt ?? JSON.stringify(r.id ?? null);
}

/** A JSON-encoded array of strings (`outcomes`, `clobTokenIds`, ...): the array, or null when it is not one. */
export function jsonStringArray(value: string | null | undefined): string[] | null {
  if (value === null || value === undefined || value === '') return [];
  try {
    const x: unknown = JSON.parse(value);
    return Array.isArray(x) && x.every((v) => typeof v === 'string') ? (x as string[]) : null;
  } catch {
    return null;
  }
}

const JSON_ARRAY_FIELDS = [
  'outcomes',
  'outcomePrices',
  'shortOutcomes',
  'clobTokenIds',
  'umaResolutionStatuses',
] as const;

/** A market's JSON-encoded arrays must decode to string arrays, outcomes and token ids of one length. */
function marketArrays(m: MarketPayload): string | null {
  for (const f of JSON_ARRAY_FIELDS) {
    if (jsonStringArray(m[f]) === null) return `/${f}: not a JSON-encoded array of strings`;
  }
  const tokens = jsonStringArray(m.clobTokenIds) ?? [];
  const outcomes = jsonStringArray(m.outcomes) ?? [];
  if (tokens.length > 0 && tokens.length !== outcomes.length) return '/clobTokenIds: not one per outcome';
  return null;
}

function checker<S extends TSchema>(
  kind: RecordKind,
  schema: S,
  fallback?: (r: Record<string, unknown>) => string | null,
  extra?: (value: Static<S>) => string | null,
): Checker<Static<S>> {
  const c = recordChecker(kind, schema, (r) => recordIdOf(r, fallback), extra);
  return { kind, check: (raw) => c.check(raw) as ReturnType<Checker<Static<S>>['check']> };
}

export const CHECKERS = {
  event: checker('event', EventPayload),
  market: checker(
    'market',
    MarketPayload,
    (r) => (typeof r.conditionId === 'string' ? `condition:${r.conditionId}` : null),
    marketArrays,
  ),
  series: checker('series', SeriesPayload),
  tag: checker('tag', TagPayload),
  tag_relation: checker('tag_relation', RelatedTagPayload, (r) =>
    r.tagID !== undefined && r.relatedTagID !== undefined ? `${r.tagID}->${r.relatedTagID}` : null,
  ),
} as const;
