import os from 'node:os';
import { parseArgs } from 'node:util';
import { buildAlphaCatalogLists } from '../analytics/catalog/build.ts';
import { buildApp } from '../api/app.ts';
import { createKeyStore } from '../api/keys/store.ts';
import { createDataVersions } from '../core/data-version.ts';
import { createHttpClient } from '../ingest/http/client.ts';
import { runStream } from '../ingest/rest/runner.ts';
import { syncAlphaBooks } from '../ingest/venues/alpha/book/sync.ts';
import { alpha } from '../ingest/venues/alpha/index.ts';
import { createAlphaMetadataClient } from '../ingest/venues/alpha/metadata/client.ts';
import { writeSyntheticCatalog } from '../sim/catalog-tables.ts';
import { startSim } from '../sim/index.ts';
import type { CatalogSize } from '../sim/world/catalog.ts';
import {
  type ApiKind,
  type ApiTiming,
  routeMissing,
  statementCells,
  timeKindProfiled,
  timingCells,
} from './analytics/api.ts';
import { createProfiler, formatProfile, settleMerges } from './analytics/profile.ts';
import { openBenchWorld } from './support/world.ts';

/** The tables the synthetic catalog filled, emptied before the sim world's sync. */
const SYNC_CLEARED = [
  'alpha_events',
  'alpha_markets',
  'alpha_series',
  'alpha_tags',
  'alpha_tag_relations',
  'alpha_book_quotes',
  'alpha_tokens',
  'alpha_lifecycle',
  'alpha_market_totals',
  'alpha_market_rolling',
];
const n = (v: number | string) => Number(v).toLocaleString('en-US');
const TARGETS: Record<string, number> = {
  'events/keyset default': 50,
  'events/keyset tag + volume_7d': 50,
  'events/keyset include_markets': 100,
  'markets/keyset 3 filters + metric sort': 50,
  search: 100,
};

