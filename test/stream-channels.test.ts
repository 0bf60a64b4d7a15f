/**
 * A channel is one entry of the channel list (api/stream/channels.ts; the recipe of docs/contributing.md
 * "A channel"): a toy channel given to the service as one entry, with its own publication, is accepted by
 * the protocol (its filter keys and no other), subscribed on Redis, and delivers the toy messages the
 * test publishes there to the subscriptions whose filter they match (confirmed rows only: it does not
 * declare `pending`). A service without the entry does not know the channel; a name declared twice is
 * refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNELS, chainMessage, channelSet, type StreamChannel } from '../api/stream/channels.ts';
import { lower } from '../api/stream/events.ts';
import type { StreamMessage } from '../schemas/stream.ts';
import {
  connect,
  createStreamTestEnv,
  type StreamTestEnv,
  startTestStream,
  type TestClient,
  type TestStream,
  until,
} from './support/stream.ts';

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

/** The toy channel: the whole recipe is this entry (its publication is its own, not in PUBLICATIONS). */
const TOY: StreamChannel = {
  name: 'toy_things',
  publication: { redis: 'toy:things' },
  filters: { users: (d) => [lower(d.owner)] },
  event(message) {
    const m = chainMessage(message);
    if (!m) return null;
    return {
      data: { event_type: m.event, owner: String(m.data.owner), size: Number(m.data.size), status: m.status },
      status: m.status,
      position: { block_number: Number(m.data.block_number), log_index: Number(m.data.log_index) },
    };
  },
};

function thing(i: number, owner: number, status: StreamMessage['status'] = 'confirmed'): StreamMessage {
  return {
    channel: 'toy_things',
    event: 'thing_made',
    status,
    data: {
      owner: addr(owner).toUpperCase().replace('0X', '0x'),
      size: i * 10,
      block_number: 50 + i,
      log_index: i,
    },
  };
}

describe('a toy channel added as one entry of the channel list', () => {
  let env: StreamTestEnv;
  let withToy: TestStream;
  let without: TestStream;

  beforeAll(async () => {
    env = await createStreamTestEnv('stream_channels');
    withToy = await startTestStream(env, {}, undefined, { extraChannels: [TOY] });
    without = await startTestStream(env);
  });
  afterAll(async () => {
    await withToy?.close();
    await without?.close();
    await env?.close();
  });

  const subscribe = (c: TestClient, channel: string, filters: unknown) =>
    c.request({ action: 'subscribe', channel, filters });

  it('is subscribed on Redis, accepted with its filter keys, and delivers what its publication carries', async () => {
    // The service subscribed to the toy's publication beside the stream's own.
    const subscribed = (await env.publisher.pubsub('CHANNELS', `${env.channelPrefix}*`)) as string[];
    expect(subscribed).toContain(`${env.channelPrefix}toy:things`);
    for (const c of CHANNELS) expect(subscribed).toContain(`${env.channelPrefix}${c.publication.redis}`);

    const pro = await env.key('pro');
    const c = await connect(withToy.url, pro.key);
    // Only its own filter keys.
    const wrongKey = await subscribe(c, 'toy_things', { condition_ids: ['*'] });
    expect(wrongKey).toMatchObject({ type: 'error', code: 'INVALID_FILTERS' });
    expect(wrongKey.message).toContain('filters by one of users');
    const unknown = await subscribe(c, 'nope', { users: ['*'] });
    expect(unknown).toMatchObject({ type: 'error', code: 'UNKNOWN_CHANNEL' });
    expect(unknown.message).toContain('toy_things');

    const one = await subscribe(c, 'toy_things', { users: [addr(1)] });
    const all = await subscribe(c, 'toy_things', { users: ['*'] });
    expect(one).toMatchObject({ type: 'subscribed', channel: 'toy_things' });
    expect(all).toMatchObject({ type: 'subscribed', channel: 'toy_things' });
    // The stream's own channels are still there.
    expect(await subscribe(c, 'trades', { users: ['*'] })).toMatchObject({ type: 'subscribed' });

    const things = [thing(1, 1), thing(2, 2), thing(3, 1, 'pending'), thing(4, 1)];
    for (const t of things) await env.publisher.publish(`${env.channelPrefix}toy:things`, JSON.stringify(t));
    await until(() => c.events(all.subscription_id as string).length === 3);
    await new Promise((r) => setTimeout(r, 50));
    const sizes = (sid: unknown) => c.events(sid as string).map((e) => (e.data as { size: number }).size);
    // The filter applied (owner 1 only; the owner's case normalized); a pending row goes to no one.
    expect(sizes(one.subscription_id)).toEqual([10, 40]);
    expect(sizes(all.subscription_id)).toEqual([10, 20, 40]);
    expect(c.events(one.subscription_id as string)[0]).toEqual({
      type: 'event',
      channel: 'toy_things',
      subscription_id: one.subscription_id,
      seq: 1,
      data: {
        event_type: 'thing_made',
        owner: addr(1).toUpperCase().replace('0X', '0x'),
        size: 10,
        status: 'confirmed',
      },
    });
    c.close();
  });

  it('is unknown to a service without the entry; a name declared twice is refused', async () => {
    const pro = await env.key('pro');
    const c = await connect(without.url, pro.key);
    const r = await subscribe(c, 'toy_things', { users: ['*'] });
    expect(r).toMatchObject({ type: 'error', code: 'UNKNOWN_CHANNEL' });
    c.close();
    expect(() => channelSet([{ ...TOY, name: 'trades' }])).toThrow(/trades is declared twice/);
  });
});
