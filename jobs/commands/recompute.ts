/**
 * `pmdata recompute <product|all> [--from DATE|BLOCK] [--quiet | --json] [--progress-interval S]`:
 * recomputes analytics products (the registry: analytics/products.ts; each product's `recompute`) in
 * this process, each under the lease its scheduled job takes (so never beside one), with the progress
 * reporter (core/progress.ts: products done of the total) and a summary. The scheduled incremental runs go
 * on from where it ends.
 *
 * - `alpha-market-data` (candles, open interest, totals; docs/analytics.md): from `--from` (default the
 *   first block with rows) to the chain's contiguous progress; the analytics checkpoint moves there.
 * - `alpha-rolling-metrics`: the rolling windows again, at now.
 * - `alpha-positions` (alias `positions`; docs/positions.md): with `--from`, the positions checkpoint is
 *   rewound to just below that block and the incremental run goes on to the progress; without it,
 *   everything again from the first block. Then the current prices.
 * - `alpha-profiles`, `alpha-catalog-lists`: rewritten whole at now (`--from` does not apply to them).
 * - `all`: every product, each one after the products it reads (its `inputs`), else in the list's order.
 *
 * Exit code 0; 1 when a product's lease was held by another run (the others still ran); 2 usage.
 */
import { parseArgs } from 'node:util';
import { PRODUCTS, productNamed } from '../../analytics/products.ts';
import type { Deps } from '../../core/deps.ts';
import { PermanentError } from '../../core/errors.ts';
import {
  createProgress,
  outputMode,
  PROGRESS_OPTIONS_HELP,
  progressIntervalMs,
} from '../../core/progress.ts';
import { productSettings, recomputeProduct } from '../products.ts';
import { type CliOptions, defaultIo, fmt } from './io.ts';

/** Products without a starting block: `--from` is ignored for them (said once). */
const WHOLE = new Set(PRODUCTS.filter((p) => p.mode === 'whole').map((p) => p.name));
const FROM = PRODUCTS.filter((p) => p.mode !== 'whole').map((p) => p.name);

const ALIASES: Record<string, string> = { positions: 'alpha-positions' };
const NAMES = PRODUCTS.map((p) => p.name);

export const RECOMPUTE_USAGE =
  'Usage: pmdata recompute <product|all> [--from DATE|BLOCK] [--quiet | --json] [--progress-interval S]\n' +
  '\n' +
  `Products: ${NAMES.join(', ')} (alias: positions = alpha-positions); all = every one, in that order\n` +
  '\n' +
  'Options:\n' +
  `  --from DATE|BLOCK    ${FROM.join(' and ')}: recompute from this block, or the first block\n` +
  '                       of a UTC date (YYYY-MM-DD or ISO 8601), to now (default: from the first block)\n' +
  PROGRESS_OPTIONS_HELP;

/** `--from` as a block: a number as it is, a date as the first ingested block at or after it. */
async function fromBlockOf(deps: Deps, raw: string | undefined): Promise<number | null> {
  if (raw === undefined) return null;
  if (/^\d+$/.test(raw)) return Number(raw);
  const t = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(raw) ? `${raw}T00:00:00Z` : raw);
  if (Number.isNaN(t))
    throw new PermanentError(`recompute: --from expects a date or a block number, got "${raw}"`);
  const { chainId } = productSettings(deps.config);
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
  if (name === undefined || (name !== 'all' && !productNamed(name))) {
    throw new PermanentError(
      `recompute: unknown product "${what ?? ''}" (expected one of ${NAMES.join(', ')}, positions, all)`,
    );
  }
  const intervalMs = options.progressEveryMs ?? progressIntervalMs(values['progress-interval']);
  const names = name === 'all' ? NAMES : [name];
  const progress = createProgress({
    label: `recompute ${name}`,
    io,
    mode: outputMode(values),
    intervalMs,
  });
  const fromBlock = await fromBlockOf(deps, values.from);
  if (fromBlock !== null && names.some((n) => WHOLE.has(n))) {
    progress.note(
      `recompute: --from applies to ${FROM.join(' and ')}; ` +
        `${names.filter((n) => WHOLE.has(n)).join(', ')} are rewritten whole`,
    );
  }
  progress.phase('products', names.length);
  const results: Record<string, unknown> = {};
  const held: string[] = [];
  let done = 0;
  for (const n of names) {
    progress.update(done, { extra: n });
    const product = productNamed(n);
    if (!product) throw new PermanentError(`recompute: unknown product "${n}"`);
    const run = await recomputeProduct(deps, product, fromBlock, (p) =>
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
