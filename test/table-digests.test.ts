/**
 * Every data table's digest on a fixed-seed simulated world, compared with test/golden/table-digests.json.
 * The world (seed 'table-digests-1', size small, replicas on, no live trading) is run through what the
 * system writes: the alpha chain backfilled, alpha's catalog and books synced, the four REST venues synced
 * (beta's markets and trades, gamma, delta, epsilon), the canonical ids assigned for every venue, the
 * market analytics, rolling metrics and catalog lists computed, then the positions and the profiles. Each
 * table (chain, venues, canonical, analytics, positions, profiles, catalog lists, quarantine) is then one
 * (row count, order-independent digest) pair, read FINAL where the engine replaces rows. The file was
 * recorded before issue 49's restructuring (venue manifests, one stream runner, one progress store,
 * product definitions): the restructured code must write the same rows.
 *
 * Every step is given the world's clock (the sim's "now"), so observation and assignment times are the
 * world's and belong to the data; columns holding a run's wall clock (the products' `version`, the
 * quarantine's time) are left out (DIGESTED below says which). Progress tables (checkpoints, watermarks)
 * are not data and are left out; every other table of the schema must be digested, so a new table has to
 * be placed on one side or the other.
 *
 * Recording happens only with PMDATA_GOLDEN=record; a missing file fails. Never re-record to make a
 * change pass.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// ------------------------------------------------------------------------------------------------
// THE WRITERS. The one place that names the ingest and analytics modules: when they move or are
// renamed, re-point these imports and the calls in `runWriters` below (nothing else in this file
// depends on them). Keep the order and the arguments' meaning (the world's clock, finality depth 0).
import { buildAlphaCatalogLists } from '../analytics/catalog/build.ts';
import { runMarketData } from '../analytics/market-data/run.ts';
import { runPositions } from '../analytics/positions/run.ts';
import { runProfiles } from '../analytics/profiles/run.ts';
import { runRolling } from '../analytics/rolling-metrics/run.ts';
import { assignCanonical } from '../ingest/canonical/index.ts';
import { createHttpClient } from '../ingest/http/client.ts';
import { runStream } from '../ingest/rest/runner.ts';
import { syncAlphaBooks } from '../ingest/venues/alpha/book/sync.ts';
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
import { DEFAULT_START_TIME, type Sim, startSim } from '../sim/index.ts';
import type { TestDeps } from './support/deps.ts';
import { createTestDeps } from './support/deps.ts';

/** Runs every writer over the world, in the order the system's jobs would (inputs before products). */
async function runWriters(deps: TestDeps, sim: Sim): Promise<void> {
  const now = () => sim.state.now();
  const http = (url: string) =>
    createHttpClient({ baseUrl: url, timeoutMs: 10_000, baseDelayMs: 20, maxDelayMs: 100 });
  const urls = sim.replicaUrls!;
  const head = sim.historyHead;

  // The alpha chain: reference pass, then the history as one backfill range.
  const chain = alphaChainSettings(deps.config, {
    rpcUrls: [sim.rpcUrl],
    positionIds: 'simplified',
    finalityDepth: 0,
  });
  const ingestor = createAlphaChain({ clickhouse: deps.clickhouse, log: deps.log }, chain);
  await ingestor.referencePass(0, head);
  await ingestor.ingestRange({ from: 0, to: head }, { head });

  // alpha's catalog (metadata replica) and books (book replica).
  await runStream(
    alpha,
    'catalog',
    { ...deps, now, client: createAlphaMetadataClient({ http: http(urls.alpha_metadata) }) },
    { mode: 'full' },
  );
  const tokens = sim.catalog.venues.alpha.markets.flatMap((m) => m.tokenIds);
  await syncAlphaBooks(deps, tokens, { url: urls.alpha_book, clock: now });

  // The REST venues: a reconcile (every market) of each, then a poll (what changed since: nothing, in a
  // world standing still, so the poll must write no other rows); beta's trades polled after its markets.
  const clients = {
    beta: createBetaClient({ http: http(urls.beta) }),
    gamma: createGammaClient({ http: http(urls.gamma) }),
    delta: createDeltaClient({ http: http(urls.delta) }),
    epsilon: createEpsilonClient({ http: http(urls.epsilon) }),
  };
  for (const mode of ['reconcile', 'poll'] as const) {
    await runStream(beta, 'markets', { ...deps, now, client: clients.beta }, { mode });
    if (mode === 'reconcile') {
      await runStream(beta, 'trades', { ...deps, now, client: clients.beta }, { mode: 'poll' });
    }
    await runStream(gamma, 'markets', { ...deps, now, client: clients.gamma }, { mode });
    await runStream(delta, 'markets', { ...deps, now, client: clients.delta }, { mode });
    await runStream(epsilon, 'markets', { ...deps, now, client: clients.epsilon }, { mode });
  }

  // Canonical ids of every venue's outcomes.
  for (const venue of ['alpha', 'beta', 'gamma', 'delta', 'epsilon'] as const) {
    await assignCanonical(deps, venue, { now });
  }

  // The products: market data, rolling metrics, catalog lists, positions, profiles.
  const analytics = {
    chainId: chain.chainId,
    usdcE: chain.roles.usdcE.toLowerCase(),
    finalityDepth: chain.finalityDepth,
  };
  await runMarketData(deps, analytics);
  await runRolling(deps, analytics);
  await buildAlphaCatalogLists(deps);
  await runPositions(deps, {
    ...productSettings(deps.config),
    chainId: chain.chainId,
    finalityDepth: 0,
  });
  await runProfiles(deps);
}
// ------------------------------------------------------------------------------------------------

