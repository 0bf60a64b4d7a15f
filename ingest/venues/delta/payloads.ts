/**
 * TypeBox schemas of venue delta's records (schemas/upstream/delta-api.yaml, "Opinion"), limited to the
 * fields the ingestor keeps, each checked one record at a time (ingest/rest/records.ts): a record that
 * fails comes back with its reason for the quarantine and the others go on. Unknown fields are allowed.
 *
 * - Every answer is `{code, msg, result}`; `code` 0 is success, anything else an upstream error
 *   (`Envelope`).
 * - `/market` pages serve `MarketData`: a binary market (`marketType` 0) or a categorical one
 *   (`marketType` 1) whose `childMarkets` (`ChildMarketData`) are binary markets with their own tokens.
 *   The parent is checked without its children (`market`), each child on its own (`child`).
 * - Amounts (`volume`, `volume24h`, `volume7d`) are decimal strings in USD; times Unix seconds (0 = none).
 * - A record's id is its `marketId`.
 */
import { type Static, Type } from '@sinclair/typebox';
import { type InvalidRecord, idText, recordChecker } from '../../rest/records.ts';

export type { InvalidRecord };

const Str = Type.Optional(Type.Union([Type.String(), Type.Null()]));
const Seconds = Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]));
/** A decimal amount: a string like "1234.5", a number accepted too. */
const Amount = Type.Optional(
  Type.Union([Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' }), Type.Number({ minimum: 0 }), Type.Null()]),
);
const Id = Type.Integer({ minimum: 1 });

/** Fields a binary market, a categorical parent and a child share. */
const Common = {
  marketId: Id,
  marketTitle: Type.String(),
  /** The slug `/market/slug/{slug}` takes (not listed in the file's MarketData; absent → ''). */
  slug: Str,
  /** 1 Created, 2 Activated, 3 Resolving, 4 Resolved, 5 Failed, 6 Deleted. */
  status: Type.Integer({ minimum: 1, maximum: 6 }),
  statusEnum: Str,
  yesLabel: Str,
  noLabel: Str,
  rules: Str,
  yesTokenId: Str,
  noTokenId: Str,
  conditionId: Str,
  resultTokenId: Str,
  volume: Amount,
  quoteToken: Str,
  chainId: Str,
  questionId: Str,
  createdAt: Seconds,
  cutoffAt: Seconds,
  resolvedAt: Seconds,
};

const Collection = Type.Optional(
  Type.Union([Type.Object({ title: Str, symbol: Str, frequency: Str }), Type.Null()]),
);

export const MarketPayload = Type.Object({
  ...Common,
  marketType: Type.Union([Type.Literal(0), Type.Literal(1)]),
  childMarkets: Type.Optional(Type.Union([Type.Array(Type.Unknown()), Type.Null()])),
  volume24h: Amount,
  volume7d: Amount,
  collection: Collection,
});
export type MarketPayload = Static<typeof MarketPayload>;

export const ChildPayload = Type.Object(Common);
export type ChildPayload = Static<typeof ChildPayload>;

/** The wrapper of every answer. */
export const Envelope = Type.Object({
  code: Type.Integer(),
  msg: Type.Optional(Type.Unknown()),
  result: Type.Unknown(),
});
export type Envelope = Static<typeof Envelope>;

/** `/token/latest-price`'s result. */
export const LatestPrice = Type.Object({
  tokenId: Type.String(),
  price: Type.Union([Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' }), Type.Number({ minimum: 0 })]),
});
export type LatestPrice = Static<typeof LatestPrice>;

/** A book level: decimal strings (numbers accepted too); a price outside 0–1 fails the book. */
const BookPrice = Type.Union([
  Type.String({ pattern: '^(0(\\.[0-9]+)?|\\.[0-9]+|1(\\.0+)?)$' }),
  Type.Number({ minimum: 0, maximum: 1 }),
]);
const BookSize = Type.Union([Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' }), Type.Number({ minimum: 0 })]);
const BookLevel = Type.Object({ price: BookPrice, size: BookSize });

/** `/token/orderbook`'s result: a token's book (bids descending, asks ascending), `timestamp` Unix ms. */
export const OrderbookPayload = Type.Object({
  tokenId: Type.String(),
  timestamp: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
  bids: Type.Array(BookLevel),
  asks: Type.Array(BookLevel),
});
export type OrderbookPayload = Static<typeof OrderbookPayload>;

export const recordIdOf = (raw: Record<string, unknown>) => idText(raw.marketId);

export const CHECKERS = {
  market: recordChecker('market', MarketPayload, recordIdOf),
  child: recordChecker('child', ChildPayload, recordIdOf),
  envelope: recordChecker('envelope', Envelope, () => ''),
  latest_price: recordChecker('latest_price', LatestPrice, (r) => idText(r.tokenId)),
  orderbook: recordChecker('orderbook', OrderbookPayload, (r) => idText(r.tokenId)),
};
