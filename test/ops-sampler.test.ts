/**
 * The operations sampler on the simulated chain (backfill, then live follow): the snapshot's alpha-chain
 * lag is the sim's head − the stored checkpoint; with the follower stopped the lag grows and the source
 * turns stalled (OPS_STALL_S = 2 here), and ok again once it caught up; a malformed log raises the
 * quarantine count; an analytics run shows as a fresh product; and in this fresh process the ingest
 * counters (events_total, rows_written_total) equal what ClickHouse holds.
 */
import { type Hex, pad } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMarketData } from '../analytics/market-data/run.ts';
import { registry } from '../core/metrics.ts';
import { flushEventMinutes, readEventMinutes } from '../core/ops/ingest-counts.ts';
import { readSnapshot } from '../core/ops/snapshot.ts';
import { emitInBlock, installRawEmitter } from '../ingest/chain/raw-emitter.ts';
import { createLogSource } from '../ingest/chain/source.ts';
import { ingestSources } from '../ingest/sources.ts';
import { type AlphaChainIngestor, createAlphaChain } from '../ingest/venues/alpha/chain/ingestor.ts';
import { alphaChainSettings } from '../ingest/venues/alpha/chain/settings.ts';
import { ALPHA_CHAIN_WRITES } from '../ingest/venues/alpha/chain/tables.ts';
import { createOpsSampler, type OpsSampler } from '../jobs/ops-sampler.ts';
import { productSettings } from '../jobs/products.ts';
import { createBullConnection, createQueues, type Queues } from '../jobs/queues.ts';
import { VENUE_SOURCES } from '../jobs/venues.ts';
import { type Sim, startSim } from '../sim/index.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

/** A counter's values by label set (`a=x,b=y`). */
async function counterValues(name: string): Promise<Map<string, number>> {
  const metric = registry.getSingleMetric(name);
  const out = new Map<string, number>();
  if (!metric) return out;
  for (const v of (await metric.get()).values) {
    const key = Object.entries(v.labels)
      .map(([k, x]) => `${k}=${x}`)
      .sort()
      .join(',');
    out.set(key, v.value);
  }
  return out;
}

