/**
 * Filters deliver exactly the matching events, through the real follower publisher and a real
 * redis-server: each filter key of each chain channel, wildcards, trades' status, update replacing the
 * filters; crypto prices published on `pmdata:crypto:prices` reach feed and wildcard subscribers once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MarketSlugResolver } from '../api/markets.ts';
import { createPublisher, type Publisher } from '../ingest/venues/alpha/chain/publish.ts';
import {
  connect,
  createStreamTestEnv,
  type Message,
  type StreamTestEnv,
  startTestStream,
  type TestClient,
  type TestStream,
  until,
} from './support/stream.ts';

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const b32 = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const T0 = 1_777_000_000_000;

/** A fill as the follower writes it (JS values, block_time in Unix ms). */
function fill(
  i: number,
  o: { maker: number; condition: number; token: string; status?: string; version?: 1 | 2 },
) {
  return {
    chain_id: 137,
    block_number: 100 + i,
    block_hash: b32(9000 + i),
    block_time: T0 + i * 2000,
    tx_hash: b32(5000 + i),
    log_index: i,
    exchange: addr(0xe1),
    exchange_version: o.version ?? 1,
    neg_risk: false,
    order_hash: b32(7000 + i),
    maker: addr(o.maker),
    taker: addr(0xfeed),
    role: 'maker',
    side: 'BUY',
    token_id: o.token,
    condition_id: b32(o.condition),
    outcome_index: 0,
    maker_amount: 50_000_000,
    taker_amount: 100_000_000,
    shares: 100_000_000,
    usd: 50_000_000,
    fee: 0,
    fee_asset: 'shares',
    builder: o.version === 2 ? b32(0xb1) : '',
    metadata: o.version === 2 ? b32(0xb2) : '',
    status: o.status ?? 'confirmed',
  };
}

/** The fills every test publishes: makers 1..3, conditions 11..12, tokens '21'..'23'. */
const FILLS = [
  fill(0, { maker: 1, condition: 11, token: '21' }),
  fill(1, { maker: 2, condition: 11, token: '22', version: 2 }),
  fill(2, { maker: 3, condition: 12, token: '23' }),
  fill(3, { maker: 1, condition: 12, token: '23' }),
];

const slugs: MarketSlugResolver = {
  conditionIds: async (s) => (s === 'market-eleven' ? [b32(11)] : []),
  slugs: async (ids) => new Map(ids.filter((c) => c === b32(11)).map((c) => [c, 'market-eleven'])),
};

