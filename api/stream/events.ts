/**
 * Follower messages (docs/chain-ingestion.md "Publication") and crypto price messages → the `data` of a
 * stream event: the REST row of docs/api.md where one exists (trades, activity), plus `event_type` and
 * `status`. Rows published as written (pending, or confirmed at once) carry JS values and `block_time`
 * in Unix ms; rows re-read for `confirmed` and `removed` carry ClickHouse's JSON (64-bit integers as
 * strings, `block_time` as text): both give one shape here.
 */
import { roundPrice } from '../queries/alpha/market-data.ts';

export type Row = Record<string, unknown>;

/** Where an event sits in the chain: the `after` of a gap message and of REST catch-up. */
export interface Position {
  block_number: number;
  log_index: number;
}

/** A normalized event: its data and the values the subscription indexes match on. */
export interface StreamEvent {
  channel: string;
  status: 'pending' | 'confirmed' | 'removed';
  /** Chain position; null for crypto prices. */
  position: Position | null;
  data: Row;
  /** `data` as JSON, serialized once for every subscription it goes to. */
  json: string;
  /** Filter key → the event's values for it (addresses lowercase, feeds upper case). */
  keys: Record<string, (string | null)[]>;
  /** crypto_prices: the platform subscriptions must name. */
  platform?: string;
  /** Unix ms the follower published it at, when it says. */
  publishedAt?: number;
}

const int = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? 0));
const units = (v: unknown): number => int(v) / 1e6;
const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
const nullable = (v: unknown): string | null =>
  v === null || v === undefined || v === '' ? null : String(v);
const bool = (v: unknown): boolean => v === true || v === 1 || v === '1' || v === 'true';

