/**
 * A stream trade or activity item is the REST item of the same row plus `event_type` and `status` (and
 * SPEC's stream additions: trades' `version`, conversions' `neg_risk_event_id`), on the sim chain
 * (api/stream/channels.ts: one mapping, `toTrade` / `toActivity`):
 * - the history's reference pass lands below the follower's first block; the follower's token map holds
 *   half of the history's markets only (as a follower that ran ahead of the reference pass and remembers
 *   its misses), so it writes the other half's fills with condition_id '' and outcome -1: their items take
 *   the condition (and outcome) from the API's and the stream's token maps alike;
 * - the follower's rows within the finality depth are published pending (rows as written: JS values),
 *   the older ones confirmed at once; empty blocks mined on the world's chain then confirm the pending
 *   ones (re-read from ClickHouse: its JSON). Each form's items equal REST's at that moment, status
 *   included (GET /v2/alpha/trades and /v2/alpha/activity), fills with a builder code among them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../api/app.ts';
import { createKeyStore } from '../api/keys/store.ts';
import type { MarketSlugResolver } from '../api/markets.ts';
import { createTokenConditions, type TokenConditions } from '../api/queries/alpha/tokens.ts';
import { streamSettings } from '../api/stream/config.ts';
import { createStreamService, type StreamService } from '../api/stream/service.ts';
import type { Follower } from '../ingest/chain/follower.ts';
import { createAlphaChain } from '../ingest/venues/alpha/chain/ingestor.ts';
import { createPublisher } from '../ingest/venues/alpha/chain/publish.ts';
import { type AlphaChainSettings, alphaChainSettings } from '../ingest/venues/alpha/chain/settings.ts';
import { createTokenMap } from '../ingest/venues/alpha/chain/token-map.ts';
import type { SavedSim } from '../sim/saved.ts';
import { TEST_SECRET } from './api-helpers.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { connect, type TestClient, until } from './support/stream.ts';
import { SHARED_WORLD, sharedWorld } from './support/world-cache.ts';

type Row = Record<string, unknown>;
const keyOf = (d: Row) => `${d.tx_hash}:${d.log_index}`;
const FINALITY = 24;
const ACTIVITY_EVENTS: Record<string, string> = {
  SPLIT: 'split',
  MERGE: 'merge',
  REDEEM: 'redeem',
  CONVERT: 'conversion',
};

/** Every condition has a slug (derived from it): REST and the stream name the same market. */
const SLUGS: MarketSlugResolver = {
  conditionIds: async () => [],
  slugs: async (ids) => new Map(ids.map((c) => [c, `market-${c.slice(2, 12)}`])),
};

