/**
 * Upgrade to the progress store (migration 042, core/watermarks.ts): a data dir written by the code before
 * it is read by the new code with no re-backfill and no recompute, and the venue streams go on from where
 * they stood. The data dir: the world 'upgrade-1' ingested (chain in backfill ranges then the follower,
 * alpha's catalog, the four REST venues, market data, positions: the steps of
 * test/fixtures/pre-watermarks/README.md), its progress as the old writers left it (the fixture's
 * `alpha_checkpoints` and `venue_checkpoints` rows, recorded on the old code), the database at migration
 * 041. Then migration 042 and the new code: every backfill range is skipped, a follower starts at the old
 * follow checkpoint and has nothing to do, the market data and positions runs are idle with their old
 * versions, nothing is inserted into any table, and every mark equals the old checkpoint it came from.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMarketData } from '../analytics/market-data/run.ts';
import { runPositions } from '../analytics/positions/run.ts';
import type { ClickHouse } from '../core/clickhouse/index.ts';
import { migrate } from '../core/migrations.ts';
import { createWatermarks, type Watermark } from '../core/watermarks.ts';
import { createLogSource } from '../ingest/chain/source.ts';
import { createHttpClient } from '../ingest/http/client.ts';
import { runStream } from '../ingest/rest/runner.ts';
import { ingestSources } from '../ingest/sources.ts';
import { createAlphaChain } from '../ingest/venues/alpha/chain/ingestor.ts';
import { alphaChainSettings } from '../ingest/venues/alpha/chain/settings.ts';
import { alpha } from '../ingest/venues/alpha/index.ts';
import { createAlphaMetadataClient } from '../ingest/venues/alpha/metadata/client.ts';
import { createBetaClient } from '../ingest/venues/beta/client.ts';
import { beta } from '../ingest/venues/beta/index.ts';
import { createDeltaClient } from '../ingest/venues/delta/client.ts';
import { delta } from '../ingest/venues/delta/index.ts';
import { createEpsilonClient } from '../ingest/venues/epsilon/client.ts';
import { epsilon } from '../ingest/venues/epsilon/index.ts';
import { createGammaClient } from '../ingest/venues/gamma/client.ts';
import { gamma } from '../ingest/venues/gamma/index.ts';
import { productSettings } from '../jobs/products.ts';
import { VENUE_SOURCES } from '../jobs/venues.ts';
import { type Sim, startSim } from '../sim/index.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

const FIXTURE = path.join(import.meta.dirname, 'fixtures/pre-watermarks');
const read = <T>(file: string): T => JSON.parse(fs.readFileSync(path.join(FIXTURE, file), 'utf8')) as T;
const world = read<{
  seed: string;
  historyUntil: number;
  historyHead: number;
  ranges: { from: number; to: number }[];
  followFrom: number;
}>('world.json');
interface AlphaRow {
  chain_id: number;
  pipeline: string;
  block_number: string;
  block_hash: string;
  updated_at: string;
}
interface VenueRow {
  venue: string;
  stream: string;
  value: string;
  updated_at: string;
}
const alphaRows = read<AlphaRow[]>('alpha_checkpoints.json');
const venueRows = read<VenueRow[]>('venue_checkpoints.json');
const chTime = (iso: string) => iso.replace('T', ' ').replace('Z', '');

/** The newest row of each key (what the old readers' argMax(…, updated_at) saw). */
function newestBy<R extends { updated_at: string }>(rows: R[], key: (r: R) => string): R[] {
  const out = new Map<string, R>();
  for (const r of rows) {
    const seen = out.get(key(r));
    if (!seen || Date.parse(seen.updated_at) < Date.parse(r.updated_at)) out.set(key(r), r);
  }
  return [...out.values()];
}

/** The marks the old checkpoints stand for, as the new code names them. */
function expectedMarks(): Watermark[] {
  const marks: Watermark[] = [];
  for (const r of newestBy(alphaRows, (r) => r.pipeline)) {
    const at = Date.parse(r.updated_at);
    const block = { block: Number(r.block_number), hash: r.block_hash, at };
    const range = /^backfill:(\d+)-(\d+)$/.exec(r.pipeline);
    if (range) {
      marks.push({
        source: 'alpha-chain',
        stream: 'backfill',
        kind: 'range',
        from: Number(range[1]),
        to: Number(range[2]),
        ...block,
      });
    } else if (r.pipeline === 'follow') {
      marks.push({ source: 'alpha-chain', stream: 'follow', kind: 'head', ...block });
    } else {
      const source = r.pipeline === 'positions' ? 'alpha-positions' : 'alpha-market-data';
      marks.push({ source, stream: 'run', kind: 'head', ...block });
    }
  }
  for (const r of newestBy(venueRows, (r) => `${r.venue}/${r.stream}`)) {
    marks.push({
      source: r.venue === 'alpha' ? 'alpha-catalog' : r.venue,
      stream: r.stream,
      kind: 'head',
      time: Number(r.value) * (r.venue === 'beta' && r.stream === 'markets' ? 1000 : 1),
      at: Date.parse(r.updated_at),
    });
  }
  const order = (m: Watermark) =>
    `${m.source}|${m.stream}|${m.kind}|${String(m.from ?? 0).padStart(12, '0')}`;
  return marks.sort((a, b) => (order(a) < order(b) ? -1 : 1));
}

