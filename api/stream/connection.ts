/**
 * One client connection: its subscriptions, the protocol replies, the per-subscription `seq` and gap
 * messages, the send-buffer rules and the client message rate. Timers (ping, pong, idle) are driven by
 * the service's sweep (service.ts), which calls `sweep(now)`.
 */
import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { DisconnectReason } from '../../core/metrics.ts';
import { STREAM_PENDING_MIN_TIER, type StreamLimits, TIER_RANK, type Tier } from '../access.ts';
import type { ChannelSet } from './channels.ts';
import type { StreamSettings } from './config.ts';
import type { Position, StreamEvent } from './events.ts';
import type { IndexedSubscription } from './index-by-value.ts';
import { streamMetrics } from './metrics.ts';
import {
  checkChannel,
  checkLimits,
  type Filter,
  itemsOf,
  ProtocolError,
  parseFilter,
  parseMessage,
} from './protocol.ts';

/** Client messages per second before RATE_LIMIT. */
export const CLIENT_MESSAGES_PER_SECOND = 20;

/** How long a closing connection may take to complete the close handshake before it is cut. */
const CLOSE_GRACE_MS = 5000;

/** An event frame's bytes besides its data (envelope, ids, seq). */
const FRAME_OVERHEAD = 100;

/** Close codes (docs/streaming.md). */
export const CLOSE = {
  idle: 4000,
  noPong: 4001,
  slowConsumer: 4002,
  revoked: 4003,
  restart: 1012,
  tooBig: 1009,
} as const;

export interface Subscription extends IndexedSubscription {
  id: string;
  conn: Connection;
  /** Events matched so far (delivered or dropped). */
  seq: number;
  /** First seq dropped since the last delivery; null when none. */
  gapFrom: number | null;
  /** Position of the last event delivered (the `after` of a gap message). */
  last: Position | null;
}

export interface ConnectionHooks {
  settings: StreamSettings;
  /** The channels subscriptions may name (channels.ts, plus the service's extra ones). */
  channels: ChannelSet;
  index: { add(s: Subscription): void; remove(s: Subscription): void };
  onClosed(conn: Connection): void;
}

/** The disconnect reason a server-side close is counted under (metrics); other closes are not counted. */
const REASON_OF_CODE: Partial<Record<number, DisconnectReason>> = {
  [CLOSE.slowConsumer]: 'buffer_limit',
  [CLOSE.noPong]: 'pong_timeout',
  [CLOSE.idle]: 'idle',
};

/** What became of one matched event: sent, dropped by the buffer rule, or neither (connection closed). */
export type Delivery = 'sent' | 'dropped' | null;

export interface ConnectionIdentity {
  keyId: string;
  keyHash: string;
  tier: Tier;
  limits: StreamLimits;
}

export type Connection = ReturnType<typeof createConnection>;

