/**
 * The rolling run of venue alpha (job `analytics.alpha-rolling`, every ANALYTICS_ROLLING_INTERVAL_S and
 * after the market data caught up): every token's and condition's rolling metrics at now = the block the
 * market data was computed up to (else the wall clock), then its run mark (`at`: the rows' version).
 */

import { PRODUCT_SOURCES } from '../../schemas/products.ts';
import { commitRun, runMark } from '../shared/chain.ts';
import type { AlphaAnalyticsSettings } from '../shared/settings.ts';
import { type AnalyticsDeps, nextVersion } from '../shared/version.ts';
import { recomputeRolling } from './rolling.ts';

/** The product's name: its run mark's source in the progress store. */
export const ROLLING_PRODUCT = 'alpha-rolling-metrics';
export const ROLLING_SOURCE = PRODUCT_SOURCES['alpha-rolling-metrics'];

export async function runRolling(
  deps: AnalyticsDeps,
  s: AlphaAnalyticsSettings,
  o: { now?: number } = {},
): Promise<{ computedAt: number; ms: number }> {
  const started = Date.now();
  // Its input's run mark: the block the market data was computed up to, and that run's version.
  const checkpoint = await runMark(deps.clickhouse, s.chainId, 'alpha-market-data');
  const nowMs = o.now ?? (checkpoint && checkpoint.time > 0 ? checkpoint.time : Date.now());
  const version = nextVersion(checkpoint?.version);
  let computedAt = nowMs;
  await commitRun(deps.clickhouse, ROLLING_PRODUCT, { kind: 'head', at: version }, async () => {
    ({ computedAt } = await recomputeRolling(deps.clickhouse, {
      chainId: s.chainId,
      usdcE: s.usdcE,
      version,
      nowMs,
    }));
  });
  await deps.versions?.bump(ROLLING_SOURCE, String(computedAt));
  deps.log.info(
    { computedAt: new Date(computedAt).toISOString(), ms: Date.now() - started },
    'Computed alpha rolling metrics',
  );
  return { computedAt, ms: Date.now() - started };
}
