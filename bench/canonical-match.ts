/**
 * `npm run bench -- canonical-match [--size small|medium|large] [--seed S]`: how well canonical ids
 * match outcomes across venues. A world's replicas (default medium), the five venues ingested from them
 * (alpha's catalog with its `catalog` stream, the others with their streams, `reconcile`: a full listing),
 * `assignCanonical` for each; truth = the same topic and proposition (sim catalog `topicId` and
 * `topicOutcomeIndex`, which only this benchmark reads). Prints precision and recall over every pair of
 * outcomes on two venues, 20 wrong pairs, and last `SUMMARY precision=… recall=…`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig } from '../core/config.ts';
import { assignCanonical } from '../ingest/canonical/assign.ts';
import { createHttpClient } from '../ingest/http/client.ts';
import { runStream } from '../ingest/rest/runner.ts';
import { alpha } from '../ingest/venues/alpha/index.ts';
import { createAlphaMetadataClient } from '../ingest/venues/alpha/metadata/client.ts';
import { CONFIG_SECTIONS } from '../jobs/config.ts';
import type { CanonicalVenue } from '../schemas/venues/index.ts';
import { startReplicas } from '../sim/venues/index.ts';
import {
  proposition,
  type ScoredOutcome,
  score,
  storedMarketKey,
  VENUE_ORDER,
} from '../sim/world/canonical-truth.ts';
import { type CatalogSize, generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState } from '../sim/world/state.ts';
import { openBenchWorld } from './support/world.ts';

const START = Date.UTC(2026, 3, 1);
const HOUR = 3_600_000;
const here = path.dirname(fileURLToPath(import.meta.url));

type SyncFn = (deps: object, opts: { mode: string }) => Promise<unknown>;

/** The venue's sync (ingest/venues/<code>/sync.ts, `sync<Code>`), or null while it does not exist. */
async function venueSync(venue: string): Promise<SyncFn | null> {
  const file = path.resolve(here, `../ingest/venues/${venue}/sync.ts`);
  if (!fs.existsSync(file)) return null;
  const mod = (await import(file)) as Record<string, unknown>;
  const fn = mod[`sync${venue[0]!.toUpperCase()}${venue.slice(1)}`];
  return typeof fn === 'function' ? (fn as SyncFn) : null;
}

export async function run(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      size: { type: 'string', default: 'medium' },
      seed: { type: 'string', default: 'canonical' },
    },
  });
  const size = values.size as CatalogSize;
  if (!['small', 'medium', 'large'].includes(size)) throw new Error('--size must be small, medium or large');
  const record = (text: string) => process.stdout.write(`${text}\n`);
  const t0 = performance.now();
  const catalog = generateCatalog({ seed: values.seed!, size, startTime: START });
  const state = createWorldState(catalog);
  state.tick(START + 12 * HOUR);
  const replicas = await startReplicas({ catalog, state });
  const world = await openBenchWorld('canonical-match');
  const { log, clickhouse, redis } = world;
  try {
    const config = loadConfig(
      {
        PMDATA_DATA_DIR: world.dir,
        CLICKHOUSE_DATABASE: world.config.clickhouseDatabase,
        REDIS_URL: world.config.redisUrl,
        LOG_LEVEL: 'warn',
        BETA_API_URL: replicas.urls.beta,
        GAMMA_API_URL: replicas.urls.gamma,
        DELTA_API_URL: replicas.urls.delta,
        EPSILON_API_URL: replicas.urls.epsilon,
      },
      CONFIG_SECTIONS,
    );
    const deps = { clickhouse, log, redis, config };
    record(
      `canonical-match: ${size} world, seed ${values.seed}, ${catalog.topics.length} topics; ` +
        VENUE_ORDER.map((v) => `${v} ${catalog.venues[v].markets.length} markets`).join(', '),
    );
    const ingested: CanonicalVenue[] = [];
    const metadata = createAlphaMetadataClient({
      http: createHttpClient({ baseUrl: replicas.urls.alpha_metadata, timeoutMs: 10_000 }),
    });
    await runStream(alpha, 'catalog', { ...deps, client: metadata }, { mode: 'full' });
    ingested.push('alpha');
    for (const v of ['beta', 'gamma', 'delta', 'epsilon'] as const) {
      const sync = await venueSync(v);
      if (sync === null) {
        record(`${v}: no ingest/venues/${v}/sync.ts yet: left out`);
        continue;
      }
      await sync(deps, { mode: 'reconcile' });
      ingested.push(v);
    }
    const t1 = performance.now();
    for (const v of ingested) {
      const s = await assignCanonical(deps, v);
      record(
        `${v}: ${s.markets} markets, ${s.outcomes} outcomes, ${s.created} ids assigned, ${s.unkeyed} without a key (${s.ms} ms)`,
      );
    }
    const t2 = performance.now();

    const stored = new Map<string, { id: string; key: string }>();
    for (const r of await clickhouse.query<{
      venue: string;
      market: string;
      outcome_index: number;
      id: string;
      key: string;
    }>('bench.canonical.ids', 'SELECT venue, market, outcome_index, id, key FROM canonical_outcomes FINAL')) {
      stored.set(`${r.venue}|${r.market}|${r.outcome_index}`, { id: r.id, key: r.key });
    }
    const outcomes: ScoredOutcome[] = [];
    for (const v of ingested) {
      for (const m of catalog.venues[v].markets) {
        const market = storedMarketKey(m);
        m.outcomes.forEach((label, index) => {
          const s = stored.get(`${v}|${market}|${index}`);
          outcomes.push({
            venue: v,
            market,
            index,
            label,
            truth: proposition(catalog, m, index),
            id: s?.id ?? null,
            key: s?.key ?? null,
          });
        });
      }
    }
    const result = score(outcomes, 20);
    record(
      `venues ${ingested.join(', ')}: ${outcomes.length} outcomes, ${outcomes.filter((o) => o.id === null).length} without an id; ` +
        `cross-venue pairs: ${result.predicted} predicted, ${result.truePairs} true, ${result.correct} both`,
    );
    record(`precision ${result.precision.toFixed(4)}, recall ${result.recall.toFixed(4)}`);
    record(`ingest ${((t1 - t0) / 1000).toFixed(1)} s, assignment ${((t2 - t1) / 1000).toFixed(1)} s`);
    record(`wrong pairs (${result.wrong.length} shown):`);
    const show = (o: ScoredOutcome) =>
      `${o.venue} ${o.market}#${o.index} "${o.label}" [${o.truth}] key=${o.key ?? '-'}`;
    for (const w of result.wrong) record(`  ${w.kind}: ${show(w.a)}  <>  ${show(w.b)}`);
    record(`SUMMARY precision=${result.precision.toFixed(4)} recall=${result.recall.toFixed(4)}`);
  } finally {
    await replicas.close();
    await world.close();
  }
}