describe('stream trades and activity are the REST items plus event_type and status', () => {
  let deps: TestDeps;
  let sim: SavedSim;
  let settings: AlphaChainSettings;
  let app: App;
  let tokens: TokenConditions;
  let service: StreamService;
  let server: Server;
  let client: TestClient;
  let apiKey: string;
  let first: number;

  beforeAll(async () => {
    [deps, sim] = await Promise.all([
      // Answers read twice (pending, then confirmed) without a data version change between: no cache.
      createTestDeps('stream_rest_items', { env: { API_CACHE_BYTES: '0' } }),
      sharedWorld(SHARED_WORLD),
    ]);
    settings = alphaChainSettings(deps.config, {
      rpcUrls: [sim.rpcUrl],
      positionIds: 'simplified',
      finalityDepth: FINALITY,
      followMaxBlocksPerTick: 64,
    });
    const tip = Number(await sim.anvil.rpc<string>('eth_blockNumber'));
    first = Math.floor(tip / 2);
    // The history's reference pass, below the follower's first block.
    await createAlphaChain({ clickhouse: deps.clickhouse, log: deps.log }, settings).referencePass(
      0,
      first - 1,
    );
    // Both token maps load what it wrote: the API's when the app gets ready, the stream's now.
    app = await buildApp({ ...deps, secret: TEST_SECRET, marketSlugs: SLUGS });
    await app.ready();
    tokens = createTokenConditions({ clickhouse: deps.clickhouse, log: deps.log });
    await tokens.start();
    service = createStreamService({
      redis: deps.redis,
      redisUrl: deps.config.redisUrl,
      log: deps.log,
      settings: streamSettings(deps.config),
      markets: SLUGS,
      tokens,
      prefix: `${deps.prefix}:`,
    });
    server = createServer((_q, r) => r.writeHead(404).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    service.attach(server);
    await service.ready();
    apiKey = (await createKeyStore(deps.redis).create({ tier: 'pro', name: 'stream-rest-items' })).key;
    client = await connect(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey);
  }, 180_000);
  afterAll(async () => {
    client?.close();
    await service?.close();
    server?.close();
    await tokens?.stop();
    await app?.close();
    await sim?.stop();
    await deps?.close();
  });

  async function rest(path: string, field: string): Promise<Map<string, Row>> {
    const out = new Map<string, Row>();
    let key: string | null = null;
    do {
      const res = await app.inject({
        url: `${path}?after=0:0&limit=200${key ? `&pagination_key=${key}` : ''}`,
        headers: { 'x-api-key': apiKey },
      });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as Record<string, unknown> & { pagination: { pagination_key: string | null } };
      for (const r of body[field] as Row[]) out.set(keyOf(r), r);
      key = body.pagination.pagination_key;
    } while (key);
    return out;
  }

  async function count(sql: string): Promise<number> {
    const [row] = await deps.clickhouse.read<[string]>('test.count', sql);
    return Number(row?.[0] ?? 0);
  }

  async function subscribe(channel: string, filters: Row): Promise<string> {
    const r = await client.request({ action: 'subscribe', channel, filters });
    expect(r.type, JSON.stringify(r)).toBe('subscribed');
    return r.subscription_id as string;
  }

  /** An event's data without the stream's additions: the REST item it must equal. */
  function asRest(d: Row): Row {
    const { event_type: _e, version: _v, neg_risk_event_id: _n, ...item } = d;
    // activity's `version` is REST's own field: only trades' is the stream's addition.
    if (d.event_type !== 'order_filled') item.version = d.version;
    return item;
  }

  /** Each event equals the REST item of its row (read now), plus what the stream adds. */
  function expectRestItems(events: Row[], items: Map<string, Row>, what: string): void {
    expect(events.length, what).toBeGreaterThan(0);
    expect(events.map(asRest), what).toEqual(
      events.map((d) => items.get(keyOf(d)) ?? `no REST item ${keyOf(d)}`),
    );
    for (const d of events) {
      if (d.event_type === 'order_filled') {
        expect(d.version, keyOf(d)).toBe(d.exchange_version);
        expect([1, 2]).toContain(d.version);
      } else {
        expect(d.event_type, keyOf(d)).toBe(ACTIVITY_EVENTS[d.type as string]);
        if (d.type === 'CONVERT') expect(d.neg_risk_event_id, keyOf(d)).toBe(d.neg_risk_market_id);
        else expect(d, keyOf(d)).not.toHaveProperty('neg_risk_event_id');
      }
    }
  }

  it('pending and confirmed, as written and as re-read, fills of markets known late and fills with a builder code', async () => {
    const trades = await subscribe('trades', { users: ['*'], status: 'all' });
    const activity = await subscribe('activity', { users: ['*'] });
    // A follower whose token map holds the tokens of half the history's conditions only (it asks
    // ClickHouse for none): it writes the other half's fills without a market (condition_id '', outcome -1).
    const followerTokens = createTokenMap({ chainId: settings.chainId });
    const known = await deps.clickhouse.read<[string, string, number]>(
      'test.tokens',
      "SELECT token_id, condition_id, outcome_index FROM alpha_tokens WHERE condition_id < '0x8'",
    );
    expect(known.length).toBeGreaterThan(0);
    for (const [token, condition, outcome] of known)
      followerTokens.set(token, { condition_id: condition, outcome_index: Number(outcome) });
    const follower: Follower = createAlphaChain(
      { clickhouse: deps.clickhouse, log: deps.log, tokens: followerTokens },
      settings,
    ).follow({
      publisher: createPublisher(deps.redis, { prefix: `${deps.prefix}:`, chainId: settings.chainId }),
      fromBlock: first,
    });
    const catchUp = async () => {
      for (let i = 0; i < 5000; i++) if ((await follower.tick()).kind === 'idle') return;
      throw new Error('follower did not catch up');
    };
    const data = (sid: string) => client.events(sid).map((e) => e.data as Row);

    // 1. The history above `first`: rows within the finality depth pending, the others confirmed at once.
    await catchUp();
    const fills = await count('SELECT count() FROM alpha_fills');
    const pendingFills = await count("SELECT count() FROM alpha_fills WHERE status = 'pending'");
    const lateFills = await count("SELECT count() FROM alpha_fills WHERE condition_id = ''");
    const confirmedActivity = await count("SELECT count() FROM alpha_activity WHERE status = 'confirmed'");
    expect(pendingFills).toBeGreaterThan(0);
    expect(pendingFills).toBeLessThan(fills);
    expect(lateFills).toBeGreaterThan(0);
    await until(() => data(trades).length >= fills && data(activity).length >= confirmedActivity, 20_000);
    const asWritten = { trades: data(trades), activity: data(activity) };
    expect(asWritten.trades).toHaveLength(fills);
    expect(asWritten.activity).toHaveLength(confirmedActivity);
    const restBefore = {
      trades: await rest('/v2/alpha/trades', 'trades'),
      activity: await rest('/v2/alpha/activity', 'activity'),
    };
    expectRestItems(asWritten.trades, restBefore.trades, 'trades as written');
    expectRestItems(asWritten.activity, restBefore.activity, 'activity as written');

    // 2. Empty blocks past the finality depth: the pending rows are confirmed, re-read from ClickHouse.
    for (let i = 0; i <= FINALITY; i++) await sim.anvil.rpc('evm_mine', []);
    await catchUp();
    expect(await count("SELECT count() FROM alpha_fills WHERE status = 'pending'")).toBe(0);
    const allActivity = await count('SELECT count() FROM alpha_activity');
    await until(
      () => data(trades).length >= fills + pendingFills && data(activity).length >= allActivity,
      20_000,
    );
    const reread = {
      trades: data(trades).slice(fills),
      activity: data(activity).slice(confirmedActivity),
    };
    expect(reread.trades).toHaveLength(pendingFills);
    const restAfter = {
      trades: await rest('/v2/alpha/trades', 'trades'),
      activity: await rest('/v2/alpha/activity', 'activity'),
    };
    expectRestItems(reread.trades, restAfter.trades, 'trades re-read');
    if (reread.activity.length > 0) expectRestItems(reread.activity, restAfter.activity, 'activity re-read');

    // What the cases cover: pending and confirmed items of each form; fills whose condition came from
    // the token maps, in both; fills with a builder code; conversions.
    const late = new Set(
      (
        await deps.clickhouse.read<[string, number]>(
          'test.late',
          "SELECT tx_hash, log_index FROM alpha_fills WHERE condition_id = ''",
        )
      ).map(([tx, log]) => `${tx}:${log}`),
    );
    const isLate = (d: Row) => late.has(keyOf(d)) && d.condition_id !== null;
    const statuses = (rows: Row[]) => [...new Set(rows.map((d) => d.status))].sort();
    expect(statuses(asWritten.trades)).toEqual(['confirmed', 'pending']);
    expect(statuses(reread.trades)).toEqual(['confirmed']);
    expect(asWritten.trades.filter((d) => d.status === 'pending' && isLate(d)).length).toBeGreaterThan(0);
    expect(asWritten.trades.filter((d) => d.status === 'confirmed' && isLate(d)).length).toBeGreaterThan(0);
    expect(reread.trades.filter(isLate).length).toBeGreaterThan(0);
    // And fills that carry their own condition, in both forms.
    const own = (d: Row) => !late.has(keyOf(d));
    expect(asWritten.trades.filter((d) => d.status === 'pending' && own(d)).length).toBeGreaterThan(0);
    expect(asWritten.trades.filter((d) => d.status === 'confirmed' && own(d)).length).toBeGreaterThan(0);
    expect(reread.trades.filter(own).length).toBeGreaterThan(0);
    const withBuilder = (d: Row) =>
      d.exchange_version === 2 && /^0x(?!0+$)[0-9a-f]{64}$/.test(String(d.builder));
    expect(asWritten.trades.filter(withBuilder).length).toBeGreaterThan(0);
    expect(reread.trades.filter(withBuilder).length).toBeGreaterThan(0);
    expect(
      [...asWritten.activity, ...reread.activity].filter((d) => d.event_type === 'conversion').length,
    ).toBeGreaterThan(0);
  }, 240_000);
});