describe('operations sampler on the sim chain', () => {
  let deps: TestDeps;
  let sim: Sim;
  let queues: Queues;
  let connection: ReturnType<typeof createBullConnection>;
  let ingestor: AlphaChainIngestor;
  let sampler: OpsSampler;
  let before: { events: Map<string, number>; rows: Map<string, number> };

  beforeAll(async () => {
    before = {
      events: await counterValues('pmdata_ingest_events_total'),
      rows: await counterValues('pmdata_rows_written_total'),
    };
    [deps, sim] = await Promise.all([
      createTestDeps('ops_sampler', { env: { OPS_STALL_S: '2', OPS_LAG_WARN_S: '86400' } }),
      startSim({ seed: 'ops-sampler', size: 'small', replicas: false, historyFills: 120 }),
    ]);
    connection = createBullConnection(deps.config.redisUrl);
    queues = createQueues({ connection, prefix: `${deps.prefix}:bull` });
    const settings = alphaChainSettings(deps.config, {
      rpcUrls: [sim.rpcUrl],
      positionIds: 'simplified',
      finalityDepth: 5,
      followMaxBlocksPerTick: 4,
    });
    ingestor = createAlphaChain({ clickhouse: deps.clickhouse, log: deps.log }, settings);
    const sources = ingestSources(deps, VENUE_SOURCES, {
      chainSource: createLogSource({ urls: [sim.rpcUrl], log: deps.log }),
    });
    sampler = createOpsSampler({ deps, queues, sources });
  }, 180_000);

  afterAll(async () => {
    await sampler?.stop();
    await queues?.close();
    connection?.disconnect();
    await sim?.stop();
    await deps?.close();
  });

  const simHead = async () => Number(await sim.anvil.rpc<string>('eth_blockNumber'));
  const alpha = async () => {
    const s = await sampler.sample();
    const src = s.sources.find((x) => x.source === 'alpha-chain');
    expect(src, JSON.stringify(s.sources)).toBeDefined();
    return src!;
  };

  it('reports lag_blocks = sim head − checkpoint; a stopped follower lags, turns stalled, and recovers', async () => {
    const head = await simHead();
    await ingestor.referencePass(0, head);
    await ingestor.ingestRange({ from: 0, to: head }, { head });
    const follower = ingestor.follow({});
    const catchUp = async () => {
      for (let i = 0; i < 5000; i++) if ((await follower.tick()).kind === 'idle') return;
      throw new Error('follower did not catch up');
    };
    await sim.control.mineActive(6);
    await catchUp();

    const caught = await alpha();
    expect(caught).toMatchObject({
      head: await simHead(),
      checkpoint: await simHead(),
      lag_blocks: 0,
      state: 'ok',
    });
    expect(caught.lag_seconds).toBe(0);
    // The snapshot in Redis is what was returned.
    const written = await sampler.sample();
    expect(await readSnapshot(deps.redis)).toEqual(written);

    // The follower stops: the sim goes on.
    const checkpoint = caught.checkpoint!;
    await sim.control.mineActive(3);
    const lag1 = await alpha();
    expect(lag1.head).toBe(await simHead());
    expect(lag1.checkpoint).toBe(checkpoint);
    expect(lag1.lag_blocks).toBe((await simHead()) - checkpoint);
    expect(lag1.lag_blocks).toBe(3);
    expect(lag1.lag_seconds).toBeGreaterThan(0);
    await sim.control.mineActive(4);
    const lag2 = await alpha();
    expect(lag2.lag_blocks).toBe(7);
    expect(lag2.lag_seconds!).toBeGreaterThan(lag1.lag_seconds!);

    // No checkpoint progress for OPS_STALL_S (2 s): stalled.
    const movedAt = Date.parse(lag2.progressed_at!);
    await new Promise((r) => setTimeout(r, Math.max(0, movedAt + 2_300 - Date.now())));
    expect((await alpha()).state).toBe('stalled');

    // It resumes and catches up: ok again, no lag.
    await catchUp();
    const back = await alpha();
    expect(back).toMatchObject({ lag_blocks: 0, state: 'ok', checkpoint: await simHead() });
  }, 240_000);

  it('shows an analytics run as a fresh product, and products never computed as such', async () => {
    const t0 = Date.now();
    await runMarketData({ clickhouse: deps.clickhouse, log: deps.log }, productSettings(deps.config));
    const s = await sampler.sample();
    const md = s.products.find((p) => p.product === 'alpha-market-data')!;
    expect(Date.parse(md.computed_at!)).toBeGreaterThanOrEqual(t0 - 1000);
    expect(md.freshness_seconds!).toBeLessThan(60);
    expect(s.products.find((p) => p.product === 'alpha-profiles')).toEqual({
      product: 'alpha-profiles',
      computed_at: null,
      freshness_seconds: null,
    });
    expect(s.queues.map((q) => q.queue)).toEqual(['maintenance', 'chain', 'venues', 'analytics']);
  }, 120_000);

  it('in this fresh process, events_total and rows_written_total equal what ClickHouse holds', async () => {
    const events = await counterValues('pmdata_ingest_events_total');
    const rows = await counterValues('pmdata_rows_written_total');
    const delta = (m: Map<string, number>, b: Map<string, number>, key: string) =>
      (m.get(key) ?? 0) - (b.get(key) ?? 0);
    const count = async (table: string) =>
      Number(
        (await deps.clickhouse.query<{ n: string }>('test.count', `SELECT count() AS n FROM ${table}`))[0]!.n,
      );
    let fills = 0;
    for (const table of Object.keys(ALPHA_CHAIN_WRITES.events)) {
      const held = await count(table);
      if (table === 'alpha_fills') fills = held;
      expect(delta(rows, before.rows, `table=${table}`), table).toBe(held);
      expect(
        delta(events, before.events, `kind=${table.replace('alpha_', '')},source=alpha-chain`),
        table,
      ).toBe(held);
    }
    expect(fills).toBeGreaterThan(100);
    expect(delta(rows, before.rows, 'table=alpha_blocks')).toBe(await count('alpha_blocks'));

    // The same events, per minute, once flushed to Redis (the heartbeat does it in a role).
    let total = 0;
    for (const table of Object.keys(ALPHA_CHAIN_WRITES.events)) total += await count(table);
    await flushEventMinutes(deps.redis);
    const minutes = await readEventMinutes(deps.redis);
    expect(minutes).toHaveLength(60);
    expect(minutes.reduce((n, m) => n + (m.counts['alpha-chain'] ?? 0), 0)).toBe(total);
  });

  it('a malformed log raises quarantine_records', async () => {
    const countOf = async () =>
      (await sampler.sample()).quarantine
        .filter((q) => q.source === 'alpha-chain')
        .reduce((n, q) => n + q.records, 0);
    const start = await countOf();
    // A log with an unknown topic from the conditional tokens contract (its code swapped for an
    // emitter for one block, then put back).
    const ctf = ingestor.settings.roles.conditionalTokens;
    const code = await sim.anvil.rpc<Hex>('eth_getCode', [ctf, 'latest']);
    await installRawEmitter(sim.anvil.rpc, [ctf]);
    await emitInBlock(sim.anvil.rpc, [
      { address: ctf, logs: [{ topics: [pad('0xbad', { size: 32 })], data: '0x' }] },
    ]);
    await sim.anvil.rpc('anvil_setCode', [ctf, code]);
    const follower = ingestor.follow({});
    for (let i = 0; i < 100; i++) if ((await follower.tick()).kind === 'idle') break;
    expect(await countOf()).toBe(start + 1);
  }, 120_000);
});
