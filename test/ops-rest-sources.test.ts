/**
 * The REST sources of the operations snapshot against the venue replicas: a good poll of beta and of
 * the alpha catalog makes their source `ok` with the time since that poll as lag (an idle poll, which
 * writes no rows, counts as one too); their ingest counters (events_total by source and kind,
 * rows_written_total by table) equal what ClickHouse holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../core/metrics.ts';
import { createHttpClient } from '../ingest/http/client.ts';
import { runStream } from '../ingest/rest/runner.ts';
import { ingestSources } from '../ingest/sources.ts';
import { alpha } from '../ingest/venues/alpha/index.ts';
import { createAlphaMetadataClient } from '../ingest/venues/alpha/metadata/client.ts';
import { createBetaClient } from '../ingest/venues/beta/client.ts';
import { beta } from '../ingest/venues/beta/index.ts';
import { createOpsSampler } from '../jobs/ops-sampler.ts';
import { createBullConnection, createQueues } from '../jobs/queues.ts';
import { VENUE_SOURCES } from '../jobs/venues.ts';
import { type Replicas, startReplicas } from '../sim/venues/index.ts';
import { type Catalog, generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState, type WorldState } from '../sim/world/state.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

const START = Date.UTC(2026, 3, 1);

async function counter(name: string, labels: Record<string, string>): Promise<number> {
  const metric = registry.getSingleMetric(name);
  const values = metric ? (await metric.get()).values : [];
  const v = values.find((x) => Object.entries(labels).every(([k, l]) => x.labels[k] === l));
  return v?.value ?? 0;
}

describe('REST sources in the operations snapshot', () => {
  let catalog: Catalog;
  let state: WorldState;
  let replicas: Replicas;
  let deps: TestDeps;

  beforeAll(async () => {
    catalog = generateCatalog({ seed: 'ops-rest', size: 'small', startTime: START });
    state = createWorldState(catalog, { alpha: 'self' });
    replicas = await startReplicas({ catalog, state });
    deps = await createTestDeps('ops_rest_sources');
  }, 120_000);
  afterAll(async () => {
    await replicas?.close();
    await deps?.close();
  });

  it('a good poll makes beta and alpha-catalog ok, and their counters equal ClickHouse', async () => {
    const tables = {
      beta: ['beta_markets', 'beta_events', 'beta_series', 'beta_trades'],
      'alpha-catalog': ['alpha_events', 'alpha_markets', 'alpha_series', 'alpha_tags', 'alpha_tag_relations'],
    };
    const before = new Map<string, number>();
    for (const [source, list] of Object.entries(tables)) {
      for (const t of list) {
        const kind = t.slice(t.indexOf('_') + 1);
        before.set(`e:${t}`, await counter('pmdata_ingest_events_total', { source, kind }));
        before.set(`r:${t}`, await counter('pmdata_rows_written_total', { table: t }));
      }
    }
    const connection = createBullConnection(deps.config.redisUrl);
    const queues = createQueues({ connection, prefix: `${deps.prefix}:bull` });
    const sampler = createOpsSampler({
      deps,
      queues,
      sources: ingestSources(deps, VENUE_SOURCES).filter(
        (s) => s.source === 'beta' || s.source === 'alpha-catalog',
      ),
    });
    try {
      const never = await sampler.sample();
      expect(never.sources.map((s) => [s.source, s.state])).toEqual([
        ['alpha-catalog', 'stalled'],
        ['beta', 'stalled'],
      ]);

      state.tick(START + 3_600_000);
      const betaClient = createBetaClient({
        http: createHttpClient({
          baseUrl: replicas.urls.beta,
          timeoutMs: 5_000,
          baseDelayMs: 20,
          maxDelayMs: 100,
        }),
      });
      const metadata = createAlphaMetadataClient({
        http: createHttpClient({
          baseUrl: replicas.urls.alpha_metadata,
          timeoutMs: 5_000,
          baseDelayMs: 20,
          maxDelayMs: 100,
        }),
      });
      await runStream(beta, 'markets', { ...deps, client: betaClient }, { mode: 'poll' });
      await runStream(beta, 'trades', { ...deps, client: betaClient }, { mode: 'poll' });
      await runStream(alpha, 'catalog', { ...deps, client: metadata }, { mode: 'full' });
      const polled = Date.now();
      const after = await sampler.sample();
      for (const s of after.sources) {
        expect(s, s.source).toMatchObject({ kind: 'rest', state: 'ok', head: null, checkpoint: null });
        expect(s.lag_seconds!).toBeLessThan(5);
      }

      // An idle poll (nothing changed upstream) is a good poll too: the lag restarts from it.
      await new Promise((r) => setTimeout(r, 1_100));
      const idle = await runStream(beta, 'markets', { ...deps, client: betaClient }, { mode: 'poll' });
      expect(idle.written).toBe(0);
      const again = (await sampler.sample()).sources.find((s) => s.source === 'beta')!;
      expect(Date.parse(again.checkpoint_time!)).toBeGreaterThan(polled);

      for (const [source, list] of Object.entries(tables)) {
        for (const t of list) {
          const held = Number(
            (await deps.clickhouse.query<{ n: string }>('test.count', `SELECT count() AS n FROM ${t}`))[0]!.n,
          );
          const kind = t.slice(t.indexOf('_') + 1);
          expect(
            (await counter('pmdata_ingest_events_total', { source, kind })) - before.get(`e:${t}`)!,
            t,
          ).toBe(held);
          expect((await counter('pmdata_rows_written_total', { table: t })) - before.get(`r:${t}`)!, t).toBe(
            held,
          );
        }
      }
      expect(
        Number(
          (
            await deps.clickhouse.query<{ n: string }>('test.count', 'SELECT count() AS n FROM beta_markets')
          )[0]!.n,
        ),
      ).toBeGreaterThan(10);
    } finally {
      await sampler.stop();
      await queues.close();
      connection.disconnect();
    }
  }, 120_000);
});
