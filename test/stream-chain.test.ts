/**
 * The live path end to end: the sim chain, the follower publishing on a real redis-server, two stream
 * processes (services) subscribed once each, clients on both. Every confirmed row reaches each wildcard
 * subscriber exactly once with the REST row's fields; with status all, pending then confirmed per fill
 * and `removed` for the fills a reorg of depth 3 orphaned; a client that left midway recovers exactly
 * the rest through `GET /v2/alpha/trades?after=`. Wraps and unwraps name who funded them as the chain's
 * transfers say, and oracle events (neg-risk questions included) the condition of their question as the
 * contracts say.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeFunctionData, type Hex, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../api/app.ts';
import { createKeyStore } from '../api/keys/store.ts';
import { noMarketMetadata } from '../api/markets.ts';
import { streamSettings } from '../api/stream/config.ts';
import { createStreamService, type StreamService } from '../api/stream/service.ts';
import type { Follower } from '../ingest/chain/follower.ts';
import { createAlphaChain } from '../ingest/venues/alpha/chain/ingestor.ts';
import { createPublisher } from '../ingest/venues/alpha/chain/publish.ts';
import { alphaChainSettings } from '../ingest/venues/alpha/chain/settings.ts';
import { ADDR } from '../sim/chain/addresses.ts';
import { type Sim, startSim } from '../sim/index.ts';
import { TEST_SECRET } from './api-helpers.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { connect, type Message, type TestClient } from './support/stream.ts';

type Row = Record<string, unknown>;
const NEG_RISK_READS = parseAbi([
  'function questionIds(bytes32 requestId) view returns (bytes32)',
  'function getConditionId(bytes32 questionId) view returns (bytes32)',
]);
const keyOf = (d: Row) => `${d.tx_hash}:${d.log_index}`;
/** Chain order (the follower publishes a tick's rows in the order its pages completed). */
const chainOrder = (rows: Row[]) =>
  [...rows].sort(
    (x, y) => Number(x.block_number) - Number(y.block_number) || Number(x.log_index) - Number(y.log_index),
  );