describe('upgrade of a data dir written before the progress store', () => {
  let deps: TestDeps;
  let sim: Sim;
  const chainSettings = () =>
    alphaChainSettings(deps.config, { rpcUrls: [sim.rpcUrl], positionIds: 'simplified', finalityDepth: 0 });
  const analyticsSettings = () => {
    const c = chainSettings();
    return { chainId: c.chainId, usdcE: c.roles.usdcE.toLowerCase(), finalityDepth: c.finalityDepth };
  };
  const positionsSettings = () => ({
    ...productSettings(deps.config),
    chainId: chainSettings().chainId,
    finalityDepth: 0,
  });
  const clients = () => {
    const urls = sim.replicaUrls!;
    const http = (url: string) =>
      createHttpClient({ baseUrl: url, timeoutMs: 10_000, baseDelayMs: 20, maxDelayMs: 100 });
    return {
      alpha: createAlphaMetadataClient({ http: http(urls.alpha_metadata) }),
      beta: createBetaClient({ http: http(urls.beta) }),
      gamma: createGammaClient({ http: http(urls.gamma) }),
      delta: createDeltaClient({ http: http(urls.delta) }),
      epsilon: createEpsilonClient({ http: http(urls.epsilon) }),
    };
  };

  /** A client that counts every write of rows (inserts, INSERT … SELECT) by table. */
  function counting(): { clickhouse: ClickHouse; writes: string[] } {
    const real = deps.clickhouse;
    const writes: string[] = [];
    const clickhouse = Object.create(real, {
      insert: {
        value: (label: string, table: string, ...rest: unknown[]) => {
          writes.push(table);
          return (real.insert as (...a: unknown[]) => Promise<void>).call(real, label, table, ...rest);
        },
      },
      insertRaw: {
        value: (label: string, table: string, ...rest: unknown[]) => {
          writes.push(table);
          return (real.insertRaw as (...a: unknown[]) => Promise<void>).call(real, label, table, ...rest);
        },
      },
      command: {
        value: (label: string, sql: string, ...rest: unknown[]) => {
          const insert = /^\s*INSERT\s+INTO\s+(\S+)/i.exec(sql);
          if (insert) writes.push(insert[1]!);
          return (real.command as (...a: unknown[]) => Promise<void>).call(real, label, sql, ...rest);
        },
      },
    }) as ClickHouse;
    return { clickhouse, writes };
  }

  beforeAll(async () => {
    [deps, sim] = await Promise.all([
      createTestDeps('upgrade_watermarks'),
      startSim({ seed: world.seed, size: 'small', replicas: true, historyUntil: world.historyUntil }),
    ]);
    expect(sim.historyHead).toBe(world.historyHead);
    // The data of the old data dir: the fixture's steps (README.md), run by this code.
    const now = () => sim.state.now();
    const ch = deps.clickhouse;
    const chain = createAlphaChain({ clickhouse: ch, log: deps.log }, chainSettings());
    await chain.referencePass(0, world.followFrom - 1);
    for (const r of world.ranges) await chain.ingestRange(r, { head: world.historyHead });
    const follower = chain.follow();
    for (let i = 0; follower.tip()?.number !== world.historyHead || i === 0; i++) {
      if (i > 100) throw new Error('the follower did not reach the head');
      await follower.tick();
    }
    const c = clients();
    const base = { config: deps.config, log: deps.log, clickhouse: ch, now };
    await runStream(alpha, 'catalog', { ...base, client: c.alpha }, { mode: 'full' });
    for (const mode of ['reconcile', 'poll'] as const) {
      await runStream(beta, 'markets', { ...base, client: c.beta }, { mode });
      await runStream(gamma, 'markets', { ...base, client: c.gamma }, { mode });
      await runStream(delta, 'markets', { ...base, client: c.delta }, { mode });
      await runStream(epsilon, 'markets', { ...base, client: c.epsilon }, { mode });
    }
    await runStream(beta, 'trades', { ...base, client: c.beta }, { mode: 'poll' });
    await runMarketData({ clickhouse: ch, log: deps.log }, analyticsSettings());
    await runPositions({ clickhouse: ch, log: deps.log }, positionsSettings());

    // Its progress as the old code left it, in a database at migration 041.
    await ch.command('test.drop', 'DROP TABLE watermarks');
    await ch.command('test.unrecord', 'DELETE FROM schema_migrations WHERE version = 42');
    await ch.insert(
      'test.old',
      'alpha_checkpoints',
      alphaRows.map((r) => ({ ...r, updated_at: chTime(r.updated_at) })),
    );
    await ch.insert(
      'test.old',
      'venue_checkpoints',
      venueRows.map((r) => ({ ...r, updated_at: chTime(r.updated_at) })),
    );
    const upgraded = await migrate({ clickhouse: ch, log: deps.log });
    expect(upgraded.applied).toEqual(['042_watermarks']);
  }, 300_000);
  afterAll(async () => {
    await sim?.stop();
    await deps?.close();
  });

  it('the world is the recorded one: the old checkpoints hold its block hashes', async () => {
    const rpc = createLogSource({ urls: [sim.rpcUrl], log: deps.log });
    const numbers = [...new Set(alphaRows.map((r) => Number(r.block_number)))];
    const headers = await rpc.getHeaders(numbers);
    for (const r of alphaRows)
      expect(headers.get(Number(r.block_number))?.hash, r.pipeline).toBe(r.block_hash);
  });

  it('every old checkpoint is a mark, with its block, hash, time and updated_at', async () => {
    const store = createWatermarks(deps.clickhouse);
    const sources = ['alpha-catalog', 'alpha-chain', 'alpha-market-data', 'alpha-positions', 'beta', 'delta'];
    const marks = (await Promise.all([...sources, 'epsilon', 'gamma'].map((s) => store.list(s)))).flat();
    expect(marks).toEqual(expectedMarks());
  });

  it('the new code re-does nothing: no range again, the follower idle, no recompute, no insert', async () => {
    const store = createWatermarks(deps.clickhouse);
    const before = await store.list('alpha-chain');
    const products = await Promise.all([
      store.read('alpha-market-data', 'run'),
      store.read('alpha-positions', 'run'),
    ]);
    const { clickhouse, writes } = counting();

    const chain = createAlphaChain({ clickhouse, log: deps.log }, chainSettings());
    for (const r of world.ranges) {
      expect((await chain.ingestRange(r, { head: world.historyHead })).skipped, `${r.from}-${r.to}`).toBe(
        true,
      );
    }
    const follower = chain.follow();
    expect(await follower.tick()).toEqual({ kind: 'idle', head: world.historyHead });
    expect(follower.tip()?.number).toBe(world.historyHead);

    const md = await runMarketData({ clickhouse, log: deps.log }, analyticsSettings());
    expect(md).toMatchObject({ mode: 'idle', steps: 0, version: products[0]!.at });
    const pos = await runPositions({ clickhouse, log: deps.log }, positionsSettings());
    expect(pos).toMatchObject({ mode: 'idle', batches: 0 });

    expect(writes).toEqual([]);
    expect(await store.list('alpha-chain')).toEqual(before);
    expect(await store.read('alpha-market-data', 'run')).toEqual(products[0]);
    expect(await store.read('alpha-positions', 'run')).toEqual(products[1]);
    // The ops sources read the old progress: the chain at the follow checkpoint, each REST source's last poll.
    const at = (venue: string) =>
      Math.max(...venueRows.filter((r) => r.venue === venue).map((r) => Date.parse(r.updated_at)));
    const sources = ingestSources(deps, VENUE_SOURCES, {
      chainSource: createLogSource({ urls: [sim.rpcUrl], log: deps.log }),
    });
    const points = Object.fromEntries(
      await Promise.all(sources.map(async (s) => [s.source, await s.checkpoint()])),
    );
    const follow = alphaRows.find((r) => r.pipeline === 'follow')!;
    expect(points['alpha-chain']).toMatchObject({
      block: world.historyHead,
      movedAt: Date.parse(follow.updated_at),
    });
    expect(points['alpha-catalog']).toEqual({ block: null, time: at('alpha'), movedAt: at('alpha') });
    for (const v of ['beta', 'gamma', 'delta', 'epsilon']) {
      expect(points[v], v).toEqual({ block: null, time: at(v), movedAt: at(v) });
    }
  });

  it('the venue streams go on from their old positions', async () => {
    for (const r of newestBy(venueRows, (r) => `${r.venue}/${r.stream}`)) {
      const source = r.venue === 'alpha' ? 'alpha-catalog' : r.venue;
      const ms = Number(r.value) * (r.venue === 'beta' && r.stream === 'markets' ? 1000 : 1);
      expect(
        (await createWatermarks(deps.clickhouse).read(source, r.stream))?.time ?? null,
        `${source}/${r.stream}`,
      ).toBe(ms);
    }
    // beta's poll asks for the markets changed since its old checkpoint (Unix seconds, as before).
    const old = venueRows.find((r) => r.venue === 'beta' && r.stream === 'markets')!;
    const poll = await runStream(
      beta,
      'markets',
      {
        config: deps.config,
        log: deps.log,
        clickhouse: deps.clickhouse,
        now: () => sim.state.now(),
        client: clients().beta,
      },
      { mode: 'poll' },
    );
    expect(poll.since).toBe(Number(old.value));
  });
});
