/**
 * TypeBox schemas of venue gamma's records (schemas/upstream/gamma-api.yaml, "Limitless"), limited to the
 * fields the ingestor keeps, each checked one record at a time (ingest/rest/records.ts): a record that
 * fails comes back with its reason for the quarantine and the others go on. Unknown fields are allowed.
 *
 * - `/markets/active` serves entries: a single binary market (`tradeType` `amm` or `clob`) or a group
 *   (`marketType: 'group'`) holding its binary markets in `markets`; each nested market is checked on its
 *   own (`market`), the group without them (`group`). `/markets/{slug}` answers one such entry.
 * - Amounts (`volume`, `openInterest`, `liquidity`) are decimal strings in collateral base units;
 *   `prices` are percents, one per outcome; `expirationTimestamp` is Unix ms.
 * - The file's `Market` schema documents `image_url`, `payout_numerators` (decimal strings),
 *   `resolutionTxHash` and `winning_index`: kept when an answer carries them.
 * - A record's id is its `slug`, or its numeric `id` when the slug is unreadable.
 * - `/markets/active/slugs` entries (`slug`, a group's `markets[].slug`) are checked as `active_slug`.
 */
import { type Static, Type } from '@sinclair/typebox';
import { type InvalidRecord, idText, recordChecker } from '../../rest/records.ts';

export type { InvalidRecord };

const Str = Type.Optional(Type.Union([Type.String(), Type.Null()]));
const Num = Type.Optional(Type.Union([Type.Number(), Type.Null()]));
const Bool = Type.Optional(Type.Union([Type.Boolean(), Type.Null()]));
/** An amount in base units: a decimal integer string (a number is accepted too). */
const Amount = Type.Optional(
  Type.Union([Type.String({ pattern: '^[0-9]+$' }), Type.Number({ minimum: 0 }), Type.Null()]),
);
const Labels = Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()]));

const Collateral = Type.Optional(
  Type.Union([
    Type.Object({
      address: Str,
      symbol: Str,
      decimals: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 36 }), Type.Null()])),
    }),
    Type.Null(),
  ]),
);
const Venue = Type.Optional(Type.Union([Type.Object({ exchange: Str, adapter: Str }), Type.Null()]));

/** Fields a single market and a group share. */
const Common = {
  id: Num,
  slug: Type.String({ minLength: 1 }),
  title: Type.String(),
  description: Str,
  collateralToken: Collateral,
  categories: Labels,
  tags: Labels,
  status: Type.String(),
  expired: Bool,
  expirationTimestamp: Num,
  volume: Amount,
  openInterest: Amount,
  liquidity: Amount,
  createdAt: Str,
  venue: Venue,
};

export const MarketPayload = Type.Object({
  ...Common,
  address: Str,
  conditionId: Type.String(),
  prices: Type.Array(Type.Union([Type.Number({ minimum: 0, maximum: 100 }), Type.Null()])),
  tradeType: Type.Union([Type.Literal('amm'), Type.Literal('clob')]),
  marketType: Str,
  updatedAt: Str,
  winningOutcomeIndex: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 255 }), Type.Null()])),
  winning_index: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 255 }), Type.Null()])),
  outcomeTokens: Labels,
  positionIds: Labels,
  tokens: Type.Optional(Type.Union([Type.Object({ yes: Str, no: Str }), Type.Null()])),
  image_url: Str,
  payout_numerators: Type.Optional(
    Type.Union([Type.Array(Type.Union([Type.String({ pattern: '^[0-9]+$' }), Type.Integer()])), Type.Null()]),
  ),
  resolutionTxHash: Str,
});
export type MarketPayload = Static<typeof MarketPayload>;

export const GroupPayload = Type.Object({
  ...Common,
  tradeType: Str,
  marketType: Type.Literal('group'),
  markets: Type.Array(Type.Unknown()),
});
export type GroupPayload = Static<typeof GroupPayload>;

export const ActiveSlugPayload = Type.Object({
  slug: Type.String({ minLength: 1 }),
  markets: Type.Optional(Type.Union([Type.Array(Type.Object({ slug: Type.String() })), Type.Null()])),
});
export type ActiveSlugPayload = Static<typeof ActiveSlugPayload>;

/** A record's id: its slug, else its numeric id, else ''. */
export function recordIdOf(raw: Record<string, unknown>): string {
  return typeof raw.slug === 'string' && raw.slug !== '' ? raw.slug : idText(raw.id);
}

/** Whether a raw entry is a group (checked with `group`) rather than a single market. */
export function isGroupEntry(raw: unknown): boolean {
  if (raw === null || typeof raw !== 'object') return false;
  const r = raw as Record<string, unknown>;
  return r.marketType === 'group' || Array.isArray(r.markets);
}

const BookLevel = Type.Object({
  price: Type.Number({ minimum: 0, maximum: 1 }),
  size: Type.Number({ minimum: 0 }),
});

/** `/markets/{slug}/orderbook` (a clob market's YES book): bids and asks, any order; its midpoints. */
export const OrderbookPayload = Type.Object({
  bids: Type.Array(BookLevel),
  asks: Type.Array(BookLevel),
  midpoint: Num,
  adjustedMidpoint: Num,
  tokenId: Str,
});
export type OrderbookPayload = Static<typeof OrderbookPayload>;

export const CHECKERS = {
  /** Its id is the slug asked for (the client sets it; the payload names none). */
  orderbook: recordChecker('orderbook', OrderbookPayload, () => ''),
  market: recordChecker('market', MarketPayload, recordIdOf),
  group: recordChecker('group', GroupPayload, recordIdOf),
  active_slug: recordChecker('active_slug', ActiveSlugPayload, recordIdOf),
};
