/**
 * The client messages (docs/streaming.md, DESIGN §6): subscribe, unsubscribe, update. Validation of
 * channels (the service's channel list, channels.ts) and filters, and the plan limits of api/access.ts.
 * Every rule answers with an error code (products.md §4, plus UNKNOWN_CHANNEL and CHANNEL_CONCLUDED);
 * none closes the connection.
 */
import type { StreamLimits } from '../access.ts';
import type { ChannelSet, StreamChannel } from './channels.ts';

export type ErrorCode =
  | 'PARSE_ERROR'
  | 'UNKNOWN_ACTION'
  | 'UNKNOWN_CHANNEL'
  | 'CHANNEL_CONCLUDED'
  | 'INVALID_FILTERS'
  | 'SUBSCRIPTION_NOT_FOUND'
  | 'SUBSCRIPTION_LIMIT'
  | 'ITEMS_PER_SUB_LIMIT'
  | 'ITEMS_LIMIT'
  | 'WILDCARD_NOT_ALLOWED'
  | 'PLAN_REQUIRED'
  | 'RATE_LIMIT';

export class ProtocolError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

type Validator = (v: string) => string | undefined;

const address: Validator = (v) => (/^0x[0-9a-fA-F]{40}$/.test(v) ? v.toLowerCase() : undefined);
const bytes32: Validator = (v) => (/^0x[0-9a-fA-F]{64}$/.test(v) ? v.toLowerCase() : undefined);
const tokenId: Validator = (v) => (/^[0-9]{1,78}$/.test(v) ? v.replace(/^0+(?=\d)/, '') : undefined);
const slug: Validator = (v) => (v.length >= 1 && v.length <= 300 ? v : undefined);
const feed: Validator = (v) => (/^[A-Za-z0-9._/-]{1,40}$/.test(v) ? v.toUpperCase() : undefined);

/** The filter keys a channel may accept (channels.ts), each with its values' form. */
export const FILTER_FORMS = {
  users: [address, '0x + 40 hex'],
  condition_ids: [bytes32, '0x + 64 hex'],
  question_ids: [bytes32, '0x + 64 hex'],
  market_slugs: [slug, 'a market slug'],
  token_ids: [tokenId, 'a decimal token id'],
  feeds: [feed, 'a feed name such as BTC/USD'],
} as const satisfies Record<string, readonly [Validator, string]>;

export type FilterKey = keyof typeof FILTER_FORMS;

/** A channel's filter keys, in its order. */
export const filterKeysOf = (c: StreamChannel) => Object.keys(c.filters) as FilterKey[];

/** SPEC: the sports channels concluded and emit nothing. */
export const isConcludedChannel = (c: string) => c === 'sports_live' || c.startsWith('sports_');

export type TradeStatus = 'all' | 'pending' | 'confirmed';

/** A subscription's validated filter. */
export interface Filter {
  key: string;
  /** Normalized values; empty for a wildcard. */
  values: string[];
  wildcard: boolean;
  /** Channels with `pending` (trades); 'confirmed' on the others. */
  status: TradeStatus;
  /** Channels with `platform` (crypto_prices) only: the price-feed provider (lowercase). */
  platform?: string;
}

/** Items a filter counts toward the limits (a wildcard counts as one). */
export const itemsOf = (f: Filter) => (f.wildcard ? 1 : f.values.length);

export type ClientMessage =
  | { action: 'subscribe'; id: unknown; channel: string; filter: Filter }
  | { action: 'unsubscribe'; id: unknown; subscriptionId: string }
  | { action: 'update'; id: unknown; subscriptionId: string; raw: Record<string, unknown> };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The `id` echoed back: a string or number the client chose, else null. */
function idOf(m: Record<string, unknown>): unknown {
  return typeof m.id === 'string' || typeof m.id === 'number' ? m.id : null;
}

/** Parses a text frame: PARSE_ERROR for anything but a JSON object, UNKNOWN_ACTION for other actions. */
export function parseMessage(text: string): { id: unknown; message: Record<string, unknown> } {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    throw new ProtocolError('PARSE_ERROR', 'The message is not valid JSON');
  }
  if (!isObject(m)) throw new ProtocolError('PARSE_ERROR', 'The message must be a JSON object');
  return { id: idOf(m), message: m };
}

/** The channel a subscribe names, checked against `channels`: UNKNOWN_CHANNEL, CHANNEL_CONCLUDED. */
export function checkChannel(channel: unknown, channels: ChannelSet): StreamChannel {
  const names = () => [...channels.keys()].join(', ');
  if (typeof channel !== 'string' || channel === '') {
    throw new ProtocolError('UNKNOWN_CHANNEL', `channel must be one of ${names()}`);
  }
  if (isConcludedChannel(channel)) {
    throw new ProtocolError(
      'CHANNEL_CONCLUDED',
      `The ${channel} channel has concluded and no longer emits events`,
    );
  }
  const known = channels.get(channel);
  if (!known) {
    throw new ProtocolError(
      'UNKNOWN_CHANNEL',
      `Unknown channel "${channel.slice(0, 60)}": one of ${names()}`,
    );
  }
  return known;
}

