/**
 * The stream's channels, declared once (docs/streaming.md "Channels and filters"; the recipe is
 * docs/contributing.md "A channel"). Each entry says:
 * - `publication`: the Redis channel it reads (schemas/stream.ts PUBLICATIONS: the follower's tables and
 *   `crypto:prices`); the service subscribes to every publication of its list;
 * - `filters`: the filter keys a subscription may use (protocol.ts validates their values; the first is
 *   `pmdata tail`'s default) and how an event's values for each key are read from its data;
 * - `event`: one message → the event's data (with its status and chain position), or null when the
 *   channel does not carry that message.
 * The protocol (protocol.ts), the service's subscription and fan-out (service.ts) and `pmdata tail` read
 * this one list; the service takes extra channels beside it (`StreamServiceOptions.extraChannels`).
 *
 * trades and activity are their REST resources' items: the row read from the message (`messageRow`: the
 * shape GET /v2/alpha/trades and /v2/alpha/activity read), the same lookups and the same `toTrade` /
 * `toActivity`, plus `event_type` and `status` (the message's: pending, confirmed or removed), plus what
 * SPEC "Streaming" adds on the stream: trades' `version` (= exchange_version, 1 or 2) and conversions'
 * `neg_risk_event_id` (= neg_risk_market_id). The other channels have no REST resource: their mappings
 * are here.
 */
import {
  type CryptoPriceMessage,
  PUBLICATIONS,
  type Publication,
  type PublishStatus,
  type StreamMessage,
} from '../../schemas/stream.ts';
import { ALPHA_ACTIVITY, ALPHA_FILLS } from '../../schemas/tables/alpha-chain.ts';
import type { MarketSlugResolver } from '../markets.ts';
import {
  ACTIVITY_SELECTION,
  type ActivityRow,
  activityLookups,
  toActivity,
} from '../queries/alpha/activity.ts';
import type { TokenConditions } from '../queries/alpha/tokens.ts';
import { FILL_SELECTION, type FillRow, toTrade, tradeLookups } from '../queries/alpha/trades.ts';
import {
  bool,
  int,
  json,
  lower,
  messageRow,
  nullable,
  type Position,
  type Row,
  type StreamEvent,
  str,
  units,
  unixSeconds,
} from './events.ts';
import type { FilterKey } from './protocol.ts';

/** What a channel's mapping may use besides the message. */
export interface ChannelEnv {
  /** token → condition (in-process): fills ingested before their token's market was known. */
  tokens: Pick<TokenConditions, 'get'>;
  /** Market slugs of conditions (in-process maps; the service caches what they know). */
  markets: MarketSlugResolver;
}

/** What a channel makes of one message. */
export interface ChannelEvent {
  data: Row;
  status: PublishStatus;
  /** Chain position; null for events that have none (crypto prices). */
  position: Position | null;
  /** The platform the event is of (channels with `platform`). */
  platform?: string;
  /** Unix ms it was published at, when the message says. */
  publishedAt?: number;
}

export interface StreamChannel {
  /** What clients subscribe to. */
  readonly name: string;
  /** The Redis channel its messages arrive on (after the service's prefix). */
  readonly publication: Publication;
  /**
   * The filter keys a subscription may use, in the order error messages list them (the first is
   * `pmdata tail`'s default), each with the event's values for it (addresses and hashes lowercase).
   */
  readonly filters: Partial<Record<FilterKey, (data: Row) => (string | null)[]>>;
  /** Subscriptions may ask for pending (and removed) rows with `filters.status` (trades). */
  readonly pending?: boolean;
  /** Subscriptions name a `platform` and carry this `type` (crypto_prices: `crypto`). */
  readonly platform?: { type: string };
  /** One message (parsed JSON) → the event, or null when the channel does not carry it. */
  event(message: unknown, env: ChannelEnv): ChannelEvent | null | Promise<ChannelEvent | null>;
}

/** A follower message (schemas/stream.ts StreamMessage), or null when it is not one. */
export function chainMessage(m: unknown): StreamMessage | null {
  if (!m || typeof m !== 'object') return null;
  const data = (m as { data?: unknown }).data;
  return data && typeof data === 'object' ? (m as StreamMessage) : null;
}

/** A follower message's event: its data, its status and its row's chain position. */
function chainEvent(m: StreamMessage, data: Row): ChannelEvent {
  return {
    data,
    status: m.status,
    position: { block_number: int(m.data.block_number), log_index: int(m.data.log_index) },
    publishedAt: typeof m.published_at === 'number' ? m.published_at : undefined,
  };
}

