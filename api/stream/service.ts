/**
 * The streaming service (docs/streaming.md): WebSocket connections at `/v1/<API key>` on any HTTP server
 * (the API's under `pmdata up`, its own under `pmdata stream`). The handshake answers HTTP errors before
 * upgrading: 401 missing, unknown or revoked key, 403 Free, 429 the key's connection limit (counted in Redis
 * across processes), 503 this process's STREAM_MAX_CONNECTIONS or shutting down.
 *
 * Scale-out: the process subscribes once to the publication of every channel of its list (channels.ts:
 * the follower's `pmdata:alpha:*` and `pmdata:crypto:prices`, plus the extra channels it is given), and
 * fans each message out through the in-memory index (index-by-value.ts) to its own connections.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Logger } from '../../core/logger.ts';
import { createRedis, type Redis } from '../../core/redis.ts';
import { STREAM_LIMIT_OPTIONS, STREAM_LIMITS, type StreamLimits, type Tier } from '../access.ts';
import { hashKey, KEY_PREFIX } from '../keys/store.ts';
import type { MarketSlugResolver } from '../markets.ts';
import type { TokenConditions } from '../queries/alpha/tokens.ts';
import { type ChannelEnv, channelSet, type StreamChannel, streamEvent } from './channels.ts';
import type { StreamSettings } from './config.ts';
import { CLOSE, type Connection, createConnection, type Subscription } from './connection.ts';
import { type ConnectionCounts, createConnectionCounts } from './counts.ts';
import type { StreamEvent } from './events.ts';
import { createSubscriptionIndex } from './index-by-value.ts';
import { streamMetrics } from './metrics.ts';

/** The largest client frame; a bigger one closes the connection with 1009. */
export const MAX_FRAME_BYTES = 64 * 1024;

export interface StreamServiceOptions {
  /** Key store and connection counts (may carry a key prefix). */
  redis: Redis;
  /** Where to subscribe (a connection of its own is opened). */
  redisUrl: string;
  log: Logger;
  settings: StreamSettings;
  /** Market slugs for the `market_slug` field and filter. */
  markets: MarketSlugResolver;
  /**
   * token → condition of fills ingested before their token's market was known (the REST trades' map,
   * api/queries/alpha/tokens.ts); without it such fills have no condition, as a map that knows nothing.
   */
  tokens?: Pick<TokenConditions, 'get'>;
  /** Channel prefix of the publications (default `pmdata:`). */
  prefix?: string;
  /** Channels served beside the stream's own (channels.ts CHANNELS): subscribed, accepted, delivered. */
  extraChannels?: readonly StreamChannel[];
}

export interface StreamStats {
  connections: number;
  subscriptions: number;
  messages: number;
  deliveries: number;
  dropped: number;
}

export interface StreamService {
  /** Serves upgrades at /v1/<key> on `server` (/v1 without a key gets 401, other upgrade paths 404). */
  attach(server: Server): void;
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Resolves once the Redis subscription is in place. */
  ready(): Promise<void>;
  stats(): StreamStats;
  /** Closes every connection with 1012 and stops. */
  close(): Promise<void>;
  /** Observes each message after its fan-out (benchmarks). */
  onDispatch?: (e: StreamEvent, deliveries: number) => void;
}

const STATUS_TEXT: Record<number, string> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
};

/** What a request to the stream's path without a key is told (401, over a handshake or plain HTTP). */
export const MISSING_STREAM_KEY = 'Missing API key: connect to /v1/<API key> with your key in the path';

/**
 * The key in a stream path `/v1/<key>` (a trailing slash and a query string allowed), still
 * percent-encoded; '' for `/v1` or `/v1/` (no key); null for a path that is not the stream's.
 */
