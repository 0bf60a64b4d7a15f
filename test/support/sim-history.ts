/**
 * A simulated world's history in a test database: the sim chain ingested over its history (reference
 * pass, then every block), and what follows from it on request — the positions (analytics/positions/).
 * Also the reset the reorg tests use before a clean recompute: every alpha table emptied.
 */

import { runPositions } from '../../analytics/positions/run.ts';
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { Deps } from '../../core/deps.ts';
import { createWatermarks } from '../../core/watermarks.ts';
import { createAlphaChain } from '../../ingest/venues/alpha/chain/ingestor.ts';
import { type AlphaChainSettings, alphaChainSettings } from '../../ingest/venues/alpha/chain/settings.ts';
import { productSettings } from '../../jobs/products.ts';
import type { Sim } from '../../sim/index.ts';

/** Ingests the sim's history (blocks 0..historyHead, finality depth 0); with `positions`, computes them. */
export async function ingestSimHistory(
  deps: Pick<Deps, 'clickhouse' | 'log' | 'config'>,
  sim: Pick<Sim, 'rpcUrl' | 'historyHead'>,
  o: { positions?: boolean } = {},
): Promise<AlphaChainSettings> {
  const chain = alphaChainSettings(deps.config, {
    rpcUrls: [sim.rpcUrl],
    positionIds: 'simplified',
    finalityDepth: 0,
  });
  const head = sim.historyHead;
  const ingestor = createAlphaChain({ clickhouse: deps.clickhouse, log: deps.log }, chain);
  await ingestor.referencePass(0, head);
  await ingestor.ingestRange({ from: 0, to: head }, { head });
  if (o.positions) {
    await runPositions(deps, {
      ...productSettings(deps.config),
      chainId: chain.chainId,
      finalityDepth: 0,
    });
  }
  return chain;
}

/**
 * Empties every alpha table (chain tables, derived tables) and forgets the progress of the chain and of the
 * products with a checkpoint (the progress store, core/watermarks.ts).
 */
export async function truncateAlphaTables(ch: ClickHouse): Promise<void> {
  const marks = createWatermarks(ch);
  for (const source of ['alpha-chain', 'alpha-market-data', 'alpha-positions']) await marks.forget(source);
  const tables = await ch.query<{ name: string }>(
    'test.tables',
    `SELECT name FROM system.tables WHERE database = currentDatabase() AND startsWith(name, 'alpha_')
       AND engine LIKE '%MergeTree'`,
  );
  for (const { name } of tables) await ch.command('test.truncate', `TRUNCATE TABLE ${name}`);
}