/** The block time of a message's row in Unix seconds: REST's `timestamp` (toUnixTimestamp(block_time)). */
const timestamp = (r: Row) => unixSeconds(r.block_time);

/** A fill as GET /v2/alpha/trades reads it. */
const fillRow = messageRow<FillRow>(ALPHA_FILLS, FILL_SELECTION, { timestamp });

/** An activity row as GET /v2/alpha/activity reads it. */
const activityRow = messageRow<ActivityRow>(ALPHA_ACTIVITY, ACTIVITY_SELECTION, { timestamp });

/** `order_filled`: the trade of GET /v2/alpha/trades plus event_type and status; SPEC adds `version`. */
const trades: StreamChannel = {
  name: 'trades',
  publication: PUBLICATIONS.trades,
  filters: {
    users: (d) => [lower(d.maker)],
    condition_ids: (d) => [lower(d.condition_id)],
    market_slugs: (d) => [(d.market_slug as string | null) ?? null],
    token_ids: (d) => [str(d.token_id) || null],
  },
  pending: true,
  async event(message, env) {
    const m = chainMessage(message);
    if (!m) return null;
    const row = fillRow(m.data);
    const trade = toTrade(row, await tradeLookups([row], env.tokens, env.markets));
    // SPEC "Streaming": trades carry `version` (1 or 2), the exchange version.
    const data = { event_type: 'order_filled', ...trade, status: m.status, version: trade.exchange_version };
    return chainEvent(m, data);
  },
};

/**
 * `split`, `merge`, `redeem`, `conversion`: the row of GET /v2/alpha/activity plus event_type and status;
 * SPEC adds `neg_risk_event_id` (= neg_risk_market_id) to conversions.
 */
const activity: StreamChannel = {
  name: 'activity',
  publication: PUBLICATIONS.activity,
  filters: {
    users: (d) => [lower(d.wallet)],
    condition_ids: (d) => [lower(d.condition_id)],
    market_slugs: (d) => [(d.market_slug as string | null) ?? null],
  },
  async event(message, env) {
    const m = chainMessage(message);
    if (!m) return null;
    const row = activityRow(m.data);
    const item = toActivity(row, await activityLookups([row], env.markets));
    const data: Row = { event_type: m.event, ...item, status: m.status };
    if (item.type === 'CONVERT') data.neg_risk_event_id = item.neg_risk_market_id;
    return chainEvent(m, data);
  },
};

/** What every chain event of the channels without a REST resource starts with. */
function head(r: Row, status: string) {
  return {
    tx_hash: str(r.tx_hash),
    log_index: int(r.log_index),
    block_number: int(r.block_number),
    timestamp: unixSeconds(r.block_time),
    status,
  };
}

/** Every alpha_lifecycle kind by name; condition_prepared of 2 outcomes carries its tokens. */
const lifecycle: StreamChannel = {
  name: 'lifecycle',
  publication: PUBLICATIONS.lifecycle,
  filters: { condition_ids: (d) => [lower(d.condition_id)] },
  event(message) {
    const m = chainMessage(message);
    if (!m) return null;
    const r = m.data;
    const slots = int(r.outcome_slot_count);
    const tokens = m.event === 'condition_prepared' && slots === 2 ? json(r.tokens) : null;
    return chainEvent(m, {
      event_type: m.event,
      ...head(r, m.status),
      version: int(r.version),
      neg_risk: bool(r.neg_risk),
      contract: str(r.contract),
      condition_id: nullable(r.condition_id),
      question_id: nullable(r.question_id),
      market_id: nullable(r.market_id),
      oracle: nullable(r.oracle),
      outcome_slot_count: slots,
      tokens: Array.isArray(tokens) ? tokens : null,
      payout_numerators: Array.isArray(r.payout_numerators) ? r.payout_numerators.map(String) : [],
      args: json(r.args),
    });
  },
};

/** Collateral kinds the channel carries (plain transfers are not streamed). */
export const COLLATERAL_EVENTS: Record<string, string> = { wrap: 'wrap', unwrap: 'unwrap' };