describe('stream over the live sim chain', () => {
  let deps: TestDeps;
  let sim: Sim;
  let app: App;
  let apiKey: string;
  const services: { service: StreamService; server: Server; url: string }[] = [];

  async function startService() {
    const service = createStreamService({
      redis: deps.redis,
      redisUrl: deps.config.redisUrl,
      log: deps.log,
      settings: streamSettings(deps.config),
      markets: noMarketMetadata,
      prefix: `${deps.prefix}:`,
    });
    const server = createServer((_q, r) => r.writeHead(404).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    service.attach(server);
    await service.ready();
    const s = { service, server, url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}` };
    services.push(s);
    return s;
  }

  beforeAll(async () => {
    [deps, sim] = await Promise.all([
      createTestDeps('stream_chain'),
      startSim({ seed: 'stream-chain', size: 'small', replicas: false }),
    ]);
    app = await buildApp({ ...deps, secret: TEST_SECRET, marketSlugs: noMarketMetadata });
    apiKey = (await createKeyStore(deps.redis).create({ tier: 'pro', name: 'stream-chain' })).key;
  }, 120_000);
  afterAll(async () => {
    for (const s of services) {
      await s.service.close();
      s.server.close();
    }
    await app?.close();
    await sim?.stop();
    await deps?.close();
  });

  async function rest(path: string, field: string): Promise<Row[]> {
    const out: Row[] = [];
    let key: string | null = null;
    do {
      const res = await app.inject({
        url: `${path}&limit=200${key ? `&pagination_key=${key}` : ''}`,
        headers: { 'x-api-key': apiKey },
      });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as Record<string, unknown> & { pagination: { pagination_key: string | null } };
      out.push(...(body[field] as Row[]));
      key = body.pagination.pagination_key;
    } while (key);
    return out;
  }

  async function subscribe(c: TestClient, channel: string, filters: Row): Promise<string> {
    const r = await c.request({ action: 'subscribe', channel, filters });
    expect(r.type, JSON.stringify(r)).toBe('subscribed');
    return r.subscription_id as string;
  }

  it('delivers every confirmed row once per wildcard subscriber on two processes, pending → confirmed and removed on a reorg, and REST catch-up', async () => {
    const [a, b] = [await startService(), await startService()];
    const chain = alphaChainSettings(deps.config, {
      rpcUrls: [sim.rpcUrl],
      positionIds: 'simplified',
      finalityDepth: 5,
      followMaxBlocksPerTick: 4,
    });
    const follower: Follower = createAlphaChain({ clickhouse: deps.clickhouse, log: deps.log }, chain).follow(
      {
        publisher: createPublisher(deps.redis, { prefix: `${deps.prefix}:`, chainId: chain.chainId }),
        fromBlock: 0,
      },
    );
    const catchUp = async () => {
      for (let i = 0; i < 5000; i++) if ((await follower.tick()).kind === 'idle') return;
      throw new Error('follower did not catch up');
    };

    const ca = await connect(a.url, apiKey);
    const cb = await connect(b.url, apiKey);
    const late = await connect(b.url, apiKey);
    const subs = {
      trades: await subscribe(ca, 'trades', { users: ['*'] }),
      tradesAll: await subscribe(ca, 'trades', { token_ids: ['*'], status: 'all' }),
      activity: await subscribe(ca, 'activity', { users: ['*'] }),
      lifecycle: await subscribe(ca, 'lifecycle', { condition_ids: ['*'] }),
      collateral: await subscribe(ca, 'collateral', { users: ['*'] }),
      oracle: await subscribe(ca, 'oracle', { question_ids: ['*'] }),
    };
    const bTrades = await subscribe(cb, 'trades', { condition_ids: ['*'] });
    const bActivity = await subscribe(cb, 'activity', { users: ['*'] });
    const lateTrades = await subscribe(late, 'trades', { users: ['*'] });

    // History (deep: confirmed at once), then live blocks, a client leaving, a reorg of depth 3, finality.
    await catchUp();
    await sim.control.mineActive(6);
    await catchUp();
    await new Promise((r) => setTimeout(r, 300));
    const lateEvents = late.events(lateTrades);
    late.close();
    await sim.control.mineActive(4);
    await catchUp();
    const reorg = await sim.control.reorg(3);
    expect(reorg.orphaned).toHaveLength(3);
    expect((await follower.tick()).kind).toBe('reorg');
    await catchUp();
    await sim.control.mineEmpty(7);
    await catchUp();

    // Ground truth: the final tables, every row confirmed.
    const trades = await rest('/v2/alpha/trades?after=0:0', 'trades');
    const activity = await rest('/v2/alpha/activity?after=0:0', 'activity');
    expect(trades.length).toBeGreaterThan(100);
    expect(trades.every((t) => t.status === 'confirmed')).toBe(true);
    const settle = async (c: TestClient, sid: string, n: number) => {
      for (let i = 0; i < 200 && c.events(sid).length < n; i++) await new Promise((r) => setTimeout(r, 25));
      await new Promise((r) => setTimeout(r, 100));
    };
    await settle(ca, subs.trades, trades.length);
    await settle(cb, bTrades, trades.length);

    /** An event's data as the REST row: without the stream's additions. */
    const asRest = (d: Row): Row => {
      const { event_type: _e, neg_risk_event_id: _n, ...rest } = d;
      if (d.event_type === 'order_filled') {
        // Trades: `version` is the stream's name of exchange_version; version 1 has no builder/metadata.
        delete rest.version;
        if (!('builder' in rest)) Object.assign(rest, { builder: '', metadata: '' });
      }
      return rest;
    };
    const data = (c: TestClient, sid: string) => c.events(sid).map((e) => e.data as Row);
    for (const [c, sid] of [
      [ca, subs.trades],
      [cb, bTrades],
    ] as const) {
      const got = data(c, sid);
      expect(new Set(got.map(keyOf)).size, 'each fill once').toBe(got.length);
      expect(chainOrder(got.map(asRest))).toEqual(trades);
      expect(c.events(sid).map((e) => e.seq)).toEqual(got.map((_, i) => i + 1));
    }
    expect(
      data(ca, subs.trades).every(
        (d) => d.event_type === 'order_filled' && (d.version === 1 || d.version === 2),
      ),
    ).toBe(true);
    for (const [c, sid] of [
      [ca, subs.activity],
      [cb, bActivity],
    ] as const) {
      expect(chainOrder(data(c, sid).map(asRest))).toEqual(activity);
    }

    // The other chain channels: the confirmed rows of their tables, once each, in chain order.
    const tableKeys = async (table: string, where: string) =>
      (
        await deps.clickhouse.query<Row>(
          'test.keys',
          `SELECT tx_hash, log_index FROM ${table} WHERE ${where} ORDER BY block_number, log_index`,
        )
      ).map(keyOf);
    expect(chainOrder(data(ca, subs.lifecycle)).map(keyOf)).toEqual(await tableKeys('alpha_lifecycle', '1'));
    expect(data(ca, subs.lifecycle).length).toBeGreaterThan(0);
    const prepared = data(ca, subs.lifecycle).find(
      (d) => d.event_type === 'condition_prepared' && d.outcome_slot_count === 2,
    );
    expect(prepared?.tokens).toEqual([
      { token_id: expect.any(String), label: expect.any(String) },
      { token_id: expect.any(String), label: expect.any(String) },
    ]);
    expect(chainOrder(data(ca, subs.collateral)).map(keyOf)).toEqual(
      await tableKeys('alpha_collateral', "kind IN ('wrap', 'unwrap')"),
    );
    expect(chainOrder(data(ca, subs.oracle)).map(keyOf)).toEqual(
      await tableKeys(
        'alpha_oracle',
        "kind IN ('propose_price', 'dispute_price', 'settle', 'question_reset')",
      ),
    );

    // Each wrap/unwrap names who funded it as the chain says: the `from` of the transaction's earlier
    // Transfer of what is wrapped (USDC.e; pUSD for an unwrap) into the pUSD contract, the sim's funder.
    const funders = new Map(
      sim.ledger.collateral
        .filter((c) => c.kind === 'wrap' || c.kind === 'unwrap')
        .map((c) => [`${c.txHash.toLowerCase()}|${c.kind}|${c.to.toLowerCase()}|${c.amount}`, c.funder]),
    );
    const wraps = data(ca, subs.collateral);
    expect(wraps.length).toBeGreaterThan(0);
    const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
    const word = (a: string) => `0x${a.slice(2).toLowerCase().padStart(64, '0')}`;
    for (const d of wraps) {
      const receipt = await sim.anvil.rpc<{
        logs: { address: string; topics: string[]; data: string; logIndex: string }[];
      }>('eth_getTransactionReceipt', [d.tx_hash]);
      const at = receipt.logs.findIndex((l) => Number(l.logIndex) === d.log_index);
      const own = receipt.logs[at]!;
      const token = d.event_type === 'wrap' ? `0x${own.topics[2]!.slice(26)}` : own.address.toLowerCase();
      const funding = receipt.logs
        .slice(0, at)
        .filter(
          (l) =>
            l.address.toLowerCase() === token &&
            l.topics[0] === TRANSFER &&
            l.topics[2] === word(own.address) &&
            BigInt(l.data) === BigInt(own.data),
        )
        .at(-1);
      const chainFrom = funding ? `0x${funding.topics[1]!.slice(26)}` : '';
      expect(chainFrom, keyOf(d)).not.toBe('');
      expect(d.from_address, keyOf(d)).toBe(chainFrom);
      const amount = BigInt(Math.round(Number(d.amount) * 1e6));
      expect(d.from_address, keyOf(d)).toBe(
        funders.get(`${d.tx_hash}|${d.event_type}|${d.to_address}|${amount}`)?.toLowerCase(),
      );
    }

    // Each oracle event carries the condition of its question, neg-risk questions included (their UMA
    // question id is the NegRiskOperator's request id): as the sim's ledger and the chain's contracts say.
    const conditionOf = new Map(
      sim.ledger.oracle.map((o) => [o.umaQuestionId.toLowerCase(), o.conditionId.toLowerCase()]),
    );
    const oracleEvents = data(ca, subs.oracle);
    const negRisk = oracleEvents.filter((d) => d.neg_risk === true);
    expect(negRisk.length).toBeGreaterThan(0);
    expect(oracleEvents.filter((d) => d.neg_risk === false).length).toBeGreaterThan(0);
    for (const d of oracleEvents) {
      expect(d.question_id, keyOf(d)).toMatch(/^0x[0-9a-f]{64}$/);
      expect(d.condition_id, keyOf(d)).toBe(conditionOf.get(d.question_id as string));
    }
    const call = (to: string, data: string) => sim.anvil.rpc<string>('eth_call', [{ to, data }, 'latest']);
    for (const d of negRisk) {
      // NegRiskOperator.questionIds(requestId) → NegRiskAdapter.getConditionId(questionId).
      const question = await call(
        ADDR.negRiskOperator,
        encodeFunctionData({
          abi: NEG_RISK_READS,
          functionName: 'questionIds',
          args: [d.question_id as Hex],
        }),
      );
      const condition = await call(
        ADDR.negRiskAdapter,
        encodeFunctionData({ abi: NEG_RISK_READS, functionName: 'getConditionId', args: [question as Hex] }),
      );
      expect(d.condition_id, keyOf(d)).toBe(condition);
    }

    // status all: deep history once as confirmed; live fills pending then confirmed; orphaned ones removed.
    const byFill = new Map<string, string[]>();
    for (const d of data(ca, subs.tradesAll))
      byFill.set(keyOf(d), [...(byFill.get(keyOf(d)) ?? []), d.status as string]);
    const sequences = new Set([...byFill.values()].map((s) => s.join('>')));
    const final = new Set(trades.map(keyOf));
    const orphanedTx = new Set<string>();
    for (const [k, s] of byFill) {
      if (s.includes('removed')) orphanedTx.add(k);
      else expect(final.has(k), k).toBe(true);
    }
    expect(orphanedTx.size).toBeGreaterThan(0);
    expect(
      [...sequences].every((s) => ['confirmed', 'pending>confirmed', 'pending>removed'].includes(s)),
      [...sequences].join(' | '),
    ).toBe(true);
    expect(sequences.has('pending>confirmed')).toBe(true);
    for (const k of final) expect(byFill.get(k)?.at(-1), k).toBe('confirmed');

    // The client that left: what it received plus REST after its last position is the ground truth.
    const seen = chainOrder(lateEvents.map((e: Message) => e.data as Row));
    const last = seen.at(-1)!;
    const recovered = await rest(`/v2/alpha/trades?after=${last.block_number}:${last.log_index}`, 'trades');
    expect(recovered.length).toBeGreaterThan(0);
    expect([...seen.map(asRest), ...recovered]).toEqual(trades);

    // Malformed `after` is a 400.
    for (const bad of ['12', '1:x', '-1:2', '1:2:3']) {
      const res = await app.inject({
        url: `/v2/alpha/trades?after=${bad}`,
        headers: { 'x-api-key': apiKey },
      });
      expect(res.statusCode, bad).toBe(400);
    }
    ca.close();
    cb.close();
  }, 180_000);
});
