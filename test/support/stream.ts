/**
 * Stream tests' set-up: a stream service on a real HTTP server (port 0) over the run's redis-server,
 * keys issued by the real key store, the real follower publisher, and a WebSocket client that keeps
 * every message it receives.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import type { Tier } from '../../api/access.ts';
import { createKeyStore, type KeyStore } from '../../api/keys/store.ts';
import { type MarketSlugResolver, noMarketMetadata } from '../../api/markets.ts';
import type { TokenConditions } from '../../api/queries/alpha/tokens.ts';
import type { StreamChannel } from '../../api/stream/channels.ts';
import { type StreamSettings, streamSettings } from '../../api/stream/config.ts';
import { createStreamService, type StreamService } from '../../api/stream/service.ts';
import type { Config } from '../../core/config.ts';
import { createLogger } from '../../core/logger.ts';
import { createRedis, type Redis } from '../../core/redis.ts';
import { testConfig } from './deps.ts';

export interface StreamTestEnv {
  config: Config;
  /** Prefixed like the service's key store and counts. */
  redis: Redis;
  /** Unprefixed, for publishing. */
  publisher: Redis;
  /** Publication channel prefix (`<prefix>alpha:trades`, `<prefix>crypto:prices`). */
  channelPrefix: string;
  keys: KeyStore;
  key(tier: Tier, fields?: Record<string, string>): Promise<{ key: string; id: string }>;
  close(): Promise<void>;
}

export async function createStreamTestEnv(name: string): Promise<StreamTestEnv> {
  const config = testConfig(name);
  const prefix = `t:${name}:${process.pid}`;
  const redis = createRedis(config.redisUrl, { keyPrefix: `${prefix}:` });
  const publisher = createRedis(config.redisUrl);
  const keys = createKeyStore(redis);
  return {
    config,
    redis,
    publisher,
    channelPrefix: `${prefix}:`,
    keys,
    async key(tier, fields) {
      const { key, record } = await keys.create({ tier, name: `test-${tier}` });
      if (fields) await redis.hset(`apikey:${(await redis.get(`apikey-id:${record.id}`))!}`, fields);
      return { key, id: record.id };
    },
    async close() {
      redis.disconnect();
      publisher.disconnect();
    },
  };
}

export interface TestStream {
  service: StreamService;
  server: Server;
  url: string;
  close(): Promise<void>;
}

export async function startTestStream(
  env: StreamTestEnv,
  over: Partial<StreamSettings> = {},
  markets: MarketSlugResolver = noMarketMetadata,
  o: { extraChannels?: readonly StreamChannel[]; tokens?: Pick<TokenConditions, 'get'> } = {},
): Promise<TestStream> {
  const service = createStreamService({
    redis: env.redis,
    redisUrl: env.config.redisUrl,
    log: createLogger({ level: env.config.logLevel }),
    settings: streamSettings(env.config, over),
    markets,
    prefix: env.channelPrefix,
    extraChannels: o.extraChannels,
    tokens: o.tokens,
  });
  const server = createServer((_req, res) => res.writeHead(404).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  service.attach(server);
  await service.ready();
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    service,
    server,
    url,
    async close() {
      await service.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Message = Record<string, unknown> & { type: string };

export interface TestClient {
  ws: WebSocket;
  messages: Message[];
  send(m: unknown): void;
  /** Waits for the first message (from `from` on) that satisfies `pred`. */
  next(pred: (m: Message) => boolean, timeoutMs?: number, from?: number): Promise<Message>;
  /** Sends a request with an id and waits for its reply (ack or error). */
  request(m: Record<string, unknown>): Promise<Message>;
  events(subscriptionId?: string): Message[];
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

let ids = 0;

export async function connect(
  url: string,
  key: string,
  options: WebSocket.ClientOptions = {},
): Promise<TestClient> {
  const ws = new WebSocket(`${url}/v1/${key}`, options);
  const messages: Message[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (data) => {
    messages.push(JSON.parse(data.toString()) as Message);
    for (const w of waiters) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
      for (const w of waiters) w();
    });
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
  const client: TestClient = {
    ws,
    messages,
    send: (m) => ws.send(typeof m === 'string' ? m : JSON.stringify(m)),
    next(pred, timeoutMs = 5000, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.slice(from).find(pred);
          if (found) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`No matching message within ${timeoutMs} ms (got ${messages.length})`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    request(m) {
      const id = `r${++ids}`;
      ws.send(JSON.stringify({ ...m, id }));
      return client.next((x) => x.id === id);
    },
    events: (sid) =>
      messages.filter((m) => m.type === 'event' && (sid === undefined || m.subscription_id === sid)),
    closed,
    close: () => ws.close(),
  };
  await client.next((m) => m.type === 'connected');
  return client;
}

/** The HTTP answer to a handshake that is refused: status and JSON body. */
export function handshake(url: string, key: string): Promise<{ status: number; body: unknown }> {
  return handshakeAt(`${url}/v1/${key}`);
}

/** The same at any path of the server (`ws://host:port/path`). */
export function handshakeAt(wsUrl: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl);
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c: Buffer) => {
        text += c.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    ws.once('open', () => {
      ws.close();
      resolve({ status: 101, body: null });
    });
    ws.once('error', (err) => {
      if (!String(err.message).includes('Unexpected server response')) reject(err);
    });
  });
}

/** Waits until `cond` holds (polling), or fails after `timeoutMs`. */
export async function until(cond: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('Timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}