/** Block time in Unix seconds from Unix ms, a Date as JSON, or `YYYY-MM-DD hh:mm:ss.sss` UTC (re-read rows). */
export function unixSeconds(v: unknown): number {
  if (typeof v === 'number') return Math.floor(v / 1000);
  const s = str(v);
  if (/^\d+$/.test(s)) return Math.floor(Number(s) / 1000);
  // `2026-04-26 05:00:00.000` (ClickHouse, UTC) or an ISO string with its zone (a Date as JSON).
  const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s.replace(' ', 'T')}Z`);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : 0;
}

function json(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? null;
  if (v === '') return null;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

function head(r: Row, status: string) {
  return {
    tx_hash: str(r.tx_hash),
    log_index: int(r.log_index),
    block_number: int(r.block_number),
    timestamp: unixSeconds(r.block_time),
    status,
  };
}

/** The REST trade row (api/queries/alpha/trades.ts `toTrade`) of a fill. */
function trade(r: Row, status: string, slug: string | null): Row {
  const version = int(r.exchange_version);
  const conditionId = nullable(r.condition_id);
  const outcome = int(r.outcome_index ?? -1);
  const shares = int(r.shares);
  const side = str(r.side);
  const out: Row = {
    event_type: 'order_filled',
    ...head(r, status),
    order_hash: str(r.order_hash),
    maker: str(r.maker),
    taker: str(r.taker),
    role: str(r.role),
    side,
    token_id: str(r.token_id),
    condition_id: conditionId,
    outcome_index: outcome < 0 ? null : outcome,
    market_slug: slug,
    shares: shares / 1e6,
    price: shares > 0 ? roundPrice(int(r.usd) / shares) : 0,
    total: units(r.usd),
    fee: units(r.fee),
    fee_asset: version === 1 && side === 'BUY' ? 'shares' : 'collateral',
    exchange: str(r.exchange),
    exchange_version: version,
    neg_risk: bool(r.neg_risk),
    version,
  };
  if (version === 2) {
    out.builder = str(r.builder);
    out.metadata = str(r.metadata);
  }
  return out;
}

/** The REST activity row (api/queries/alpha/activity.ts `toActivity`), plus conversion's names. */
function activity(r: Row, event: string, status: string, slug: string | null): Row {
  const type = str(r.type);
  const convert = type === 'CONVERT';
  const partition = Array.isArray(r.partition) ? r.partition.map(String) : [];
  const out: Row = {
    event_type: event,
    type,
    wallet: str(r.wallet),
    ...head(r, status),
    condition_id: convert ? null : nullable(r.condition_id),
    market_id: convert ? null : nullable(r.market_id),
    market_slug: convert ? null : slug,
    neg_risk_market_id: convert ? nullable(r.neg_risk_market_id) : null,
    index_set: convert ? nullable(r.index_set) : null,
    amount: units(r.amount),
    payout: units(r.payout),
    partition,
    version: int(r.version),
    neg_risk: bool(r.neg_risk),
  };
  if (convert) out.neg_risk_event_id = out.neg_risk_market_id;
  return out;
}

function lifecycle(r: Row, event: string, status: string): Row {
  const slots = int(r.outcome_slot_count);
  const tokens = event === 'condition_prepared' && slots === 2 ? json(r.tokens) : null;
  return {
    event_type: event,
    ...head(r, status),
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
  };
}

/** Collateral kinds the channel carries (plain transfers are not streamed). */
export const COLLATERAL_EVENTS: Record<string, string> = { wrap: 'wrap', unwrap: 'unwrap' };

function collateral(r: Row, event: string, status: string): Row {
  return {
    event_type: event,
    ...head(r, status),
    token: str(r.token),
    symbol: str(r.symbol),
    from_address: str(r.from_address),
    to_address: str(r.to_address),
    caller: str(r.caller),
    asset: str(r.asset),
    amount: units(r.amount),
  };
}

/** alpha_oracle kinds → the oracle channel's event types (docs/streaming.md); other kinds are not streamed. */
export const ORACLE_EVENTS: Record<string, string> = {
  propose_price: 'proposal',
  dispute_price: 'dispute',
  settle: 'settlement',
  question_reset: 'reset',
};

function oracle(r: Row, event: string, kind: string, status: string): Row {
  return {
    event_type: event,
    kind,
    ...head(r, status),
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
  };
}

export interface FollowerMessage {
  channel: string;
  event: string;
  status: 'pending' | 'confirmed' | 'removed';
  chain_id?: number;
  published_at?: number;
  data: Row;
}

const lower = (v: unknown) => (v === null || v === undefined || v === '' ? null : String(v).toLowerCase());

/**
 * One follower message → the stream event, or null for rows the channel does not carry. `slugOf` gives a
 * condition's market slug (null when the catalog does not know it).
 */
export function chainEvent(
  m: FollowerMessage,
  slugOf: (conditionId: string) => string | null,
): StreamEvent | null {
  const r = m.data;
  if (!r || typeof r !== 'object') return null;
  const status = m.status;
  const position = { block_number: int(r.block_number), log_index: int(r.log_index) };
  let data: Row;
  let keys: Record<string, (string | null)[]>;
  switch (m.channel) {
    case 'trades': {
      const c = lower(r.condition_id);
      data = trade(r, status, c ? slugOf(c) : null);
      keys = {
        users: [lower(r.maker)],
        condition_ids: [c],
        market_slugs: [data.market_slug as string | null],
        token_ids: [str(r.token_id) || null],
      };
      break;
    }
    case 'activity': {
      const c = str(r.type) === 'CONVERT' ? null : lower(r.condition_id);
      data = activity(r, m.event, status, c ? slugOf(c) : null);
      keys = {
        users: [lower(r.wallet)],
        condition_ids: [c],
        market_slugs: [data.market_slug as string | null],
      };
      break;
    }
    case 'lifecycle':
      data = lifecycle(r, m.event, status);
      keys = { condition_ids: [lower(r.condition_id)] };
      break;
    case 'collateral': {
      const event = COLLATERAL_EVENTS[m.event];
      if (!event) return null;
      data = collateral(r, event, status);
      keys = { users: [lower(r.from_address), lower(r.to_address), lower(r.caller)] };
      break;
    }
    case 'oracle': {
      const event = ORACLE_EVENTS[m.event];
      if (!event) return null;
      data = oracle(r, event, m.event, status);
      keys = { condition_ids: [data.condition_id as string | null], question_ids: [lower(r.question_id)] };
      break;
    }
    default:
      return null;
  }
  return {
    channel: m.channel,
    status,
    position,
    data,
    json: JSON.stringify(data),
    keys,
    publishedAt: typeof m.published_at === 'number' ? m.published_at : undefined,
  };
}

/** A `pmdata:crypto:prices` message `{platform, feed, price, bid, ask, observed_at}` → a price_feed event. */
export function priceEvent(m: Row): StreamEvent | null {
  const platform = str(m.platform).toLowerCase();
  const feed = str(m.feed).toUpperCase();
  if (!platform || !feed) return null;
  const num = (v: unknown) => (v === null || v === undefined || v === '' ? null : Number(v));
  const data: Row = {
    event_type: 'price_feed',
    platform,
    type: 'crypto',
    feed,
    price: num(m.price),
    bid: num(m.bid),
    ask: num(m.ask),
    observed_at: int(m.observed_at),
  };
  return {
    channel: 'crypto_prices',
    status: 'confirmed',
    position: null,
    data,
    json: JSON.stringify(data),
    keys: { feeds: [feed] },
    platform,
  };
}
