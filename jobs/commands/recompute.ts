/**
 * `pmdata recompute <product|all> [--from DATE|BLOCK] [--quiet | --json] [--progress-interval S]`:
 * recomputes analytics products (the registry: analytics/products.ts) in this process, each under the
 * lease its scheduled job takes (so never beside one), with the progress reporter (core/progress.ts:
 * products done of the total) and a summary. The scheduled incremental runs go on from where it ends.
 *
 * - `alpha-market-data` (candles, open interest, totals; docs/analytics.md): from `--from` (default the
 *   first block with rows) to the chain's contiguous progress; the analytics checkpoint moves there.
 * - `alpha-rolling-metrics`: the rolling windows again, at now.
 * - `alpha-positions` (alias `positions`; docs/positions.md): with `--from`, the positions checkpoint is
 *   rewound to just below that block and the incremental run goes on to the progress; without it,
 *   everything again from the first block. Then the current prices.
 * - `alpha-profiles`, `alpha-catalog-lists`: rewritten whole at now (`--from` does not apply to them).
 * - `all`: every product above, in that order (each one's inputs before it).
 *
 * Exit code 0; 1 when a product's lease was held by another run (the others still ran); 2 usage.
 */
import { parseArgs } from 'node:util';
import { recomputeMarketData } from '../../analytics/market-data/run.ts';
import { recomputePositions, runPositions } from '../../analytics/positions/run.ts';
import { runProfiles } from '../../analytics/profiles/run.ts';
import { runRolling } from '../../analytics/rolling-metrics/run.ts';
import type { Deps } from '../../core/deps.ts';
import { PermanentError } from '../../core/errors.ts';
import {
  createProgress,
  outputMode,
  PROGRESS_OPTIONS_HELP,
  progressIntervalMs,
} from '../../core/progress.ts';
import { withLease } from '../../core/lease.ts';
import { alphaPositionsSettings, positionsDeps, withPositionsLease } from '../processors/alpha-positions.ts';
import { ALPHA_PROFILES_LEASE } from '../processors/alpha-profiles.ts';
import { alphaAnalyticsSettings, analyticsDeps, withAnalyticsLease } from '../processors/analytics-alpha.ts';
import { buildCatalogUnderLease } from '../processors/analytics-catalog.ts';
import { type CliOptions, defaultIo, fmt } from './io.ts';

/** What one product's recomputation reports: a line, and the figures of the JSON summary. */
interface ProductRun {
  line: string;
  fields: Record<string, unknown>;
}

/** A product's recomputation from `fromBlock` (null: all), or null when its lease is held. */
type Recompute = (
  deps: Deps,
  fromBlock: number | null,
  onProgress: (p: { done: number; total: number; unit: string }) => void,
) => Promise<ProductRun | null>;

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const PRODUCTS: Record<string, Recompute> = {
  async 'alpha-market-data'(deps, fromBlock) {
    const settings = alphaAnalyticsSettings(deps.config);
    const run = await withAnalyticsLease(deps, () =>
      recomputeMarketData(analyticsDeps(deps), settings, fromBlock === null ? {} : { fromBlock }),
    );
    if (!run) return null;
    if (run.mode === 'idle') {
      return {
        line: 'no chain rows to compute from (backfill first: pmdata backfill alpha)',
        fields: { idle: true },
      };
    }
    return {
      line: `blocks ${fmt(run.from ?? 0)}..${fmt(run.to ?? 0)} in ${run.steps} window(s), ${secs(run.ms)}`,
      fields: { from_block: run.from, to_block: run.to, windows: run.steps },
    };
  },
  async 'alpha-rolling-metrics'(deps) {
    const settings = alphaAnalyticsSettings(deps.config);
    const run = await withAnalyticsLease(deps, () => runRolling(analyticsDeps(deps), settings));
    if (!run) return null;
    return {
      line: `at ${new Date(run.computedAt).toISOString()}, ${secs(run.ms)}`,
      fields: { computed_at: new Date(run.computedAt).toISOString() },
    };
  },
  async 'alpha-positions'(deps, fromBlock, onProgress) {
    const settings = alphaPositionsSettings(deps.config);
    const run = await withPositionsLease(deps, () =>
      fromBlock === null
        ? recomputePositions(positionsDeps(deps), settings, onProgress)
        : runPositions(positionsDeps(deps), settings, { rewindTo: fromBlock - 1, onProgress }),
    );
    if (!run) return null;
    return {
      line:
        `up to block ${fmt(run.to ?? 0)} in ${run.batches} batch(es), ${fmt(run.events)} events, ` +
        `${fmt(run.changes)} changes, ${fmt(run.positions)} position writes, ${fmt(run.prices)} prices, ${secs(run.ms)}`,
      fields: {
        to_block: run.to,
        batches: run.batches,
        events: run.events,
        changes: run.changes,
        positions: run.positions,
        prices: run.prices,
      },
    };
  },
  async 'alpha-profiles'(deps) {
    const run = await withLease(deps.redis, ALPHA_PROFILES_LEASE, 60_000, () =>
      runProfiles(analyticsDeps(deps)),
    );
    if (!run) return null;
    return {
      line: `${fmt(run.wallets)} wallets (${fmt(run.removed)} removed), ${secs(run.ms)}`,
      fields: { wallets: run.wallets, removed: run.removed },
    };
  },
  async 'alpha-catalog-lists'(deps) {
    const t0 = performance.now();
    const run = await buildCatalogUnderLease(deps);
    if (!run) return null;
    return {
      line: `${fmt(run.markets)} markets, ${fmt(run.events)} events, ${secs(performance.now() - t0)}`,
      fields: { markets: run.markets, events: run.events },
    };
  },
};

