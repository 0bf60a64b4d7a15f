/**
 * The stream's handshake and protocol against a real redis-server: HTTP errors before the upgrade
 * (401, 403, 429 across two processes, 503), every error code with its trigger, none of which closes
 * the connection, and a frame over 64 KiB closing it with 1009.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connect,
  createStreamTestEnv,
  handshake,
  handshakeAt,
  type StreamTestEnv,
  startTestStream,
  type TestStream,
  until,
} from './support/stream.ts';

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const users = (n: number) => Array.from({ length: n }, (_, i) => addr(i + 1));

describe('stream handshake and protocol', () => {
  let env: StreamTestEnv;
  let a: TestStream;
  let b: TestStream;

  beforeAll(async () => {
    env = await createStreamTestEnv('stream_protocol');
    [a, b] = await Promise.all([startTestStream(env), startTestStream(env)]);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await env?.close();
  });

  it('answers 401 for unknown and revoked keys and 403 for Free, with the error body', async () => {
    expect(await handshake(a.url, 'pmd_nosuchkey')).toEqual({
      status: 401,
      body: { error: 'Unauthorized', message: expect.any(String) },
    });
    expect((await handshake(a.url, 'not-a-key')).status).toBe(401);
    const revoked = await env.key('dev');
    await env.keys.revoke(revoked.id);
    expect((await handshake(a.url, revoked.key)).status).toBe(401);
    const free = await env.key('free');
    expect(await handshake(a.url, free.key)).toEqual({
      status: 403,
      body: { error: 'Forbidden', message: expect.any(String) },
    });
  });

  it('answers 401 with the error body when the path has no key (/v1, /v1/), 404 off /v1', async () => {
    for (const path of ['/v1', '/v1/', '/v1?x=1', '/v1//']) {
      expect(await handshakeAt(`${a.url}${path}`), path).toEqual({
        status: 401,
        body: { error: 'Unauthorized', message: expect.stringContaining('/v1/<API key>') },
      });
    }
    expect(await handshakeAt(`${a.url}/v2/stream`)).toEqual({
      status: 404,
      body: { error: 'Not Found', message: expect.any(String) },
    });
  });

  it('sends connected on open, and counts a Dev key’s 5 connections across two processes (429 on the 6th)', async () => {
    const dev = await env.key('dev');
    const c1 = await connect(a.url, dev.key);
    expect(c1.messages[0]).toEqual({ type: 'connected', message: expect.any(String) });
    const open = [
      c1,
      await connect(b.url, dev.key),
      await connect(a.url, dev.key),
      await connect(b.url, dev.key),
    ];
    open.push(await connect(b.url, dev.key));
    expect(await handshake(a.url, dev.key)).toEqual({
      status: 429,
      body: { error: 'Too Many Requests', message: expect.any(String) },
    });
    expect((await handshake(b.url, dev.key)).status).toBe(429);
    // A closed connection frees its place.
    open[0]!.close();
    await open[0]!.closed;
    await until(async () => (await handshake(a.url, dev.key)).status === 101);
    for (const c of open.slice(1)) c.close();
  });

  it('does not count the connections of a process that stopped heartbeating', async () => {
    const dev = await env.key('dev');
    // Five connections held by a process whose expiry passed (it died without releasing).
    await env.redis.hset(`stream:conns:${dev.id}`, 'dead-process', '5');
    await env.redis.zadd('stream:procs', Date.now() - 1000, 'dead-process');
    const c = await connect(a.url, dev.key);
    expect(await env.redis.hget(`stream:conns:${dev.id}`, 'dead-process')).toBeNull();
    c.close();
  });

  it('answers 503 above STREAM_MAX_CONNECTIONS of the process', async () => {
    const small = await startTestStream(env, { maxConnections: 2 });
    try {
      const pro = await env.key('pro');
      const c1 = await connect(small.url, pro.key);
      const c2 = await connect(small.url, pro.key);
      expect(await handshake(small.url, pro.key)).toEqual({
        status: 503,
        body: { error: 'Service Unavailable', message: expect.any(String) },
      });
      c1.close();
      c2.close();
    } finally {
      await small.close();
    }
  });

  it('answers each malformed message with its code and keeps the connection open', async () => {
    const pro = await env.key('pro');
    const c = await connect(a.url, pro.key);
    c.send('{not json');
    expect(await c.next((m) => m.type === 'error')).toEqual({
      type: 'error',
      id: null,
      code: 'PARSE_ERROR',
      message: expect.any(String),
    });
    const codeOf = async (m: Record<string, unknown>) => ((await c.request(m)) as { code?: string }).code;
    expect(await codeOf({ action: 'dance' })).toBe('UNKNOWN_ACTION');
    expect(await codeOf({ action: 'subscribe', channel: 'orderbook', filters: { users: ['*'] } })).toBe(
      'UNKNOWN_CHANNEL',
    );
    expect(await codeOf({ action: 'subscribe', channel: 'sports_live', filters: { users: ['*'] } })).toBe(
      'CHANNEL_CONCLUDED',
    );
    expect(await codeOf({ action: 'subscribe', channel: 'sports_nba_2026', filters: {} })).toBe(
      'CHANNEL_CONCLUDED',
    );
    for (const filters of [
      { users: ['0x12'] },
      { users: [addr(1)], condition_ids: [`0x${'a'.repeat(64)}`] },
      { wallets: [addr(1)] },
      { users: [] },
      { users: ['*', addr(1)] },
      { token_ids: ['12x'] },
      { users: [addr(1)], status: 'soon' },
    ]) {
      expect(await codeOf({ action: 'subscribe', channel: 'trades', filters }), JSON.stringify(filters)).toBe(
        'INVALID_FILTERS',
      );
    }
    expect(
      await codeOf({ action: 'subscribe', channel: 'collateral', filters: { condition_ids: ['*'] } }),
    ).toBe('INVALID_FILTERS');
    expect(
      await codeOf({
        action: 'subscribe',
        channel: 'crypto_prices',
        platform: 'chainlink',
        filters: { feeds: ['*'] },
      }),
    ).toBe('INVALID_FILTERS');
    expect(await codeOf({ action: 'unsubscribe', subscription_id: 'sub_nope' })).toBe(
      'SUBSCRIPTION_NOT_FOUND',
    );
    expect(await codeOf({ action: 'update', subscription_id: 'sub_nope', filters: { users: ['*'] } })).toBe(
      'SUBSCRIPTION_NOT_FOUND',
    );
    // Still open: a valid subscription is acknowledged, with the id echoed.
    const ok = await c.request({
      action: 'subscribe',
      channel: 'trades',
      filters: { users: [addr(1).toUpperCase().replace('0X', '0x')] },
    });
    expect(ok).toEqual({
      type: 'subscribed',
      id: ok.id,
      subscription_id: expect.stringMatching(/^sub_/),
      channel: 'trades',
    });
    const up = await c.request({
      action: 'update',
      subscription_id: ok.subscription_id,
      filters: { users: [addr(2)] },
    });
    expect(up).toEqual({
      type: 'updated',
      id: up.id,
      subscription_id: ok.subscription_id,
      channel: 'trades',
    });
    const un = await c.request({ action: 'unsubscribe', subscription_id: ok.subscription_id });
    expect(un).toEqual({
      type: 'unsubscribed',
      id: un.id,
      subscription_id: ok.subscription_id,
      channel: 'trades',
    });
    expect(c.ws.readyState).toBe(c.ws.OPEN);
    c.close();
  });

  it('applies the Dev limits: 11th subscription, 11 items, any wildcard', async () => {
    const dev = await env.key('dev');
    const c = await connect(a.url, dev.key);
    const codeOf = async (m: Record<string, unknown>) => ((await c.request(m)) as { code?: string }).code;
    expect(await codeOf({ action: 'subscribe', channel: 'trades', filters: { users: users(11) } })).toBe(
      'ITEMS_PER_SUB_LIMIT',
    );
    expect(await codeOf({ action: 'subscribe', channel: 'trades', filters: { users: ['*'] } })).toBe(
      'WILDCARD_NOT_ALLOWED',
    );
    for (let i = 0; i < 10; i++) {
      expect(
        (await c.request({ action: 'subscribe', channel: 'activity', filters: { users: users(10) } })).type,
      ).toBe('subscribed');
      // Stay under 20 messages a second.
      await new Promise((r) => setTimeout(r, 60));
    }
    expect(await codeOf({ action: 'subscribe', channel: 'trades', filters: { users: users(1) } })).toBe(
      'SUBSCRIPTION_LIMIT',
    );
    c.close();
  });

  it('applies the Pro limits: a 3rd wildcard on one channel, 501 items, the 101st subscription', async () => {
    const pro = await env.key('pro');
    const c = await connect(a.url, pro.key);
    const codeOf = async (m: Record<string, unknown>) => ((await c.request(m)) as { code?: string }).code;
    const pace = () => new Promise((r) => setTimeout(r, 70));
    for (let i = 0; i < 2; i++) {
      expect(
        (await c.request({ action: 'subscribe', channel: 'trades', filters: { users: ['*'] } })).type,
      ).toBe('subscribed');
    }
    expect(await codeOf({ action: 'subscribe', channel: 'trades', filters: { token_ids: ['*'] } })).toBe(
      'WILDCARD_NOT_ALLOWED',
    );
    // Two wildcards per channel: another channel still takes one.
    expect(
      (await c.request({ action: 'subscribe', channel: 'oracle', filters: { question_ids: ['*'] } })).type,
    ).toBe('subscribed');
    expect(await codeOf({ action: 'subscribe', channel: 'trades', filters: { users: users(501) } })).toBe(
      'ITEMS_PER_SUB_LIMIT',
    );
    for (let i = 3; i < 100; i++) {
      await pace();
      expect(
        (await c.request({ action: 'subscribe', channel: 'activity', filters: { users: users(1) } })).type,
      ).toBe('subscribed');
    }
    await pace();
    expect(await codeOf({ action: 'subscribe', channel: 'trades', filters: { users: users(1) } })).toBe(
      'SUBSCRIPTION_LIMIT',
    );
    c.close();
  }, 15_000);

  it('applies an Enterprise key’s own limits (ITEMS_LIMIT on the total)', async () => {
    const ent = await env.key('enterprise', {
      stream_total_items: '15',
      stream_items_per_subscription: '10',
    });
    const c = await connect(a.url, ent.key);
    expect(
      (await c.request({ action: 'subscribe', channel: 'trades', filters: { users: users(10) } })).type,
    ).toBe('subscribed');
    const err = await c.request({ action: 'subscribe', channel: 'trades', filters: { users: users(6) } });
    expect(err).toMatchObject({ type: 'error', code: 'ITEMS_LIMIT' });
    c.close();
  });

  it('answers RATE_LIMIT above 20 messages a second without closing', async () => {
    const pro = await env.key('pro');
    const c = await connect(a.url, pro.key);
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000)));
    for (let i = 0; i < 25; i++) c.send({ action: 'unsubscribe', subscription_id: 'sub_x', id: i });
    await c.next((m) => m.id === 24);
    const codes = c.messages.filter((m) => m.type === 'error').map((m) => m.code);
    expect(codes.filter((x) => x === 'RATE_LIMIT').length).toBeGreaterThanOrEqual(1);
    expect(codes.filter((x) => x === 'SUBSCRIPTION_NOT_FOUND').length).toBeGreaterThanOrEqual(20);
    expect(c.ws.readyState).toBe(c.ws.OPEN);
    c.close();
  });

  it('closes with 1009 on a frame over 64 KiB', async () => {
    const pro = await env.key('pro');
    const c = await connect(a.url, pro.key);
    c.send(
      JSON.stringify({
        action: 'subscribe',
        channel: 'trades',
        filters: { users: [] },
        pad: 'x'.repeat(70_000),
      }),
    );
    expect((await c.closed).code).toBe(1009);
  });
});
