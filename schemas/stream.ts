/**
 * The stream's publications on Redis pub/sub, declared once: which Redis channel carries which stream
 * channel's messages (and which table's rows), and the messages themselves. The follower's publisher
 * (ingest/venues/alpha/chain/publish.ts) writes them; the streaming service (api/stream/) subscribes to
 * every publication of its channel list (api/stream/channels.ts) and reads them. Documented in
 * docs/chain-ingestion.md "Publication" and docs/streaming.md.
 */
import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from './api/common.ts';

/** A Redis channel the stream reads: `<prefix><redis>` (prefix `pmdata:` by default). */
export interface Publication {
  /** The Redis channel after the prefix, e.g. `alpha:trades`. */
  readonly redis: string;
  /** The table whose rows it carries (one message per row), when it carries a table's rows. */
  readonly table?: string;
}

/**
 * The stream channels fed by a publication, by name: the name is the message's `channel` (chain
 * publications) and the channel clients subscribe to.
 */
export const PUBLICATIONS = {
  trades: { redis: 'alpha:trades', table: 'alpha_fills' },
  activity: { redis: 'alpha:activity', table: 'alpha_activity' },
  lifecycle: { redis: 'alpha:lifecycle', table: 'alpha_lifecycle' },
  collateral: { redis: 'alpha:collateral', table: 'alpha_collateral' },
  oracle: { redis: 'alpha:oracle', table: 'alpha_oracle' },
  crypto_prices: { redis: 'crypto:prices' },
} as const satisfies Record<string, Publication>;

export type PublishedChannel = keyof typeof PUBLICATIONS;

/** The channels whose publication carries a table's rows, and that table. */
export type TablePublication = {
  [K in PublishedChannel]: (typeof PUBLICATIONS)[K] extends { table: infer T extends string }
    ? { channel: K; table: T; redis: string }
    : never;
}[PublishedChannel];

export const TABLE_PUBLICATIONS: readonly TablePublication[] = Object.entries(PUBLICATIONS).flatMap(
  ([channel, p]) => ('table' in p ? [{ channel, table: p.table, redis: p.redis } as TablePublication] : []),
);

export const PUBLISH_STATUSES = ['pending', 'confirmed', 'removed'] as const;
export type PublishStatus = (typeof PUBLISH_STATUSES)[number];

/**
 * One row published by the follower. `data` is the row as written (JS values, `block_time` in Unix ms,
 * status pending or confirmed), or, for rows re-read for `confirmed` and `removed`, ClickHouse's JSON
 * (64-bit integers as strings, `block_time` as text).
 */
export const StreamMessage = Type.Object({
  /** The stream channel (a key of PUBLICATIONS for the follower's). */
  channel: Type.String(),
  /** `order_filled`; `split`, `merge`, `redeem`, `conversion`; else the row's `kind`. */
  event: Type.String(),
  /** The row's own status; `confirmed` again past the finality depth; `removed` when a reorg orphaned it. */
  status: StringEnum(PUBLISH_STATUSES),
  chain_id: Type.Optional(Type.Integer()),
  /** When the follower published the batch (Unix ms). */
  published_at: Type.Optional(Type.Number()),
  data: Type.Record(Type.String(), Type.Unknown()),
});
export type StreamMessage = Static<typeof StreamMessage>;

/** A message on `<prefix>crypto:prices` (published by the price-feed collector): one observation. */
export const CryptoPriceMessage = Type.Object({
  /** The price-feed provider, e.g. `chainlink` (any case). */
  platform: Type.String(),
  /** e.g. `BTC/USD` (any case). */
  feed: Type.String(),
  price: Type.Union([Type.Number(), Type.String(), Type.Null()]),
  bid: Type.Optional(Type.Union([Type.Number(), Type.String(), Type.Null()])),
  ask: Type.Optional(Type.Union([Type.Number(), Type.String(), Type.Null()])),
  /** Unix seconds. */
  observed_at: Type.Union([Type.Number(), Type.String()]),
});
export type CryptoPriceMessage = Static<typeof CryptoPriceMessage>;