/** Products without a starting block: `--from` is ignored for them (said once). */
const WHOLE = new Set(['alpha-rolling-metrics', 'alpha-profiles', 'alpha-catalog-lists']);

const ALIASES: Record<string, string> = { positions: 'alpha-positions' };

export const RECOMPUTE_USAGE =
  'Usage: pmdata recompute <product|all> [--from DATE|BLOCK] [--quiet | --json] [--progress-interval S]\n' +
  '\n' +
  `Products: ${Object.keys(PRODUCTS).join(', ')} (alias: positions = alpha-positions); all = every one, in that order\n` +
  '\n' +
  'Options:\n' +
  '  --from DATE|BLOCK    alpha-market-data and alpha-positions: recompute from this block, or the first block\n' +
  '                       of a UTC date (YYYY-MM-DD or ISO 8601), to now (default: from the first block)\n' +
  PROGRESS_OPTIONS_HELP;

/** `--from` as a block: a number as it is, a date as the first ingested block at or after it. */
async function fromBlockOf(deps: Deps, raw: string | undefined): Promise<number | null> {
  if (raw === undefined) return null;
  if (/^\d+$/.test(raw)) return Number(raw);
  const t = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(raw) ? `${raw}T00:00:00Z` : raw);
  if (Number.isNaN(t))
    throw new PermanentError(`recompute: --from expects a date or a block number, got "${raw}"`);
  const { chainId } = alphaAnalyticsSettings(deps.config);
  const rows = await deps.clickhouse.query<{ n: string | null }>(
    'recompute.from-block',
    `SELECT min(number) AS n FROM alpha_blocks
     WHERE chain_id = {chain:UInt32} AND timestamp >= fromUnixTimestamp64Milli({t:Int64})`,
    { chain: chainId, t },
  );
  const n = rows[0]?.n;
  if (n === null || n === undefined || Number(n) === 0) {
    throw new PermanentError(`recompute: no ingested block at or after ${raw} (--from)`);
  }
  return Number(n);
}

export async function runRecomputeCommand(
  argv: string[],
  deps: Deps,
  options: CliOptions = {},
): Promise<number> {
  const io = options.io ?? defaultIo;
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      from: { type: 'string' },
      quiet: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      'progress-interval': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    io.out(RECOMPUTE_USAGE);
    return 0;
  }
  const what = positionals[0];
  const name = what === undefined ? undefined : (ALIASES[what] ?? what);
  if (name === undefined || (name !== 'all' && !PRODUCTS[name])) {
    throw new PermanentError(
      `recompute: unknown product "${what ?? ''}" (expected one of ${Object.keys(PRODUCTS).join(', ')}, positions, all)`,
    );
  }
  const intervalMs = options.progressEveryMs ?? progressIntervalMs(values['progress-interval']);
  const names = name === 'all' ? Object.keys(PRODUCTS) : [name];
  const progress = createProgress({
    label: `recompute ${name}`,
    io,
    mode: outputMode(values),
    intervalMs,
  });
  const fromBlock = await fromBlockOf(deps, values.from);
  if (fromBlock !== null && names.some((n) => WHOLE.has(n))) {
    progress.note(
      `recompute: --from applies to alpha-market-data and alpha-positions; ` +
        `${names.filter((n) => WHOLE.has(n)).join(', ')} are rewritten whole`,
    );
  }
  progress.phase('products', names.length);
  const results: Record<string, unknown> = {};
  const held: string[] = [];
  let done = 0;
  for (const n of names) {
    progress.update(done, { extra: n });
    const run = await PRODUCTS[n]!(deps, WHOLE.has(n) ? null : fromBlock, (p) =>
      progress.update(done, { extra: `${n} ${fmt(p.done)}/${fmt(p.total)} ${p.unit}` }),
    );
    done++;
    progress.update(done, { extra: n });
    if (!run) {
      held.push(n);
      progress.warn(`${n}: another run holds its lease; try again when it finished`);
      results[n] = { ran: false };
      continue;
    }
    progress.note(`${n}: recomputed ${run.line}`);
    results[n] = { ran: true, ...run.fields };
  }
  progress.finish({
    status: held.length > 0 ? 'failed' : 'done',
    done: { products: names.length - held.length },
    failures: held.length,
    quarantined: 0,
    detail:
      `${names.length - held.length} of ${names.length} product(s)` +
      (fromBlock !== null ? ` from block ${fmt(fromBlock)}` : '') +
      (held.length > 0 ? ` (lease held: ${held.join(', ')})` : ''),
    fields: { from_block: fromBlock, products: results },
  });
  return held.length > 0 ? 1 : 0;
}