export function streamPathKey(url: string): string | null {
  const path = url.split('?')[0]!;
  if (/^\/v1\/*$/.test(path)) return '';
  const match = /^\/v1\/([^/]+)\/?$/.exec(path);
  return match ? match[1]! : null;
}

function refuse(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ error: STATUS_TEXT[status], message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * `markets` with the slugs it knew kept in process (a condition without one is asked again: the catalog
 * may learn it).
 */
function cachedSlugs(markets: MarketSlugResolver): MarketSlugResolver {
  const known = new Map<string, string>();
  return {
    conditionIds: (slug) => markets.conditionIds(slug),
    async slugs(ids) {
      const out = new Map<string, string>();
      const missing: string[] = [];
      for (const id of ids) {
        const slug = known.get(id);
        if (slug !== undefined) out.set(id, slug);
        else missing.push(id);
      }
      if (missing.length === 0) return out;
      for (const [id, slug] of await markets.slugs(missing)) {
        if (known.size >= 100_000) known.clear();
        known.set(id, slug);
        out.set(id, slug);
      }
      return out;
    },
  };
}

/** Enterprise limits: the key's own `stream_*` fields, else the defaults of api/access.ts. */
function limitsOf(tier: Tier, h: Record<string, string>): StreamLimits | null {
  const base = STREAM_LIMITS[tier];
  if (!base || tier !== 'enterprise') return base;
  const limits = { ...base };
  for (const { limit, field } of Object.values(STREAM_LIMIT_OPTIONS)) {
    const v = h[field];
    if (v && /^\d+$/.test(v)) limits[limit] = Number(v);
  }
  return limits;
}

export function createStreamService(o: StreamServiceOptions): StreamService {
  const { redis, log, settings } = o;
  const prefix = o.prefix ?? 'pmdata:';
  const processId = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const counts: ConnectionCounts = createConnectionCounts(redis, processId);
  const index = createSubscriptionIndex<Subscription>();
  const connections = new Set<Connection>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false });
  let closing = false;
  let handshakes = 0;
  const stats = { messages: 0, deliveries: 0 };

  const channels = channelSet(o.extraChannels);
  const env: ChannelEnv = { tokens: o.tokens ?? { get: () => undefined }, markets: cachedSlugs(o.markets) };

  // One Redis subscription per process, to every channel's publication.
  const sub = createRedis(o.redisUrl, { maxRetriesPerRequest: null });
  const channelsOf = new Map<string, StreamChannel[]>();
  for (const c of channels.values()) {
    const redisChannel = `${prefix}${c.publication.redis}`;
    channelsOf.set(redisChannel, [...(channelsOf.get(redisChannel) ?? []), c]);
  }
  let lost = false;
  // Its connection's errors are reported with the process's others (createRedis: one line when lost).
  sub.on('close', () => {
    if (!closing) lost = true;
  });
  sub.on('ready', () => {
    if (!lost) return;
    lost = false;
    log.warn('Restored the stream Redis subscription: sending gap messages');
    for (const c of connections) c.resubscribed();
  });
  const subscribed = sub.subscribe(...channelsOf.keys());

  /** Messages are handled in arrival order; a slug lookup (in-process maps) is the only wait. */
  let queue: Promise<void> = Promise.resolve();
  sub.on('message', (redisChannel: string, text: string) => {
    const list = channelsOf.get(redisChannel);
    if (!list) return;
    queue = queue
      .then(() => handle(list, text))
      .catch((err) => log.error({ err }, 'Failed to fan out a stream message'));
  });

  async function handle(list: readonly StreamChannel[], text: string): Promise<void> {
    const m: unknown = JSON.parse(text);
    stats.messages++;
    for (const channel of list) {
      const event = await streamEvent(channel, m, env);
      if (event) dispatch(event);
    }
  }

  function dispatch(event: StreamEvent): void {
    const matched = index.match(event);
    let sent = 0;
    let dropped = 0;
    for (const s of matched) {
      const d = s.conn.deliver(s, event);
      if (d === 'sent') sent++;
      else if (d === 'dropped') dropped++;
    }
    // One increment per message and channel (every match of an event is on the event's channel).
    if (sent > 0) streamMetrics.sent(event.channel).inc(sent);
    if (dropped > 0) streamMetrics.dropped(event.channel).inc(dropped);
    stats.deliveries += matched.length;
    service.onDispatch?.(event, matched.length);
  }

  // Ping, pong and idle rules, for every connection, on one timer.
  const sweepMs = Math.max(
    5,
    Math.min(
      1000,
      Math.floor(Math.min(settings.pingIntervalMs, settings.pongTimeoutMs, settings.idleTimeoutMs) / 4),
    ),
  );
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const c of connections) c.sweep(now);
  }, sweepMs);
  sweeper.unref();

  // Revoked keys: their connections close with 4003 at the next check.
  const keyChecker = setInterval(() => {
    void checkKeys().catch((err) => log.warn({ err: err.message }, 'Failed to check stream keys'));
  }, settings.keyCheckMs);
  keyChecker.unref();
  async function checkKeys(): Promise<void> {
    const byHash = new Map<string, Connection[]>();
    for (const c of connections) {
      const list = byHash.get(c.who.keyHash);
      if (list) list.push(c);
      else byHash.set(c.who.keyHash, [c]);
    }
    if (byHash.size === 0) return;
    const hashes = [...byHash.keys()];
    const pipeline = redis.pipeline();
    for (const h of hashes) pipeline.hget(`apikey:${h}`, 'status');
    const results = (await pipeline.exec()) ?? [];
    hashes.forEach((h, i) => {
      const [err, status] = results[i] ?? [];
      if (err || status === 'active') return;
      for (const c of byHash.get(h)!) c.close(CLOSE.revoked, 'API key revoked');
    });
  }

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const raw = streamPathKey(req.url ?? '');
    if (raw === null) return refuse(socket, 404, 'The stream is served at /v1/<API key>');
    if (raw === '') return refuse(socket, 401, MISSING_STREAM_KEY);
    if (closing) return refuse(socket, 503, 'The stream service is restarting: reconnect shortly');
    let key: string;
    try {
      key = decodeURIComponent(raw);
    } catch {
      return refuse(socket, 401, 'Invalid API key');
    }
    if (!key.startsWith(KEY_PREFIX) || key.length > 200) return refuse(socket, 401, 'Invalid API key');
    const keyHash = hashKey(key);
    const h = await redis.hgetall(`apikey:${keyHash}`);
    if (!h.id || h.status !== 'active') return refuse(socket, 401, 'Invalid or revoked API key');
    const tier = h.tier as Tier;
    const limits = limitsOf(tier, h);
    if (!limits) return refuse(socket, 403, 'The stream needs the Dev plan or higher');
    if (connections.size + handshakes >= settings.maxConnections) {
      return refuse(socket, 503, 'This stream server is at capacity: retry with backoff');
    }
    handshakes++;
    let acquired = false;
    try {
      acquired = await counts.acquire(h.id, limits.connections);
    } finally {
      handshakes--;
    }
    if (!acquired) {
      return refuse(
        socket,
        429,
        `Your plan allows ${limits.connections} stream connections per key: close one first`,
      );
    }
    if (closing || socket.destroyed) {
      await counts.release(h.id);
      return closing ? refuse(socket, 503, 'The stream service is restarting: reconnect shortly') : undefined;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const conn = createConnection(
        ws,
        { keyId: h.id!, keyHash, tier, limits },
        {
          settings,
          channels,
          index,
          onClosed(c) {
            if (!connections.delete(c)) return;
            streamMetrics.connections(c.who.tier).dec();
            void counts.release(c.who.keyId).catch(() => {});
          },
        },
      );
      connections.add(conn);
      streamMetrics.connections(tier).inc();
    });
  }

  const service: StreamService = {
    attach(server) {
      server.on('upgrade', (req, socket, head) => service.handleUpgrade(req, socket, head));
    },
    handleUpgrade(req, socket, head) {
      socket.on('error', () => {});
      upgrade(req, socket, head).catch((err) => {
        log.error({ err }, 'Failed a stream handshake');
        if (!socket.destroyed) refuse(socket, 503, 'The stream service could not check the key: retry');
      });
    },
    async ready() {
      await subscribed;
    },
    stats() {
      let dropped = 0;
      for (const c of connections) dropped += c.dropped();
      return { connections: connections.size, subscriptions: index.size(), ...stats, dropped };
    },
    async close() {
      if (closing) return;
      closing = true;
      clearInterval(sweeper);
      clearInterval(keyChecker);
      const open = [...connections];
      const gone = open.map(
        (c) =>
          new Promise<void>((resolve) => {
            const t = setTimeout(resolve, 2000);
            t.unref();
            const check = setInterval(() => {
              if (!connections.has(c)) {
                clearInterval(check);
                clearTimeout(t);
                resolve();
              }
            }, 10);
            check.unref();
          }),
      );
      for (const c of open) c.close(CLOSE.restart, 'Server restarting: reconnect');
      await Promise.all(gone);
      await queue;
      sub.disconnect();
      wss.close();
      await counts.close().catch(() => {});
    },
  };
  return service;
}