const invalid = (message: string) => new ProtocolError('INVALID_FILTERS', message);

/**
 * `filters` (and, for a channel with `platform` such as crypto_prices, the message's `platform` and
 * `type`) → a Filter. One filter key per subscription besides a pending channel's (trades') `status`;
 * values validated and normalized; `["*"]` is the wildcard.
 */
export function parseFilter(ch: StreamChannel, m: Record<string, unknown>): Filter {
  const channel = ch.name;
  const filters = m.filters;
  if (!isObject(filters)) throw invalid('filters must be an object with one key');
  const allowed: readonly string[] = filterKeysOf(ch);
  let status: TradeStatus = 'confirmed';
  const keys = Object.keys(filters).filter((k) => !(ch.pending && k === 'status'));
  if (ch.pending && 'status' in filters) {
    const s = filters.status;
    if (s !== 'all' && s !== 'pending' && s !== 'confirmed') {
      throw invalid('filters.status must be all, pending or confirmed');
    }
    status = s;
  }
  if (keys.length !== 1) {
    throw invalid(`filters must have exactly one of ${allowed.join(', ')}`);
  }
  const key = keys[0]!;
  if (!allowed.includes(key))
    throw invalid(`The ${channel} channel filters by one of ${allowed.join(', ')}, not ${key.slice(0, 40)}`);
  const raw = filters[key];
  if (!Array.isArray(raw) || raw.length === 0) throw invalid(`filters.${key} must be a non-empty array`);
  let platform: string | undefined;
  if (ch.platform) {
    if (m.type !== ch.platform.type)
      throw invalid(`${channel} subscriptions need type "${ch.platform.type}"`);
    if (typeof m.platform !== 'string' || !/^[A-Za-z0-9_-]{1,40}$/.test(m.platform)) {
      throw invalid(`${channel} subscriptions need a platform (the price-feed provider)`);
    }
    platform = m.platform.toLowerCase();
  }
  if (raw.length === 1 && raw[0] === '*') return { key, values: [], wildcard: true, status, platform };
  const [validate, form] = FILTER_FORMS[key as FilterKey];
  const values = new Set<string>();
  for (const v of raw) {
    const ok = typeof v === 'string' ? validate(v) : undefined;
    if (ok === undefined) {
      throw invalid(
        v === '*'
          ? `"*" must be the only value of filters.${key}`
          : `filters.${key}: ${JSON.stringify(v)?.slice(0, 80)} is not ${form}`,
      );
    }
    values.add(ok);
  }
  return { key, values: [...values], wildcard: false, status, platform };
}

/** What a connection holds when it asks for a new or changed subscription. */
export interface Holding {
  subscriptions: number;
  items: number;
  wildcardsOn(channel: string): number;
}

/**
 * The plan checks of a subscription `f` on `channel` (for an update, `holding` excludes the one being
 * replaced): PLAN_REQUIRED, WILDCARD_NOT_ALLOWED, ITEMS_PER_SUB_LIMIT, ITEMS_LIMIT, SUBSCRIPTION_LIMIT.
 */
export function checkLimits(
  limits: StreamLimits,
  pendingAllowed: boolean,
  channel: string,
  f: Filter,
  holding: Holding,
  isNew: boolean,
): void {
  if (isNew && holding.subscriptions >= limits.subscriptionsPerConnection) {
    throw new ProtocolError(
      'SUBSCRIPTION_LIMIT',
      `Your plan allows ${limits.subscriptionsPerConnection} subscriptions per connection`,
    );
  }
  // Only a pending channel's (trades') filter asks for other than confirmed rows.
  if (f.status !== 'confirmed' && !pendingAllowed) {
    throw new ProtocolError(
      'PLAN_REQUIRED',
      'Pending trades (filters.status all or pending) need the Dev plan or higher',
    );
  }
  if (f.wildcard) {
    if (limits.wildcardsPerChannel === 0) {
      throw new ProtocolError('WILDCARD_NOT_ALLOWED', 'Your plan does not allow wildcard subscriptions');
    }
    if (holding.wildcardsOn(channel) >= limits.wildcardsPerChannel) {
      throw new ProtocolError(
        'WILDCARD_NOT_ALLOWED',
        `Your plan allows ${limits.wildcardsPerChannel} wildcard subscriptions per channel`,
      );
    }
  }
  const items = itemsOf(f);
  if (items > limits.itemsPerSubscription) {
    throw new ProtocolError(
      'ITEMS_PER_SUB_LIMIT',
      `Your plan allows ${limits.itemsPerSubscription} items per subscription (got ${items})`,
    );
  }
  if (holding.items + items > limits.totalItems) {
    throw new ProtocolError(
      'ITEMS_LIMIT',
      `Your plan allows ${limits.totalItems} items in total per connection`,
    );
  }
}