export async function run(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      events: { type: 'string', default: '20000' },
      requests: { type: 'string', default: '200' },
      'sync-size': { type: 'string', default: 'large' },
    },
  });
  const events = Number(values.events);
  const requests = Number(values.requests);
  const syncSize = values['sync-size'] as CatalogSize | 'none';
  if (!Number.isInteger(events) || events < 10) throw new Error('--events must be an integer ≥ 10');
  if (!Number.isInteger(requests) || requests < 1) throw new Error('--requests must be a positive integer');
  if (!['small', 'medium', 'large', 'none'].includes(syncSize))
    throw new Error('--sync-size must be small, medium, large or none');
  const record = (text: string) => process.stdout.write(`${text}\n`);
  const loadAtStart = os.loadavg();

  const world = await openBenchWorld('catalog');
  const { log, config, clickhouse, redis } = world;
  const versions = createDataVersions({ redis });
  try {
    record(
      `catalog benchmark: ${n(events)} synthetic events; embedded chDB, ${os.cpus().length} cores, ` +
        `load average at start ${loadAtStart.map((l) => l.toFixed(2)).join(' ')}`,
    );
    const now = Date.UTC(2026, 10, 1);
    const g0 = performance.now();
    // Only what the timing needs is kept: the catalog itself (100k markets) would stay in the heap and
    // lengthen the garbage collections the API requests run into.
    const { busiestTag, markets } = await writeSyntheticCatalog(clickhouse, {
      seed: 'bench',
      events,
      marketsPerEvent: [1, 9],
      now,
    }).then((cat) => {
      record(
        `data: ${n(cat.events.length)} events, ${n(cat.markets.length)} markets, ${cat.tags.length} tags, ` +
          `${cat.series.length} series (written in ${((performance.now() - g0) / 1000).toFixed(1)} s)`,
      );
      const busiestTag = cat.tags
        .filter((t) => t.parentId !== null)
        .map((t) => ({ t, c: cat.events.filter((e) => e.tagIds.includes(t.id)).length }))
        .sort((a, b) => b.c - a.c)[0]!.t;
      return { busiestTag, markets: cat.markets.length };
    });

    // (a) The lists build.
    const profiler = createProfiler(clickhouse);
    const deps = { clickhouse: profiler.clickhouse, log, versions };
    const buildS: number[] = [];
    let buildProfile: ReturnType<typeof profiler.stop> = [];
    for (let i = 0; i < 2; i++) {
      profiler.start();
      const b0 = performance.now();
      const summary = await buildAlphaCatalogLists(deps, { now });
      buildS.push((performance.now() - b0) / 1000);
      const p = profiler.stop();
      if (i === 0) {
        buildProfile = p;
        record(`(a) lists build: ${JSON.stringify(summary)}`);
      }
    }
    record(`    ${buildS.map((s) => `${s.toFixed(2)} s`).join(', ')}`);

    // (b) API, once the build's parts are merged.
    const settled = await settleMerges(clickhouse, 180);
    record(
      settled.running === 0
        ? `    background merges settled in ${settled.s.toFixed(1)} s before timing the API`
        : `    ${settled.running} background merges still running after ${settled.s.toFixed(0)} s: timing beside them`,
    );
    const kinds: ApiKind[] = [
      { name: 'events/keyset default', url: '/v2/alpha/events/keyset' },
      {
        name: 'events/keyset tag + volume_7d',
        url: `/v2/alpha/events/keyset?tag=${busiestTag.slug}&sort=volume_7d`,
      },
      { name: 'events/keyset include_markets', url: '/v2/alpha/events/keyset?include_markets=true' },
      {
        name: 'markets/keyset 3 filters + metric sort',
        url: `/v2/alpha/markets/keyset?status=open&min_volume=1000&tags=${busiestTag.slug}&sort=volume_7d`,
      },
      { name: 'search', url: '/v2/alpha/search?q=bitcoin%20reach' },
    ];
    const app = await buildApp({
      config,
      log,
      clickhouse: profiler.clickhouse,
      redis,
      secret: 'bench-catalog-secret-0123456789abcdef',
    });
    const timings: ApiTiming[] = [];
    try {
      await app.ready();
      const { key } = await createKeyStore(redis).create({
        tier: 'enterprise',
        name: 'bench',
        rate: 1_000_000,
      });
      record('');
      record(
        `(b) API, ${requests} sequential requests per kind through app.inject, response cache off (API_CACHE_BYTES=0):`,
      );
      record(
        `    ${'kind'.padEnd(40)} status  items    bytes  p50 ms  p99 ms  max ms  target   stmt ms  stmts`,
      );
      for (const k of kinds) {
        if (await routeMissing(app, key, k.url)) {
          record(`    ${k.name.padEnd(40)} route not present (${k.url})`);
          continue;
        }
        const t = await timeKindProfiled(app, key, k, requests, profiler);
        timings.push(t);
        record(
          `    ${t.name.padEnd(40)} ${timingCells(t)} ${`< ${TARGETS[t.name]}`.padStart(7)} ${statementCells(t)}`,
        );
      }
    } finally {
      await app.close();
    }

    // (c) End-to-end sync of a sim world's catalog.
    let syncS = Number.NaN;
    if (syncSize !== 'none') {
      record('');
      // A first sync into an empty catalog: the synthetic one goes (else the full sweep's removals would
      // ask the replica about each of its 100k markets).
      for (const t of SYNC_CLEARED) await clickhouse.command('bench.catalog.clear', `TRUNCATE TABLE ${t}`);
      const s0 = performance.now();
      // The catalog and its replicas; the world's history is not needed (no chain is read here).
      const sim = await startSim({ seed: 'bench-catalog', size: syncSize, replicas: true, historyFills: 1 });
      record(`(c) sim world (${syncSize}) started in ${((performance.now() - s0) / 1000).toFixed(1)} s`);
      try {
        const urls = sim.replicaUrls!;
        const metadata = createAlphaMetadataClient({
          http: createHttpClient({ baseUrl: urls.alpha_metadata, timeoutMs: 10_000 }),
        });
        const syncDeps = { clickhouse, log, versions };
        const t0 = performance.now();
        const synced = await runStream(
          alpha,
          'catalog',
          { clickhouse, log, redis, client: metadata },
          { mode: 'full' },
        );
        const t1 = performance.now();
        const tokens = await clickhouse.query<{ token_id: string }>(
          'bench.catalog.tokens',
          'SELECT DISTINCT arrayJoin(clob_token_ids) AS token_id FROM alpha_markets FINAL WHERE NOT closed',
        );
        const books = await syncAlphaBooks(
          { clickhouse, log },
          tokens.map((t) => t.token_id),
          { url: urls.alpha_book },
        );
        const t2 = performance.now();
        await buildAlphaCatalogLists(syncDeps, {});
        const t3 = performance.now();
        syncS = (t3 - t0) / 1000;
        record(
          `    metadata sync ${((t1 - t0) / 1000).toFixed(1)} s (events ${synced.events.read}/${synced.events.written}, markets ${synced.markets.read}/${synced.markets.written} read/written, ${synced.requests} requests), book sync ${((t2 - t1) / 1000).toFixed(1)} s (${JSON.stringify(books)}), lists build ${((t3 - t2) / 1000).toFixed(1)} s: ${syncS.toFixed(1)} s end to end (goal < 60 s)`,
        );
      } finally {
        await sim.stop();
      }
    }

    record('');
    for (const l of formatProfile('profile (a) first lists build, by statement label:', buildProfile))
      record(l);
    record(
      `load average at end ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    const p99 = (name: string) => {
      const t = timings.find((x) => x.name === name);
      return t && t.status === 200 ? t.p99.toFixed(1) : 'n/a';
    };
    const summary = [
      `events=${events}`,
      `markets=${markets}`,
      `build_s=${Math.max(...buildS).toFixed(2)}`,
      `events_p99_ms=${p99('events/keyset default')}`,
      `events_tag_p99_ms=${p99('events/keyset tag + volume_7d')}`,
      `events_markets_p99_ms=${p99('events/keyset include_markets')}`,
      `markets_p99_ms=${p99('markets/keyset 3 filters + metric sort')}`,
      `search_p99_ms=${p99('search')}`,
      `sync_s=${Number.isFinite(syncS) ? syncS.toFixed(1) : 'n/a'}`,
    ];
    record(`SUMMARY catalog ${summary.join(' ')}`);
  } finally {
    await world.close();
  }
}
