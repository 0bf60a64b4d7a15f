/**
 * Acceptance of alpha's catalog lists (analytics/catalog/; docs/catalog.md "Rules", "Derived lists",
 * "Tag hierarchy") against a small simulated world: the chain backfilled, the market analytics computed,
 * the catalog synced from the metadata replica and the books from the book replica, then the build.
 */
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAlphaCatalogLists, type CatalogBuildSummary } from '../analytics/catalog/build.ts';
import { recomputeMarketData } from '../analytics/market-data/run.ts';
import type { AlphaAnalyticsSettings } from '../analytics/market-data/settings.ts';
import { runRolling } from '../analytics/rolling-metrics/run.ts';
import { createHttpClient } from '../ingest/http/client.ts';
import { syncAlphaBooks } from '../ingest/venues/alpha/book/sync.ts';
import { createAlphaChain } from '../ingest/venues/alpha/chain/ingestor.ts';
import { alphaChainSettings } from '../ingest/venues/alpha/chain/settings.ts';
import { createAlphaMetadataClient } from '../ingest/venues/alpha/metadata/client.ts';
import { syncAlphaCatalog } from '../ingest/venues/alpha/metadata/sync.ts';
import { type Sim, startSim } from '../sim/index.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

let sim: Sim;
let deps: TestDeps;
let settings: AlphaAnalyticsSettings;
let headTime: number;
let built: CatalogBuildSummary;

beforeAll(async () => {
  [deps, sim] = await Promise.all([
    createTestDeps('alpha_catalog_lists'),
    startSim({ seed: 'alpha-catalog-lists', size: 'small', replicas: true }),
  ]);
  const top = await sim.anvil.rpc<{ number: Hex; timestamp: Hex }>('eth_getBlockByNumber', ['latest', false]);
  const head = Number(top.number);
  headTime = Number(top.timestamp) * 1000;
  const chainSettings = alphaChainSettings(deps.config, {
    rpcUrls: [sim.rpcUrl],
    positionIds: 'simplified',
    finalityDepth: 0,
  });
  const ingestor = createAlphaChain({ clickhouse: deps.clickhouse, log: deps.log }, chainSettings);
  await ingestor.referencePass(0, head);
  await ingestor.ingestRange({ from: 0, to: head }, { head });
  settings = {
    chainId: chainSettings.chainId,
    usdcE: chainSettings.roles.usdcE.toLowerCase(),
    finalityDepth: chainSettings.finalityDepth,
  };
  await recomputeMarketData(deps, settings);
  await runRolling(deps, settings);
  const metadata = createAlphaMetadataClient({
    http: createHttpClient({ baseUrl: sim.replicaUrls!.alpha_metadata, timeoutMs: 10_000 }),
  });
  await syncAlphaCatalog({ ...deps, metadata }, { mode: 'full' });
  const tokens = sim.catalog.venues.alpha.markets.flatMap((m) => m.tokenIds);
  await syncAlphaBooks(deps, tokens, { url: sim.replicaUrls!.alpha_book, clock: () => headTime - 60_000 });
  built = await buildAlphaCatalogLists(deps);
}, 300_000);

afterAll(async () => {
  await sim?.stop();
  await deps?.close();
});

describe('alpha catalog lists', () => {
  it('builds every list', () => {
    expect(built.markets).toBe(sim.catalog.venues.alpha.markets.length);
    expect(built.events).toBe(sim.catalog.venues.alpha.events.length);
  });
});