describe('stream filters', () => {
  let env: StreamTestEnv;
  let stream: TestStream;
  let publisher: Publisher;

  beforeAll(async () => {
    env = await createStreamTestEnv('stream_filters');
    stream = await startTestStream(env, {}, slugs);
    publisher = createPublisher(env.publisher, { prefix: env.channelPrefix, chainId: 137 });
  });
  afterAll(async () => {
    await stream?.close();
    await env?.close();
  });

  async function subscribe(
    c: TestClient,
    channel: string,
    filters: unknown,
    extra: Record<string, unknown> = {},
  ) {
    const r = await c.request({ action: 'subscribe', channel, filters, ...extra });
    expect(r.type, JSON.stringify(r)).toBe('subscribed');
    return r.subscription_id as string;
  }

  /** Publishes, then a marker fill only the marker subscription sees, and waits for it. */
  async function publishAndSettle(
    c: TestClient,
    rows: Parameters<Publisher['publish']>[0],
    status?: 'confirmed' | 'removed',
  ) {
    const marker = await subscribe(c, 'trades', { users: [addr(0xdead)] });
    await publisher.publish(rows, status);
    await publisher.publish({
      alpha_fills: [fill(99, { maker: 0xdead, condition: 1, token: '1' })] as never,
    });
    await c.next((m) => m.type === 'event' && m.subscription_id === marker);
    await c.request({ action: 'unsubscribe', subscription_id: marker });
  }

  const logIndexes = (events: Message[]) => events.map((e) => (e.data as { log_index: number }).log_index);

  it('each trades filter key delivers exactly the matching fills, with the REST item plus event_type, status and version', async () => {
    const pro = await env.key('pro');
    const c = await connect(stream.url, pro.key);
    const byUser = await subscribe(c, 'trades', { users: [addr(1)] });
    const byCondition = await subscribe(c, 'trades', {
      condition_ids: [b32(11).toUpperCase().replace('0X', '0x')],
    });
    const bySlug = await subscribe(c, 'trades', { market_slugs: ['market-eleven'] });
    const byToken = await subscribe(c, 'trades', { token_ids: ['23'] });
    const all = await subscribe(c, 'trades', { users: ['*'] });
    await publishAndSettle(c, { alpha_fills: FILLS as never });
    expect(logIndexes(c.events(byUser))).toEqual([0, 3]);
    expect(logIndexes(c.events(byCondition))).toEqual([0, 1]);
    expect(logIndexes(c.events(bySlug))).toEqual([0, 1]);
    expect(logIndexes(c.events(byToken))).toEqual([2, 3]);
    // The wildcard also sees the marker fill (log index 99).
    expect(logIndexes(c.events(all))).toEqual([0, 1, 2, 3, 99]);
    expect(c.events(all).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    const [v1, v2] = c.events(all);
    expect(v1).toEqual({
      type: 'event',
      channel: 'trades',
      subscription_id: all,
      seq: 1,
      data: {
        event_type: 'order_filled',
        tx_hash: b32(5000),
        log_index: 0,
        block_number: 100,
        timestamp: T0 / 1000,
        status: 'confirmed',
        order_hash: b32(7000),
        maker: addr(1),
        taker: addr(0xfeed),
        role: 'maker',
        side: 'BUY',
        token_id: '21',
        condition_id: b32(11),
        outcome_index: 0,
        market_slug: 'market-eleven',
        shares: 100,
        price: 0.5,
        total: 50,
        fee: 0,
        fee_asset: 'shares',
        exchange: addr(0xe1),
        exchange_version: 1,
        neg_risk: false,
        // As REST: builder and metadata on every fill ('' on version 1).
        builder: '',
        metadata: '',
        version: 1,
      },
    });
    expect(v2!.data).toMatchObject({
      version: 2,
      builder: b32(0xb1),
      metadata: b32(0xb2),
      fee_asset: 'collateral',
    });
    c.close();
  });

  it('update replaces the filters; unsubscribe stops the events', async () => {
    const pro = await env.key('pro');
    const c = await connect(stream.url, pro.key);
    const sub = await subscribe(c, 'trades', { users: [addr(1)] });
    await publishAndSettle(c, { alpha_fills: FILLS.slice(0, 2) as never });
    expect(logIndexes(c.events(sub))).toEqual([0]);
    await c.request({ action: 'update', subscription_id: sub, filters: { token_ids: ['22', '23'] } });
    await publishAndSettle(c, { alpha_fills: FILLS as never });
    expect(logIndexes(c.events(sub))).toEqual([0, 1, 2, 3]);
    expect(c.events(sub).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    await c.request({ action: 'unsubscribe', subscription_id: sub });
    await publishAndSettle(c, { alpha_fills: FILLS as never });
    expect(c.events(sub)).toHaveLength(4);
    c.close();
  });

  it('trades status: confirmed by default, pending and removed with pending, all three with all', async () => {
    const dev = await env.key('dev');
    const c = await connect(stream.url, dev.key);
    const confirmed = await subscribe(c, 'trades', { users: [addr(1)] });
    const pending = await subscribe(c, 'trades', { users: [addr(1)], status: 'pending' });
    const all = await subscribe(c, 'trades', { users: [addr(1)], status: 'all' });
    const row = fill(0, { maker: 1, condition: 11, token: '21', status: 'pending' });
    await publishAndSettle(c, { alpha_fills: [row] as never });
    await publishAndSettle(c, { alpha_fills: [row] as never }, 'confirmed');
    await publishAndSettle(c, { alpha_fills: [row] as never }, 'removed');
    const statuses = (sid: string) => c.events(sid).map((e) => (e.data as { status: string }).status);
    expect(statuses(confirmed)).toEqual(['confirmed']);
    expect(statuses(pending)).toEqual(['pending', 'removed']);
    expect(statuses(all)).toEqual(['pending', 'confirmed', 'removed']);
    c.close();
  });

  it('activity, lifecycle, collateral and oracle filters', async () => {
    const pro = await env.key('pro');
    const c = await connect(stream.url, pro.key);
    const head = (i: number) => ({
      chain_id: 137,
      block_number: 200 + i,
      block_hash: b32(1),
      block_time: T0,
      tx_hash: b32(6000 + i),
      log_index: i,
      status: 'confirmed',
    });
    const activity = [
      {
        ...head(0),
        type: 'SPLIT',
        version: 1,
        neg_risk: false,
        wallet: addr(5),
        stakeholder: addr(5),
        contract: addr(9),
        condition_id: b32(11),
        market_id: b32(11),
        neg_risk_market_id: null,
        index_set: null,
        collateral_token: addr(8),
        partition: ['1', '2'],
        amounts: [],
        amount: 1_000_000,
        payout: 0,
      },
      {
        ...head(1),
        type: 'CONVERT',
        version: 2,
        neg_risk: true,
        wallet: addr(6),
        stakeholder: addr(6),
        contract: addr(9),
        condition_id: null,
        market_id: null,
        neg_risk_market_id: b32(77),
        index_set: '3',
        collateral_token: '',
        partition: [],
        amounts: [],
        amount: 2_000_000,
        payout: 0,
      },
    ];
    const collateral = [
      {
        ...head(2),
        kind: 'wrap',
        token: addr(3),
        symbol: 'pUSD',
        from_address: addr(5),
        to_address: addr(6),
        caller: addr(5),
        asset: addr(4),
        amount: 3_000_000,
      },
      {
        ...head(3),
        kind: 'transfer',
        token: addr(3),
        symbol: 'pUSD',
        from_address: addr(5),
        to_address: addr(6),
        caller: '',
        asset: '',
        amount: 1,
      },
    ];
    const lifecycle = [
      {
        ...head(4),
        kind: 'condition_prepared',
        version: 1,
        neg_risk: false,
        contract: addr(9),
        condition_id: b32(11),
        question_id: b32(31),
        market_id: '',
        oracle: addr(2),
        outcome_slot_count: 2,
        tokens: JSON.stringify([
          { token_id: '21', label: 'Yes' },
          { token_id: '22', label: 'No' },
        ]),
        payout_numerators: [],
        args: '{}',
      },
      {
        ...head(5),
        kind: 'condition_resolved',
        version: 1,
        neg_risk: false,
        contract: addr(9),
        condition_id: b32(12),
        question_id: b32(32),
        market_id: '',
        oracle: addr(2),
        outcome_slot_count: 2,
        tokens: null,
        payout_numerators: ['1', '0'],
        args: '{}',
      },
    ];
    const oracle = [
      {
        ...head(6),
        kind: 'propose_price',
        contract: addr(0x00),
        neg_risk: false,
        question_id: b32(31),
        condition_id: b32(11),
        requester: addr(2),
        proposer: addr(7),
        disputer: '',
        identifier: b32(1),
        request_timestamp: 5,
        ancillary_data: '',
        price: '1',
        payouts: [],
        args: '{}',
      },
      {
        ...head(7),
        kind: 'request_price',
        contract: addr(0x00),
        neg_risk: false,
        question_id: b32(31),
        condition_id: b32(11),
        requester: addr(2),
        proposer: '',
        disputer: '',
        identifier: b32(1),
        request_timestamp: 5,
        ancillary_data: '',
        price: null,
        payouts: [],
        args: '{}',
      },
      {
        ...head(8),
        kind: 'propose_price',
        contract: addr(0x00),
        neg_risk: true,
        question_id: b32(32),
        condition_id: '',
        requester: addr(3),
        proposer: addr(7),
        disputer: '',
        identifier: b32(1),
        request_timestamp: 5,
        ancillary_data: '',
        price: '1',
        payouts: [],
        args: '{}',
      },
    ];
    const actUser = await subscribe(c, 'activity', { users: [addr(6)] });
    const actCondition = await subscribe(c, 'activity', { condition_ids: [b32(11)] });
    const actSlug = await subscribe(c, 'activity', { market_slugs: ['market-eleven'] });
    const colUser = await subscribe(c, 'collateral', { users: [addr(6)] });
    const lifeCondition = await subscribe(c, 'lifecycle', { condition_ids: [b32(11)] });
    const lifeAll = await subscribe(c, 'lifecycle', { condition_ids: ['*'] });
    const oracleQuestion = await subscribe(c, 'oracle', { question_ids: [b32(31)] });
    const oracleNegRisk = await subscribe(c, 'oracle', { question_ids: [b32(32)] });
    const oracleCondition = await subscribe(c, 'oracle', { condition_ids: [b32(11)] });
    await publishAndSettle(c, {
      alpha_activity: activity as never,
      alpha_collateral: collateral as never,
      alpha_lifecycle: lifecycle as never,
      alpha_oracle: oracle as never,
    });
    expect(c.events(actUser).map((e) => e.data)).toEqual([
      expect.objectContaining({
        event_type: 'conversion',
        type: 'CONVERT',
        condition_id: null,
        neg_risk_event_id: b32(77),
        neg_risk_market_id: b32(77),
        index_set: '3',
        amount: 2,
        version: 2,
      }),
    ]);
    expect(c.events(actCondition).map((e) => (e.data as { event_type: string }).event_type)).toEqual([
      'split',
    ]);
    expect(c.events(actSlug).map((e) => (e.data as { market_slug: string }).market_slug)).toEqual([
      'market-eleven',
    ]);
    expect(c.events(colUser).map((e) => e.data)).toEqual([
      expect.objectContaining({ event_type: 'wrap', amount: 3 }),
    ]);
    expect(c.events(lifeCondition).map((e) => e.data)).toEqual([
      expect.objectContaining({
        event_type: 'condition_prepared',
        version: 1,
        tokens: [
          { token_id: '21', label: 'Yes' },
          { token_id: '22', label: 'No' },
        ],
      }),
    ]);
    expect(c.events(lifeAll).map((e) => (e.data as { event_type: string }).event_type)).toEqual([
      'condition_prepared',
      'condition_resolved',
    ]);
    expect(c.events(oracleQuestion).map((e) => e.data)).toEqual([
      expect.objectContaining({
        event_type: 'proposal',
        question_id: b32(31),
        proposer: addr(7),
        // The row's condition, as ingested (mappers/uma.ts).
        condition_id: b32(11),
      }),
    ]);
    expect(c.events(oracleCondition).map((e) => (e.data as { question_id: string }).question_id)).toEqual([
      b32(31),
    ]);
    // A row whose condition the chain has not said yet ('' as stored): null.
    expect(c.events(oracleNegRisk).map((e) => e.data)).toEqual([
      expect.objectContaining({ event_type: 'proposal', question_id: b32(32), condition_id: null }),
    ]);
    c.close();
  });

  it('crypto prices reach feed and wildcard subscribers of the platform, one event per message', async () => {
    const pro = await env.key('pro');
    const c = await connect(stream.url, pro.key);
    const sub = (feeds: string[], platform = 'chainlink') =>
      subscribe(c, 'crypto_prices', { feeds }, { platform, type: 'crypto' });
    const btc = await sub(['btc/usd']);
    const both = await sub(['BTC/USD', 'ETH/USD']);
    const any = await sub(['*']);
    const other = await sub(['*'], 'pyth');
    const prices = [
      {
        platform: 'chainlink',
        feed: 'BTC/USD',
        price: 97000.5,
        bid: 96999,
        ask: 97001,
        observed_at: 1777000000,
      },
      {
        platform: 'chainlink',
        feed: 'ETH/USD',
        price: 3500.25,
        bid: 3500,
        ask: 3500.5,
        observed_at: 1777000001,
      },
      { platform: 'chainlink', feed: 'SOL/USD', price: 150, bid: 149.9, ask: 150.1, observed_at: 1777000002 },
    ];
    for (const p of prices)
      await env.publisher.publish(`${env.channelPrefix}crypto:prices`, JSON.stringify(p));
    await until(() => c.events(any).length === 3);
    await new Promise((r) => setTimeout(r, 50));
    const feeds = (sid: string) => c.events(sid).map((e) => (e.data as { feed: string }).feed);
    expect(feeds(btc)).toEqual(['BTC/USD']);
    expect(feeds(both)).toEqual(['BTC/USD', 'ETH/USD']);
    expect(feeds(any)).toEqual(['BTC/USD', 'ETH/USD', 'SOL/USD']);
    expect(c.events(other)).toEqual([]);
    expect(c.events(btc)[0]).toEqual({
      type: 'event',
      channel: 'crypto_prices',
      subscription_id: btc,
      seq: 1,
      data: {
        event_type: 'price_feed',
        platform: 'chainlink',
        type: 'crypto',
        feed: 'BTC/USD',
        price: 97000.5,
        bid: 96999,
        ask: 97001,
        observed_at: 1777000000,
      },
    });
    c.close();
  });
});
