/**
 * Process-level glue for alpha's chain ingestion: one ingestor per dependency bag (a worker's jobs share
 * the log source, token cache and writer).
 */
import { createDataVersions } from '../../../../core/data-version.ts';
import type { Deps } from '../../../../core/deps.ts';
import { type AlphaChainIngestor, createAlphaChain } from './ingestor.ts';
import { type AlphaChainSettings, alphaChainSettings } from './settings.ts';

const chains = new WeakMap<object, AlphaChainIngestor>();

/** The alpha chain ingestor of this dependency bag (created on first use). */
export function alphaChainFor(deps: Deps, overrides: Partial<AlphaChainSettings> = {}): AlphaChainIngestor {
  let chain = chains.get(deps);
  if (!chain) {
    chain = createAlphaChain(
      {
        clickhouse: deps.clickhouse,
        log: deps.log,
        onDataChanged: createDataVersions({ redis: deps.redis }).chainBump(),
      },
      alphaChainSettings(deps.config, overrides),
    );
    chains.set(deps, chain);
  }
  return chain;
}
