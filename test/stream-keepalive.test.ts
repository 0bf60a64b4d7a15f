/**
 * Keep-alive and buffer rules with short timers (real redis-server, real sockets): no pong → 4001, no
 * subscription → 4000, a revoked key → 4003, shutdown → 1012; a client that stops reading has events
 * dropped from 1 MB (seq keeps counting, one gap message before the next delivery) and is closed with
 * 4002 once what it would hold reaches 4 MB.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublisher, type Publisher } from '../ingest/venues/alpha/chain/publish.ts';
import {
  connect,
  createStreamTestEnv,
  type StreamTestEnv,
  startTestStream,
  type TestStream,
  until,
} from './support/stream.ts';

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const b32 = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

function fill(i: number) {
  return {
    chain_id: 137,
    block_number: 1000 + i,
    block_hash: b32(i),
    block_time: 1_777_000_000_000,
    tx_hash: b32(5_000_000 + i),
    log_index: i % 500,
    exchange: addr(0xe1),
    exchange_version: 1,
    neg_risk: false,
    order_hash: b32(i),
    maker: addr(1),
    taker: addr(2),
    role: 'maker',
    side: 'BUY',
    token_id: '21',
    condition_id: b32(11),
    outcome_index: 0,
    maker_amount: 1,
    taker_amount: 1,
    shares: 1,
    usd: 1,
    fee: 0,
    fee_asset: 'shares',
    builder: '',
    metadata: '',
    status: 'confirmed',
  };
}

describe('stream keep-alive and buffers', () => {
  let env: StreamTestEnv;
  let stream: TestStream;
  let publisher: Publisher;

  beforeAll(async () => {
    env = await createStreamTestEnv('stream_keepalive');
    stream = await startTestStream(env, {
      pingIntervalMs: 50,
      pongTimeoutMs: 300,
      idleTimeoutMs: 400,
      keyCheckMs: 50,
    });
    publisher = createPublisher(env.publisher, { prefix: env.channelPrefix, chainId: 137 });
  });
  afterAll(async () => {
    await stream?.close();
    await env?.close();
  });

  it('closes a client that answers no ping with 4001, and keeps one that does', async () => {
    const pro = await env.key('pro');
    const mute = await connect(stream.url, pro.key, { autoPong: false });
    const live = await connect(stream.url, pro.key);
    await mute.request({ action: 'subscribe', channel: 'trades', filters: { users: ['*'] } });
    await live.request({ action: 'subscribe', channel: 'trades', filters: { users: ['*'] } });
    expect((await mute.closed).code).toBe(4001);
    expect(live.ws.readyState).toBe(live.ws.OPEN);
    live.close();
  });

  it('closes a connection without a subscription for the idle time with 4000', async () => {
    const pro = await env.key('pro');
    const c = await connect(stream.url, pro.key);
    const t0 = Date.now();
    const sub = await c.request({ action: 'subscribe', channel: 'trades', filters: { users: ['*'] } });
    await new Promise((r) => setTimeout(r, 500));
    expect(c.ws.readyState).toBe(c.ws.OPEN);
    await c.request({ action: 'unsubscribe', subscription_id: sub.subscription_id });
    expect((await c.closed).code).toBe(4000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
  });

  it('closes a revoked key’s connections with 4003', async () => {
    const pro = await env.key('pro');
    const c = await connect(stream.url, pro.key);
    await c.request({ action: 'subscribe', channel: 'trades', filters: { users: ['*'] } });
    await env.keys.revoke(pro.id);
    expect((await c.closed).code).toBe(4003);
  });

  it('a client that stops reading: drops from 1 MB with a seq gap and one gap message, then 4002 at 4 MB', async () => {
    // Default timers: a client that does not read does not answer pings either.
    const stream = await startTestStream(env);
    const ent = await env.key('enterprise', { stream_wildcards_per_channel: '40' });
    const c = await connect(stream.url, ent.key);
    const subs: string[] = [];
    for (let i = 0; i < 4; i++) {
      subs.push(
        (await c.request({ action: 'subscribe', channel: 'trades', filters: { users: ['*'] } }))
          .subscription_id as string,
      );
    }
    const socket = c.ws;
    socket.pause();
    let i = 0;
    // Publish until the service drops (kernel buffers fill first, then the send buffer reaches 1 MB).
    while (stream.service.stats().dropped === 0) {
      await publisher.publish({ alpha_fills: Array.from({ length: 500 }, () => fill(i++)) as never });
      await new Promise((r) => setTimeout(r, 30));
      if (i > 100_000) throw new Error('never dropped');
    }
    await publisher.publish({ alpha_fills: Array.from({ length: 20 }, () => fill(i++)) as never });
    await until(() => stream.service.stats().dropped >= 20 * 4);
    socket.resume();
    // Read everything queued, then one more fill is delivered after a gap message.
    await new Promise((r) => setTimeout(r, 500));
    await publisher.publish({ alpha_fills: [fill(i++)] as never });
    const sid = subs[0]!;
    const last = 1000 + i - 1;
    await c.next(
      (m) =>
        m.type === 'event' &&
        m.subscription_id === sid &&
        (m.data as { block_number: number }).block_number === last,
      10_000,
    );
    const mine = c.messages.filter((m) => m.subscription_id === sid);
    // Every matched fill has a seq: the delivered ones arrive in seq order, the dropped ones are covered by
    // gap messages, each sent once, right before the next delivery, naming the dropped range and the chain
    // position of the last event delivered before it. (A client that does not read can still take a little
    // more while its kernel buffers grow: then deliveries resume between runs of drops, each run with its
    // one gap.)
    let next = 1;
    let gaps = 0;
    let lastDelivered: { block_number: number; log_index: number } | undefined;
    for (const [k, m] of mine.entries()) {
      if (m.type === 'gap') {
        gaps++;
        expect(lastDelivered).toBeDefined();
        expect(m).toEqual({
          type: 'gap',
          subscription_id: sid,
          channel: 'trades',
          from_seq: next,
          to_seq: expect.any(Number),
          after: { block_number: lastDelivered!.block_number, log_index: lastDelivered!.log_index },
        });
        expect(m.to_seq as number).toBeGreaterThanOrEqual(next);
        // A gap goes right before a delivery: never last, never two in a row.
        expect(mine[k + 1]?.type).toBe('event');
        next = (m.to_seq as number) + 1;
      } else if (m.type === 'event') {
        expect(m.seq).toBe(next);
        next++;
        lastDelivered = m.data as { block_number: number; log_index: number };
      }
    }
    expect(gaps).toBeGreaterThanOrEqual(1);
    // Every fill published was counted (delivered or dropped), and the last one was delivered.
    expect(next - 1).toBe(i);
    expect(mine.at(-1)).toMatchObject({ type: 'event', seq: i });
    // Stop reading again: once dropped plus buffered bytes reach 4 MB, the connection is closed with 4002
    // (after which nothing more is dropped for it).
    socket.pause();
    const base = stream.service.stats().dropped;
    let previous = -1;
    for (;;) {
      await publisher.publish({ alpha_fills: Array.from({ length: 500 }, () => fill(i++)) as never });
      await new Promise((r) => setTimeout(r, 30));
      const dropped = stream.service.stats().dropped;
      if (dropped > base && dropped === previous) break;
      previous = dropped;
      if (i > 400_000) throw new Error('never closed');
    }
    socket.resume();
    expect((await c.closed).code).toBe(4002);
    await stream.close();
  }, 60_000);

  it('closes every connection with 1012 on shutdown and refuses new ones with 503', async () => {
    const own = await startTestStream(env);
    const pro = await env.key('pro');
    const c = await connect(own.url, pro.key);
    const closing = own.close();
    expect((await c.closed).code).toBe(1012);
    await closing;
  });
});