const GOLDEN_FILE = path.join(import.meta.dirname, 'golden', 'table-digests.json');
const SEED = 'table-digests-1';
/**
 * The history stops two days into the small world's three, so every venue lists open markets as well as
 * closed and resolved ones (at the horizon's end gamma lists none: it serves active markets only).
 */
const HISTORY_UNTIL = DEFAULT_START_TIME + 2 * 86_400_000;

/** Progress, not data (and the schema's own bookkeeping): never digested. */
const NOT_DATA = new Set([
  'alpha_checkpoints',
  'venue_checkpoints',
  'watermarks',
  'schema_migrations',
  'table_sizes',
]);

/**
 * Every data table and the columns digested: `*` minus the columns that hold a run's wall clock. The
 * products' `version` is their run's Date.now (analytics/market-data/run.ts nextVersion); quarantine's
 * `quarantined_at` is the wall clock of the write.
 */
const DIGESTED: Record<string, string> = {
  // chain
  alpha_fills: '*',
  alpha_activity: '*',
  alpha_lifecycle: '*',
  alpha_oracle: '*',
  alpha_collateral: '*',
  alpha_token_transfers: '*',
  alpha_exchange_events: '*',
  alpha_tokens: '*',
  alpha_blocks: '*',
  alpha_neg_risk_markets: '*',
  alpha_neg_risk_questions: '*',
  alpha_fill_hashes: '*',
  alpha_ctf_supply: '*',
  // alpha's catalog and books
  alpha_markets: '*',
  alpha_events: '*',
  alpha_series: '*',
  alpha_tags: '*',
  alpha_tag_relations: '*',
  // The columns before migration 044 (its tick_size is checked by test/alpha-book-sync.test.ts).
  alpha_book_quotes:
    'token_id, observed_at, condition_id, book_time, hash, best_bid, best_ask, mid, bid_prices, bid_sizes, ask_prices, ask_sizes',
  // REST venues
  beta_markets: '*',
  beta_events: '*',
  beta_series: '*',
  beta_trades: '*',
  gamma_markets: '*',
  gamma_events: '*',
  delta_markets: '*',
  delta_events: '*',
  epsilon_markets: '*',
  epsilon_events: '*',
  epsilon_tags: '*',
  venue_market_words: '*',
  // canonical ids
  canonical_outcomes: '*',
  // market data and rolling metrics
  alpha_token_candles_1m: '* EXCEPT version',
  alpha_token_candles_1h: '* EXCEPT version',
  alpha_token_candles_1d: '* EXCEPT version',
  alpha_condition_candles_1m: '* EXCEPT version',
  alpha_condition_candles_1h: '* EXCEPT version',
  alpha_condition_candles_1d: '* EXCEPT version',
  alpha_oi_deltas_1h: '* EXCEPT version',
  alpha_market_totals: '* EXCEPT version',
  alpha_token_prices: '* EXCEPT version',
  alpha_market_rolling: '* EXCEPT version',
  // catalog lists
  alpha_market_list: '*',
  alpha_event_list: '*',
  alpha_series_list: '*',
  alpha_tag_list: '*',
  alpha_category_list: '*',
  // the build's other side: the lists the build before this one replaced (empty after a first build)
  alpha_market_list_next: '*',
  alpha_event_list_next: '*',
  alpha_series_list_next: '*',
  alpha_tag_list_next: '*',
  alpha_category_list_next: '*',
  // positions (the stage tables are a run's scratch space, emptied after it: digested to show it)
  alpha_positions: '* EXCEPT version',
  alpha_position_changes: '* EXCEPT version',
  alpha_positions_stage_activity: '*',
  alpha_positions_stage_fees: '*',
  alpha_positions_stage_fills: '*',
  alpha_positions_stage_transfers: '*',
  // profiles
  alpha_wallet_profiles: '* EXCEPT version',
  // quarantine
  quarantine: '* EXCEPT quarantined_at',
  // order book history (epsilon's books, recorded by its markets poll; this world runs no book poll of
  // its own) and tick datasets (no feed or compaction here: test/beta-feed.test.ts, ticks-compaction)
  orderbook_snapshots: '*',
  beta_book_ticks: '*',
  tick_parts: '*',
  tick_days: '*',
  tick_books: '*',
};

