/**
 * `pmdata analytics recompute alpha [--from-block N]`: recomputes venue alpha's market analytics
 * (docs/analytics.md) in this process: every candle, open-interest and totals bucket from block N
 * (default: the first block with rows) up to the chain's contiguous progress, then the rolling metrics.
 * Takes the analytics lease, so it never runs beside a scheduled run; the incremental runs go on from
 * where it ends. Then rebuilds the catalog lists (analytics/catalog/) from the new figures.
 */
import { parseArgs } from 'node:util';
import { buildAlphaCatalogLists } from '../../analytics/catalog/build.ts';
import { catalogLists } from '../../analytics/catalog/index.ts';
import { marketData } from '../../analytics/market-data/index.ts';
import { recomputeMarketData } from '../../analytics/market-data/run.ts';
import { runRolling } from '../../analytics/rolling-metrics/run.ts';
import type { Deps } from '../../core/deps.ts';
import { PermanentError } from '../../core/errors.ts';
import { productContext, underLease } from '../products.ts';
import { type CliOptions, defaultIo, fmt } from './io.ts';

export const ANALYTICS_USAGE =
  'Usage: pmdata analytics recompute alpha [--from-block N]\n\n' +
  'Options:\n' +
  '  --from-block N  recompute from this block on (default: the first block with rows)';

export async function runAnalyticsCommand(
  argv: string[],
  deps: Deps,
  options: CliOptions = {},
): Promise<number> {
  const io = options.io ?? defaultIo;
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { 'from-block': { type: 'string' }, help: { type: 'boolean', default: false } },
  });
  if (values.help) {
    io.out(ANALYTICS_USAGE);
    return 0;
  }
  const [action, venue = 'alpha'] = positionals;
  if (action !== 'recompute')
    throw new PermanentError(`analytics: unknown action "${action ?? ''}" (expected recompute)`);
  if (venue !== 'alpha') throw new PermanentError(`analytics: unknown source "${venue}" (expected alpha)`);
  const raw = values['from-block'];
  const fromBlock = raw === undefined ? undefined : Number(raw);
  if (fromBlock !== undefined && !(Number.isSafeInteger(fromBlock) && fromBlock >= 0)) {
    throw new PermanentError(`analytics: --from-block must be a block number ≥ 0, got "${raw}"`);
  }
  const ctx = productContext(deps);
  const done = await underLease(deps, marketData, async () => {
    const run = await recomputeMarketData(ctx, ctx.settings, fromBlock === undefined ? {} : { fromBlock });
    if (run.mode === 'idle') return { run, rolling: null };
    const rolling = await runRolling(ctx, ctx.settings);
    return { run, rolling };
  });
  if (!done) {
    io.out('Another analytics run holds the lease; try again when it finished');
    return 1;
  }
  const { run, rolling } = done;
  if (run.mode === 'idle') {
    io.out('alpha analytics: no chain rows to compute from (backfill first: pmdata backfill alpha)');
    return 0;
  }
  const lists = await underLease(deps, catalogLists, () => buildAlphaCatalogLists(ctx));
  io.out(
    `alpha analytics: recomputed blocks ${fmt((run.from ?? 0) + 1)}..${fmt(run.to ?? 0)} in ${run.steps} ` +
      `window(s), ${(run.ms / 1000).toFixed(1)} s; rolling metrics at ${new Date(rolling?.computedAt ?? 0).toISOString()}; ` +
      (lists
        ? `catalog lists rebuilt (${fmt(lists.markets)} markets, ${fmt(lists.events)} events) in ${(lists.ms / 1000).toFixed(1)} s`
        : 'catalog lists: another build holds the lease (the next one uses the new figures)'),
  );
  return 0;
}