export function createConnection(ws: WebSocket, who: ConnectionIdentity, hooks: ConnectionHooks) {
  const { settings } = hooks;
  const subs = new Map<string, Subscription>();
  let items = 0;
  let closed = false;
  let lastPong = Date.now();
  let lastPing = Date.now();
  let idleSince: number | null = Date.now();
  let windowStart = 0;
  let windowCount = 0;
  let dropped = 0;
  /** Bytes of events dropped since the send buffer last was under the drop line. */
  let overflow = 0;
  const pendingAllowed = TIER_RANK[who.tier] >= TIER_RANK[STREAM_PENDING_MIN_TIER];

  const send = (m: unknown) => {
    if (!closed) ws.send(JSON.stringify(m));
  };

  /** Takes every subscription out of the index and the gauge. */
  function dropSubscriptions() {
    for (const s of subs.values()) {
      hooks.index.remove(s);
      streamMetrics.subscriptions(s.channel).dec();
    }
    subs.clear();
  }

  function close(code: number, reason: string) {
    if (closed) return;
    closed = true;
    dropSubscriptions();
    const counted = REASON_OF_CODE[code];
    if (counted) streamMetrics.disconnect(counted);
    ws.close(code, reason);
    // A client that does not complete the close handshake is cut.
    setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
  }

  const holding = (except?: Subscription) => ({
    subscriptions: subs.size - (except ? 1 : 0),
    items: items - (except ? itemsOf(except.filter) : 0),
    wildcardsOn(channel: string) {
      let n = 0;
      for (const s of subs.values()) if (s !== except && s.channel === channel && s.filter.wildcard) n++;
      return n;
    },
  });

  function subscriptionOf(m: Record<string, unknown>): Subscription {
    const id = m.subscription_id;
    const s = typeof id === 'string' ? subs.get(id) : undefined;
    if (!s)
      throw new ProtocolError(
        'SUBSCRIPTION_NOT_FOUND',
        `No subscription ${JSON.stringify(id)?.slice(0, 60)} on this connection`,
      );
    return s;
  }

  function handle(text: string): void {
    let id: unknown = null;
    try {
      const now = Date.now();
      if (now - windowStart >= 1000) {
        windowStart = now;
        windowCount = 0;
      }
      const over = ++windowCount > CLIENT_MESSAGES_PER_SECOND;
      const parsed = parseMessage(text);
      id = parsed.id;
      if (over) {
        throw new ProtocolError(
          'RATE_LIMIT',
          `At most ${CLIENT_MESSAGES_PER_SECOND} messages per second: wait a second`,
        );
      }
      const m = parsed.message;
      switch (m.action) {
        case 'subscribe': {
          const ch = checkChannel(m.channel, hooks.channels);
          const channel = ch.name;
          const filter = parseFilter(ch, m);
          checkLimits(who.limits, pendingAllowed, channel, filter, holding(), true);
          const s: Subscription = {
            id: `sub_${randomBytes(8).toString('hex')}`,
            channel,
            filter,
            conn: api,
            seq: 0,
            gapFrom: null,
            last: null,
          };
          subs.set(s.id, s);
          items += itemsOf(filter);
          idleSince = null;
          hooks.index.add(s);
          streamMetrics.subscriptions(channel).inc();
          send({ type: 'subscribed', id, subscription_id: s.id, channel });
          return;
        }
        case 'unsubscribe': {
          const s = subscriptionOf(m);
          subs.delete(s.id);
          items -= itemsOf(s.filter);
          hooks.index.remove(s);
          streamMetrics.subscriptions(s.channel).dec();
          if (subs.size === 0) idleSince = Date.now();
          send({ type: 'unsubscribed', id, subscription_id: s.id, channel: s.channel });
          return;
        }
        case 'update': {
          const s = subscriptionOf(m);
          const filter: Filter = parseFilter(hooks.channels.get(s.channel)!, m);
          checkLimits(who.limits, pendingAllowed, s.channel, filter, holding(s), false);
          hooks.index.remove(s);
          items += itemsOf(filter) - itemsOf(s.filter);
          s.filter = filter;
          hooks.index.add(s);
          send({ type: 'updated', id, subscription_id: s.id, channel: s.channel });
          return;
        }
        default:
          throw new ProtocolError(
            'UNKNOWN_ACTION',
            `Unknown action ${JSON.stringify(m.action)?.slice(0, 40) ?? 'undefined'}: subscribe, unsubscribe or update`,
          );
      }
    } catch (err) {
      if (!(err instanceof ProtocolError)) throw err;
      send({ type: 'error', id, code: err.code, message: err.message });
    }
  }

  /** One matched event for subscription `s`: counted, then delivered or dropped by the buffer rules. */
  function deliver(s: Subscription, e: StreamEvent): Delivery {
    if (closed) return null;
    s.seq++;
    const buffered = ws.bufferedAmount;
    if (buffered < settings.dropBytes) overflow = 0;
    else {
      // Dropped events count toward the buffer: a client that stopped reading is cut once what it
      // would hold reaches the terminate line, not kept forever at the drop line.
      overflow += e.json.length + FRAME_OVERHEAD;
      if (buffered + overflow >= settings.terminateBytes) {
        close(CLOSE.slowConsumer, 'Send buffer full: the client does not read fast enough');
        return null;
      }
      s.gapFrom ??= s.seq;
      dropped++;
      return 'dropped';
    }
    if (s.gapFrom !== null) {
      send({
        type: 'gap',
        subscription_id: s.id,
        channel: s.channel,
        from_seq: s.gapFrom,
        to_seq: s.seq - 1,
        after: s.last,
      });
      s.gapFrom = null;
    }
    ws.send(
      `{"type":"event","channel":"${s.channel}","subscription_id":"${s.id}","seq":${s.seq},"data":${e.json}}`,
    );
    if (e.position) s.last = e.position;
    return 'sent';
  }

  /** The process's Redis subscription was lost and restored: events may be missing from every subscription. */
  function resubscribed(): void {
    for (const s of subs.values()) {
      send({
        type: 'gap',
        subscription_id: s.id,
        channel: s.channel,
        from_seq: s.seq + 1,
        to_seq: null,
        after: s.last,
        reason: 'feed_interrupted',
      });
    }
  }

  function sweep(now: number): void {
    if (closed) return;
    if (now - lastPong >= settings.pongTimeoutMs) {
      close(CLOSE.noPong, `No pong within ${settings.pongTimeoutMs} ms`);
      return;
    }
    if (idleSince !== null && now - idleSince >= settings.idleTimeoutMs) {
      close(CLOSE.idle, `No subscription for ${settings.idleTimeoutMs} ms`);
      return;
    }
    if (now - lastPing >= settings.pingIntervalMs) {
      lastPing = now;
      ws.ping();
    }
  }

  ws.on('pong', () => {
    lastPong = Date.now();
  });
  ws.on('message', (data, isBinary) => {
    if (closed) return;
    if (isBinary) {
      send({ type: 'error', id: null, code: 'PARSE_ERROR', message: 'Send JSON text frames' });
      return;
    }
    handle(data.toString());
  });
  ws.on('close', () => {
    if (!closed) {
      // Closed by the client (or the socket broke, or ws refused a frame): not by one of our rules.
      closed = true;
      dropSubscriptions();
      streamMetrics.disconnect('client');
    }
    hooks.onClosed(api);
  });
  ws.on('error', () => {});

  const api = {
    who,
    deliver,
    resubscribed,
    sweep,
    close,
    /** Events dropped by the send-buffer rule since the connection opened. */
    dropped: () => dropped,
    subscriptions: () => subs.size,
  };
  send({ type: 'connected', message: 'Connected to the pmdata stream' });
  return api;
}