const collateral: StreamChannel = {
  name: 'collateral',
  publication: PUBLICATIONS.collateral,
  filters: { users: (d) => [lower(d.from_address), lower(d.to_address), lower(d.caller)] },
  event(message) {
    const m = chainMessage(message);
    const event = m && COLLATERAL_EVENTS[m.event];
    if (!m || !event) return null;
    const r = m.data;
    return chainEvent(m, {
      event_type: event,
      ...head(r, m.status),
      token: str(r.token),
      symbol: str(r.symbol),
      from_address: str(r.from_address),
      to_address: str(r.to_address),
      caller: str(r.caller),
      asset: str(r.asset),
      amount: units(r.amount),
    });
  },
};

/** alpha_oracle kinds → the oracle channel's event types (docs/streaming.md); other kinds are not streamed. */
export const ORACLE_EVENTS: Record<string, string> = {
  propose_price: 'proposal',
  dispute_price: 'dispute',
  settle: 'settlement',
  question_reset: 'reset',
};

const oracle: StreamChannel = {
  name: 'oracle',
  publication: PUBLICATIONS.oracle,
  filters: {
    condition_ids: (d) => [lower(d.condition_id)],
    question_ids: (d) => [lower(d.question_id)],
  },
  event(message) {
    const m = chainMessage(message);
    const event = m && ORACLE_EVENTS[m.event];
    if (!m || !event) return null;
    const r = m.data;
    return chainEvent(m, {
      event_type: event,
      kind: m.event,
      ...head(r, m.status),
      contract: str(r.contract),
      neg_risk: bool(r.neg_risk),
      question_id: nullable(r.question_id),
      // The ingested row's condition (ingest/venues/alpha/chain/mappers/uma.ts); null when not known.
      condition_id: nullable(r.condition_id),
      requester: nullable(r.requester),
      proposer: nullable(r.proposer),
      disputer: nullable(r.disputer),
      identifier: nullable(r.identifier),
      request_timestamp: int(r.request_timestamp),
      ancillary_data: str(r.ancillary_data),
      price: nullable(r.price),
      payouts: Array.isArray(r.payouts) ? r.payouts.map(String) : [],
      args: json(r.args),
    });
  },
};

/** A `<prefix>crypto:prices` message (schemas/stream.ts CryptoPriceMessage) → a price_feed event. */
const cryptoPrices: StreamChannel = {
  name: 'crypto_prices',
  publication: PUBLICATIONS.crypto_prices,
  filters: { feeds: (d) => [str(d.feed)] },
  platform: { type: 'crypto' },
  event(message) {
    if (!message || typeof message !== 'object') return null;
    const m = message as Partial<CryptoPriceMessage>;
    const platform = str(m.platform).toLowerCase();
    const feed = str(m.feed).toUpperCase();
    if (!platform || !feed) return null;
    const num = (v: unknown) => (v === null || v === undefined || v === '' ? null : Number(v));
    return {
      data: {
        event_type: 'price_feed',
        platform,
        type: 'crypto',
        feed,
        price: num(m.price),
        bid: num(m.bid),
        ask: num(m.ask),
        observed_at: int(m.observed_at),
      },
      status: 'confirmed',
      position: null,
      platform,
    };
  },
};

/** The stream's channels. */
export const CHANNELS: readonly StreamChannel[] = [
  trades,
  activity,
  lifecycle,
  collateral,
  oracle,
  cryptoPrices,
];

/** Channels by name. */
export type ChannelSet = ReadonlyMap<string, StreamChannel>;

/** CHANNELS and `extra` by name (a name declared twice is an error). */
export function channelSet(extra: readonly StreamChannel[] = []): ChannelSet {
  const set = new Map<string, StreamChannel>();
  for (const c of [...CHANNELS, ...extra]) {
    if (set.has(c.name)) throw new Error(`Stream channel ${c.name} is declared twice`);
    set.set(c.name, c);
  }
  return set;
}

/** The stream's own channels by name. */
export const STREAM_CHANNELS: ChannelSet = channelSet();

/** One message of `channel` → the event the subscriptions match (its data serialized once), or null. */
export async function streamEvent(
  channel: StreamChannel,
  message: unknown,
  env: ChannelEnv,
): Promise<StreamEvent | null> {
  const e = await channel.event(message, env);
  if (!e) return null;
  const keys: Record<string, (string | null)[]> = {};
  for (const [key, values] of Object.entries(channel.filters)) keys[key] = values(e.data);
  return {
    channel: channel.name,
    status: e.status,
    position: e.position,
    data: e.data,
    json: JSON.stringify(e.data),
    keys,
    platform: e.platform,
    publishedAt: e.publishedAt,
  };
}
