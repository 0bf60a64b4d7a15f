/**
 * A status world for the status page and `pmdata status` tests: real services (a private anvil chain,
 * chDB, Redis, BullMQ) holding known progress — a follow checkpoint below the chain's head, good polls of
 * some REST venues, quarantined records, waiting jobs, events of the last minutes, a role's heartbeat —
 * sampled by the real sampler into the snapshot, and the status routes on a Fastify instance, bare or in
 * the admin scope (api/plugins/admin.ts) behind the admin key.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { registerAdmin } from '../../api/plugins/admin.ts';
import { statusRoutes } from '../../api/routes/admin/status.ts';
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import { type Heartbeat, startHeartbeat } from '../../core/ops/heartbeat.ts';
import { countEvents, flushEventMinutes } from '../../core/ops/ingest-counts.ts';
import type { OpsSnapshot } from '../../core/ops/snapshot.ts';
import { createWatermarks } from '../../core/watermarks.ts';
import { createLogSource } from '../../ingest/chain/source.ts';
import { quarantineRecords, writeCheckpoint } from '../../ingest/rest/store.ts';
import { ingestSources } from '../../ingest/sources.ts';
import { createOpsSampler } from '../../jobs/ops-sampler.ts';
import { createBullConnection, createQueues, type Queues } from '../../jobs/queues.ts';
import type { Anvil } from './chain.ts';
import type { TestDeps } from './deps.ts';

export interface StatusWorld {
  app: FastifyInstance;
  snapshot: OpsSnapshot;
  /** When the world's events were counted (Unix ms): 600 beta events the minute before, 120 beta and 3,000 alpha-chain in its minute. */
  eventsAt: number;
  /** Samples again (after a change) and returns the new snapshot. */
  resample(): Promise<OpsSnapshot>;
  close(): Promise<void>;
}

export async function followCheckpoint(ch: ClickHouse, block: number, hash: string, at = Date.now()) {
  await createWatermarks(ch).commit({
    source: 'alpha-chain',
    stream: 'follow',
    kind: 'head',
    block,
    hash,
    at,
  });
}

/**
 * Builds the world. `sources` keeps only the named ingest sources (default all); REST venues in
 * `polled` get a good poll now; the chain's follow checkpoint is `behind` blocks under the head.
 */
export async function statusWorld(
  deps: TestDeps,
  anvil: Anvil,
  o: {
    sources?: string[];
    polled?: string[];
    behind?: number;
    quarantine?: boolean;
    waiting?: number;
    /** Mount the routes in the admin scope (api/plugins/admin.ts: the key of deps.config required). */
    admin?: boolean;
  },
): Promise<StatusWorld> {
  await anvil.rpc('anvil_mine', ['0x14']);
  const head = Number(await anvil.rpc<string>('eth_blockNumber'));
  const block = head - (o.behind ?? 0);
  const header = await anvil.rpc<{ hash: string }>('eth_getBlockByNumber', [
    `0x${block.toString(16)}`,
    false,
  ]);
  await followCheckpoint(deps.clickhouse, block, header.hash);
  for (const venue of o.polled ?? []) await writeCheckpoint(deps.clickhouse, venue, 'markets', 1);
  if (o.quarantine) {
    const bad = (kind: string, id: string) => ({
      kind,
      recordId: id,
      reason: '/price: Expected number',
      payload: '{}',
    });
    await quarantineRecords(deps.clickhouse, 'beta', [
      bad('market', 'B-1'),
      bad('market', 'B-2'),
      bad('event', 'E-1'),
    ]);
    await quarantineRecords(deps.clickhouse, 'gamma', [bad('market', 'g-1')]);
  }
  const connection = createBullConnection(deps.config.redisUrl);
  const queues: Queues = createQueues({ connection, prefix: `${deps.prefix}:bull` });
  for (let i = 0; i < (o.waiting ?? 0); i++) await queues.get('venues').add('test.waiting', { i });
  // Events in this minute and the one before.
  const eventsAt = Date.now();
  countEvents('beta', 'markets', 600, eventsAt - 60_000);
  countEvents('beta', 'markets', 120, eventsAt);
  countEvents('alpha-chain', 'fills', 3000, eventsAt);
  await flushEventMinutes(deps.redis);
  const heartbeat: Heartbeat = startHeartbeat({ redis: deps.redis, log: deps.log, role: 'worker' });
  await heartbeat.beat();

  const all = ingestSources(deps, { chainSource: createLogSource({ urls: [anvil.url], log: deps.log }) });
  const sources = o.sources ? all.filter((s) => o.sources!.includes(s.source)) : all;
  const sampler = createOpsSampler({ deps, queues, sources });
  const snapshot = await sampler.sample();
  const app = Fastify();
  if (o.admin) await registerAdmin(app, { deps, service: 'api', routes: [statusRoutes] });
  else await statusRoutes(app, { deps, service: 'api' });
  await app.ready();
  return {
    app,
    snapshot,
    eventsAt,
    resample: () => sampler.sample(),
    async close() {
      await app.close();
      await heartbeat.stop();
      await queues.close();
      connection.disconnect();
    },
  };
}
