/**
 * TypeBox schemas of venue epsilon's records (schemas/upstream/epsilon-api.yaml, "Probable"), limited
 * to the fields the ingestor keeps, each checked one record at a time (ingest/rest/records.ts): a record
 * that fails comes back with its reason for the quarantine and the others go on. Unknown fields are
 * allowed.
 *
 * - `/public/api/v1/markets/` serves `{markets, pagination: {page, limit, total, hasMore}}`; a market's
 *   `id` is a decimal string, `outcomes` and `clobTokenIds` real arrays, `outcomePrices` decimal strings
 *   (0–1), `volume` a number (USD), times ISO 8601, `event_id` its event's id.
 * - `/public/api/v1/events/` serves a plain list of events (`id`, `slug`, `title`, `status`, `markets`,
 *   `volume`, `negRisk`, `tags`); the nested markets are not checked (the markets listing is).
 * - `/public/api/v1/tags/`: `{id, label, slug}`; `/public/api/v1/book`: a CLOB book (`bids`, `asks` of
 *   `{price, size}` decimal strings). The file gives these two no schema; the fields are the live ones.
 * - A market's or event's id is its `id` (a decimal string); when that is unreadable, its slug
 *   (`market_slug`, `slug`), so a quarantined record can still be found. A tag's id is its `id`.
 */
import { type Static, Type } from '@sinclair/typebox';
import { type InvalidRecord, idText, recordChecker } from '../../rest/records.ts';

export type { InvalidRecord };

const Str = Type.Optional(Type.Union([Type.String(), Type.Null()]));
const Bool = Type.Optional(Type.Union([Type.Boolean(), Type.Null()]));
const NumOpt = Type.Optional(Type.Union([Type.Number(), Type.Null()]));
/** A market's or event's id: a decimal string (the file's type). */
const Id = Type.String({ pattern: '^[0-9]+$' });
/** An id some answers serve as a number (a market's `event_id`, a tag's `id`). */
const IntId = Type.Union([Id, Type.Integer({ minimum: 0 })]);
const Decimal = Type.Union([Type.String({ pattern: '^-?[0-9]+(\\.[0-9]+)?$' }), Type.Number()]);

export const MarketPayload = Type.Object({
  id: Id,
  question: Type.String(),
  market_slug: Str,
  outcomes: Type.Array(Type.String()),
  outcomePrices: Type.Optional(Type.Union([Type.Array(Type.Union([Decimal, Type.Null()])), Type.Null()])),
  active: Type.Boolean(),
  closed: Type.Boolean(),
  clobTokenIds: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
  conditionId: Str,
  questionId: Str,
  event_id: Type.Optional(Type.Union([IntId, Type.Null()])),
  groupItemTitle: Str,
  description: Str,
  startDate: Str,
  endDate: Str,
  volume: Type.Optional(Type.Union([Decimal, Type.Null()])),
  lastTradePrice: NumOpt,
  bestBid: NumOpt,
  bestAsk: NumOpt,
  winningOutcome: Str,
  resolvedAt: Str,
  image: Str,
  isYieldBearing: Bool,
  marketVariant: Str,
});
export type MarketPayload = Static<typeof MarketPayload>;

const TagObject = Type.Object({ id: IntId, label: Type.String(), slug: Str });

export const EventPayload = Type.Object({
  id: Id,
  slug: Type.String(),
  title: Type.String(),
  description: Str,
  status: Str,
  markets: Type.Optional(Type.Union([Type.Array(Type.Unknown()), Type.Null()])),
  volume: Type.Optional(Type.Union([Decimal, Type.Null()])),
  startDate: Str,
  endDate: Str,
  createdAt: Str,
  negRisk: Bool,
  tags: Type.Optional(Type.Union([Type.Array(TagObject), Type.Null()])),
});
export type EventPayload = Static<typeof EventPayload>;

export const TagPayload = TagObject;
export type TagPayload = Static<typeof TagPayload>;

/** A book price: 0–1 (a level priced outside it fails the book's schema, and the book is read again). */
const Price = Type.Union([
  Type.String({ pattern: '^(0(\\.[0-9]+)?|\\.[0-9]+|1(\\.0+)?)$' }),
  Type.Number({ minimum: 0, maximum: 1 }),
]);
const Size = Type.Union([Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' }), Type.Number({ minimum: 0 })]);
const Level = Type.Object({ price: Price, size: Size });
export const BookPayload = Type.Object({
  asset_id: Type.Optional(Type.String()),
  /** The book's time, Unix ms (a decimal string upstream). */
  timestamp: Type.Optional(Type.Union([Type.String({ pattern: '^[0-9]+$' }), Type.Integer({ minimum: 0 })])),
  bids: Type.Array(Level),
  asks: Type.Array(Level),
});
export type BookPayload = Static<typeof BookPayload>;

/** A market's or event's id: its `id` when a decimal string, else its slug, else ''. */
export function recordIdOf(raw: Record<string, unknown>): string {
  const id = raw.id;
  if (typeof id === 'string' && /^[0-9]+$/.test(id)) return id;
  for (const k of ['market_slug', 'slug'])
    if (typeof raw[k] === 'string' && raw[k] !== '') return raw[k] as string;
  return '';
}

export const CHECKERS = {
  market: recordChecker('market', MarketPayload, recordIdOf, (m) =>
    m.clobTokenIds && m.clobTokenIds.length > 0 && m.clobTokenIds.length !== m.outcomes.length
      ? 'clobTokenIds: not one per outcome'
      : null,
  ),
  event: recordChecker('event', EventPayload, recordIdOf),
  tag: recordChecker('tag', TagPayload, (r) => idText(r.id)),
  book: recordChecker('book', BookPayload, (r) => (typeof r.asset_id === 'string' ? r.asset_id : '')),
};