type Digests = Record<string, { rows: number; digest: string }>;

interface Golden {
  seed: string;
  head: number;
  tables: Digests;
}

async function isReplacing(deps: TestDeps, table: string): Promise<boolean> {
  const [row] = await deps.clickhouse.query<{ engine: string }>(
    'test.digests.engine',
    'SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = {table:String}',
    { table },
  );
  if (!row) throw new Error(`table-digests: no table ${table}`);
  return row.engine.includes('Replacing');
}

async function tableDigests(deps: TestDeps): Promise<Digests> {
  const out: Digests = {};
  for (const [table, columns] of Object.entries(DIGESTED)) {
    const final = (await isReplacing(deps, table)) ? 'FINAL' : '';
    const [row] = await deps.clickhouse.query<{ n: string; h: string }>(
      'test.digests.digest',
      `SELECT toString(count()) AS n, toString(sum(cityHash64(formatRowNoNewline('TSV', *)))) AS h
       FROM (SELECT ${columns} FROM ${table} ${final})`,
    );
    out[table] = { rows: Number(row!.n), digest: row!.h };
  }
  return out;
}

describe('every table on a fixed-seed world', () => {
  let deps: TestDeps;
  let sim: Sim;
  let tables: Digests;

  beforeAll(async () => {
    [deps, sim] = await Promise.all([
      createTestDeps('table_digests'),
      startSim({ seed: SEED, size: 'small', replicas: true, historyUntil: HISTORY_UNTIL }),
    ]);
    await runWriters(deps, sim);
    tables = await tableDigests(deps);
  }, 600_000);

  afterAll(async () => {
    await sim?.stop();
    await deps?.close();
  });

  it('digests every table of the schema but the progress tables', async () => {
    const rows = await deps.clickhouse.query<{ name: string }>(
      'test.digests.tables',
      `SELECT name FROM system.tables WHERE database = currentDatabase() AND engine LIKE '%MergeTree'
       ORDER BY name`,
    );
    const unplaced = rows.map((r) => r.name).filter((n) => !NOT_DATA.has(n) && !(n in DIGESTED));
    expect(unplaced, 'tables neither digested nor progress').toEqual([]);
  });

  it('writes the same rows in every table as the recorded world', () => {
    if (process.env.PMDATA_GOLDEN === 'record') {
      fs.mkdirSync(path.dirname(GOLDEN_FILE), { recursive: true });
      const golden: Golden = { seed: SEED, head: sim.historyHead, tables };
      fs.writeFileSync(GOLDEN_FILE, `${JSON.stringify(golden, null, 1)}\n`);
      return;
    }
    expect(fs.existsSync(GOLDEN_FILE), `${GOLDEN_FILE} exists`).toBe(true);
    const golden = JSON.parse(fs.readFileSync(GOLDEN_FILE, 'utf8')) as Golden;
    expect(sim.historyHead).toBe(golden.head);
    expect(tables).toEqual(golden.tables);
  });
});
