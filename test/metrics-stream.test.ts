/**
 * Stream metrics on a real stream service (real redis-server, real sockets, the follower's publisher):
 * pmdata_stream_connections{tier} and pmdata_stream_subscriptions{channel} follow a connection and its
 * subscriptions up and down, pmdata_stream_events_sent_total counts deliveries, a client that stops
 * reading raises pmdata_stream_events_dropped_total by the events the service dropped and, once closed
 * with 4002, pmdata_stream_disconnects_total{reason="buffer_limit"}; the other reasons (client, idle,
 * pong_timeout) each count their own close.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../core/metrics.ts';
import { createPublisher, type Publisher } from '../ingest/venues/alpha/chain/publish.ts';
import { sample } from './support/metrics.ts';
import {
  connect,
  createStreamTestEnv,
  type StreamTestEnv,
  startTestStream,
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

/** The current value of a stream metric sample. */
async function metric(name: string, labels: Record<string, string>): Promise<number> {
  return sample(await registry.metrics(), name, labels);
}
const connections = (tier: string) => metric('pmdata_stream_connections', { tier });
const subscriptions = (channel: string) => metric('pmdata_stream_subscriptions', { channel });
const sent = (channel: string) => metric('pmdata_stream_events_sent_total', { channel });
const dropped = (channel: string) => metric('pmdata_stream_events_dropped_total', { channel });
const disconnects = (reason: string) => metric('pmdata_stream_disconnects_total', { reason });

describe('stream metrics', () => {
  let env: StreamTestEnv;
  let publisher: Publisher;

  beforeAll(async () => {
    env = await createStreamTestEnv('metrics_stream');
    publisher = createPublisher(env.publisher, { prefix: env.channelPrefix, chainId: 137 });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('connections, subscriptions and sent events follow a client; its close counts as client', async () => {
    const stream = await startTestStream(env);
    try {
      const pro = await env.key('pro');
      const c0 = await connections('pro');
      const s0 = await subscriptions('trades');
      const a0 = await subscriptions('activity');
      const sent0 = await sent('trades');
      const client0 = await disconnects('client');

      const c = await connect(stream.url, pro.key);
      await until(async () => (await connections('pro')) === c0 + 1);
      const trades = await c.request({ action: 'subscribe', channel: 'trades', filters: { users: ['*'] } });
      const trades2 = await c.request({ action: 'subscribe', channel: 'trades', filters: { users: ['*'] } });
      await c.request({ action: 'subscribe', channel: 'activity', filters: { users: ['*'] } });
      expect(await subscriptions('trades')).toBe(s0 + 2);
      expect(await subscriptions('activity')).toBe(a0 + 1);

      // 3 fills × 2 trades subscriptions = 6 events sent.
      await publisher.publish({ alpha_fills: [fill(1), fill(2), fill(3)] as never });
      await until(() => c.events().length === 6);
      expect(await sent('trades')).toBe(sent0 + 6);

      await c.request({ action: 'unsubscribe', subscription_id: trades.subscription_id });
      expect(await subscriptions('trades')).toBe(s0 + 1);
      expect(trades2.type).toBe('subscribed');

      c.close();
      await c.closed;
      await until(async () => (await connections('pro')) === c0);
      // The connection's remaining subscriptions leave with it.
      expect(await subscriptions('trades')).toBe(s0);
      expect(await subscriptions('activity')).toBe(a0);
      expect(await disconnects('client')).toBe(client0 + 1);
    } finally {
      await stream.close();
    }
  });

  it('idle and pong timeouts count under their reasons', async () => {
    const stream = await startTestStream(env, { pingIntervalMs: 50, pongTimeoutMs: 300, idleTimeoutMs: 400 });
    try {
      const pro = await env.key('pro');
      const idle0 = await disconnects('idle');
      const pong0 = await disconnects('pong_timeout');
      const idle = await connect(stream.url, pro.key);
      expect((await idle.closed).code).toBe(4000);
      expect(await disconnects('idle')).toBe(idle0 + 1);
      const mute = await connect(stream.url, pro.key, { autoPong: false });
      await mute.request({ action: 'subscribe', channel: 'trades', filters: { users: ['*'] } });
      expect((await mute.closed).code).toBe(4001);
      expect(await disconnects('pong_timeout')).toBe(pong0 + 1);
    } finally {
      await stream.close();
    }
  });

  it('a client that stops reading: dropped events counted, then a buffer_limit disconnect', async () => {
    const stream = await startTestStream(env);
    try {
      const ent = await env.key('enterprise', { stream_wildcards_per_channel: '40' });
      const c = await connect(stream.url, ent.key);
      for (let k = 0; k < 4; k++) {
        await c.request({ action: 'subscribe', channel: 'trades', filters: { users: ['*'] } });
      }
      const dropped0 = await dropped('trades');
      const limit0 = await disconnects('buffer_limit');
      const conn0 = await connections('enterprise');
      c.ws.pause();
      let i = 0;
      // Publish in small batches until the service drops (kernel buffers fill first, then the send
      // buffer reaches 1 MB): one batch is far below the 4 MB that closes the connection.
      while (stream.service.stats().dropped === 0) {
        await publisher.publish({ alpha_fills: Array.from({ length: 50 }, () => fill(i++)) as never });
        await new Promise((r) => setTimeout(r, 10));
        if (i > 100_000) throw new Error('never dropped');
      }
      // Once the fan-out is quiet, what the connection counts as dropped is what the metric counts.
      let previous = -1;
      while (stream.service.stats().dropped !== previous) {
        previous = stream.service.stats().dropped;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(await disconnects('buffer_limit')).toBe(limit0);
      expect(await dropped('trades')).toBe(dropped0 + stream.service.stats().dropped);

      // Keep publishing: once dropped plus buffered bytes reach 4 MB, the connection is closed with 4002.
      for (;;) {
        await publisher.publish({ alpha_fills: Array.from({ length: 500 }, () => fill(i++)) as never });
        await new Promise((r) => setTimeout(r, 30));
        if ((await disconnects('buffer_limit')) > limit0) break;
        if (i > 400_000) throw new Error('never closed');
      }
      c.ws.resume();
      expect((await c.closed).code).toBe(4002);
      expect(await disconnects('buffer_limit')).toBe(limit0 + 1);
      await until(async () => (await connections('enterprise')) === conn0 - 1);
    } finally {
      await stream.close();
    }
  }, 60_000);
});
