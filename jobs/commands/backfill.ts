/**
 * `pmdata backfill alpha [--from-block N|DATE] [--to-block M|DATE] [--concurrency K] [--force]
 *                        [--enqueue-only]`, and `pmdata backfill alpha --catalog` (a full sweep of the
 * metadata API now: ingest/venues/alpha/metadata/sync.ts), and `pmdata backfill <beta|gamma|delta|epsilon>
 * [--trades] [--from DATE]` (a REST venue's full listing now, jobs/commands/backfill-<venue>.ts, then its
 * canonical ids).
 *
 * Runs the reference pass (tokens), enqueues one BullMQ job per block range (job ids derived from the range) and,
 * unless --enqueue-only, processes them with an in-process worker, printing a progress line (blocks/s,
 * events/s, ETA) and a final summary. Dates (YYYY-MM-DD or ISO 8601, UTC) are turned into the first
 * block at or after that time. The ingestion itself (planning, one range) is ingest/chain/backfill.ts.
 */
import { parseArgs } from 'node:util';
import type { Deps } from '../../core/deps.ts';
import { PermanentError } from '../../core/errors.ts';
import { withLeaseWaiting } from '../../core/lease.ts';
import {
  createProgress,
  outputMode,
  PROGRESS_OPTIONS_HELP,
  progressIntervalMs,
  type Reporter,
} from '../../core/progress.ts';
import { assignCanonical } from '../../ingest/canonical/assign.ts';
import type { CanonicalVenue } from '../../ingest/canonical/served.ts';
import { backfillJobId, planBackfillRanges } from '../../ingest/chain/backfill.ts';
import type { AlphaChainIngestor } from '../../ingest/venues/alpha/chain/ingestor.ts';
import { alphaChainFor } from '../../ingest/venues/alpha/chain/runtime.ts';
import { syncAlphaCatalog } from '../../ingest/venues/alpha/metadata/sync.ts';
import { syncDelta } from '../../ingest/venues/delta/sync.ts';
import { syncEpsilon } from '../../ingest/venues/epsilon/sync.ts';
import { alphaBackfillJob } from '../processors/alpha-backfill.ts';
import { ALPHA_CATALOG_LEASE } from '../processors/alpha-catalog.ts';
import { canonicalLease } from '../processors/canonical.ts';
import { DELTA_LEASE } from '../processors/delta.ts';
import { EPSILON_LEASE } from '../processors/epsilon.ts';
import { createBullConnection, createQueues, DEFAULT_PREFIX } from '../queues.ts';
import { ALL_JOBS } from '../registry.ts';
import { createWorkers } from '../worker.ts';
import { backfillBeta } from './backfill-beta.ts';
import { backfillGamma, listingBackfill } from './backfill-listing.ts';
import { totalsOf, watchRangeJobs } from './backfill-progress.ts';
import { type BackfillVenueArgs, type CliIo, type CliOptions, defaultIo, fmt } from './io.ts';
import { stopOnSignals } from './stop.ts';

export type { CliIo, CliOptions } from './io.ts';

export const BACKFILL_USAGE =
  'Usage: pmdata backfill alpha [--from-block N|DATE] [--to-block M|DATE] [--concurrency K] [--force] [--enqueue-only]\n' +
  '                             [--quiet | --json] [--progress-interval S]\n' +
  '       pmdata backfill alpha --catalog   (a full sweep of the metadata API: events, markets, series, tags)\n' +
  '       pmdata backfill <beta|gamma|delta|epsilon> [--trades] [--from DATE]\n' +
  '                                          (a full listing of the venue now, then its canonical ids;\n' +
  "                                           with --trades, beta's trades too, down to --from)\n" +
  '\n' +
  'Options:\n' +
  '  --from-block N|DATE  first block, or the first block of a UTC date (default: ALPHA_START_BLOCK)\n' +
  '  --to-block M|DATE    last block (default: the head − ALPHA_FINALITY_DEPTH)\n' +
  '  --concurrency K      range jobs run at once, 1..64 (default: 1)\n' +
  '  --force              backfill ranges already done again (default: off)\n' +
  '  --enqueue-only       enqueue the range jobs for the workers and exit (default: off)\n' +
  '  --catalog            alpha: a full sweep of the metadata API instead of blocks (default: off)\n' +
  '  --trades             beta: its trades too (default: off)\n' +
  '  --from DATE          beta --trades: down to this date (default: every trade)\n' +
  PROGRESS_OPTIONS_HELP;

/** The REST venues' backfills (a full listing now): jobs/commands/backfill-<venue>.ts. */
const VENUE_BACKFILLS: Record<string, (deps: Deps, io: CliIo, args: BackfillVenueArgs) => Promise<number>> = {
  beta: backfillBeta,
  gamma: backfillGamma,
  delta: listingBackfill('delta', DELTA_LEASE, syncDelta),
  epsilon: listingBackfill('epsilon', EPSILON_LEASE, syncEpsilon),
};

/** `pmdata backfill <venue> [--trades] [--from DATE]`, then the venue's canonical ids. */
async function runVenueBackfill(
  venue: CanonicalVenue,
  run: (deps: Deps, io: CliIo, args: BackfillVenueArgs) => Promise<number>,
  deps: Deps,
  io: CliIo,
  values: { trades?: boolean; from?: string; quiet?: boolean; json?: boolean },
  intervalMs: number,
  signal: AbortSignal | undefined,
): Promise<number> {
  let from: number | null = null;
  if (values.from !== undefined) {
    from = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(values.from) ? `${values.from}T00:00:00Z` : values.from);
    if (Number.isNaN(from)) throw new PermanentError(`--from: expected a date, got "${values.from}"`);
  }
  const progress = createProgress({ label: venue, io, mode: outputMode(values), intervalMs });
  const code = await run(deps, io, { trades: values.trades === true, from, progress, signal });
  if (code !== 0) return code;
  const assigned = await withLeaseWaiting(
    deps.redis,
    canonicalLease(venue),
    60_000,
    () => assignCanonical(deps, venue),
    {
      signal,
      onWait: () => progress.note(`${venue}: canonical ids are being assigned by a job; waiting for it`),
    },
  );
  if (assigned === null) {
    progress.warn(`${venue}: stopped while waiting to assign canonical ids; the next listing assigns them`);
    return 1;
  }
  progress.note(
    `${venue} canonical ids: ${fmt(assigned.outcomes)} outcomes, ${fmt(assigned.written)} written`,
  );
  return 0;
}

/** `backfill alpha --catalog`: a full catalog sweep now, with progress (requests, the step) and a summary. */
async function runCatalogSweep(
  deps: Deps,
  progress: Reporter,
  signal: AbortSignal | undefined,
): Promise<number> {
  const counts = (c: { read: number; written: number }) => `${fmt(c.read)} read, ${fmt(c.written)} written`;
  progress.phase('requests', null);
  const summary = await withLeaseWaiting(
    deps.redis,
    ALPHA_CATALOG_LEASE,
    60_000,
    () =>
      syncAlphaCatalog(deps, {
        mode: 'full',
        onProgress: (step, s) =>
          progress.update(s.requests, { extra: `${step}, ${fmt(s.quarantined)} quarantined` }),
      }),
    {
      signal,
      onWait: () =>
        progress.note('alpha catalog: another catalog sync is running (lease held); waiting for it'),
    },
  );
  if (!summary) {
    progress.warn('alpha catalog: stopped while waiting for the running catalog sync; nothing was read');
    return 1;
  }
  const parts = {
    events: summary.events,
    markets: summary.markets,
    series: summary.series,
    tags: summary.tags,
    tag_relations: summary.tagRelations,
  };
  const records = Object.values(parts).reduce((n, c) => n + c.read, 0);
  progress.finish({
    status: 'done',
    done: { records, requests: summary.requests },
    failures: 0,
    quarantined: summary.quarantined,
    detail:
      `events ${counts(summary.events)}; markets ${counts(summary.markets)}; series ${counts(summary.series)}; ` +
      `tags ${counts(summary.tags)}; tag relations ${counts(summary.tagRelations)}; deleted (gone upstream): ` +
      `events ${fmt(summary.events.deleted)}, markets ${fmt(summary.markets.deleted)}, ` +
      `series ${fmt(summary.series.deleted)}, tags ${fmt(summary.tags.deleted)}, ` +
      `tag relations ${fmt(summary.tagRelations.deleted)}` +
      (summary.removalSkipped.length > 0 ? ` (not deleting: ${summary.removalSkipped.join('; ')})` : ''),
    fields: {
      ...Object.fromEntries(
        Object.entries(parts).map(([k, c]) => [k, { read: c.read, written: c.written, deleted: c.deleted }]),
      ),
      removal_skipped: summary.removalSkipped,
    },
  });
  return 0;
}

async function resolveBlock(
  chain: AlphaChainIngestor,
  value: string | undefined,
  head: number,
  name: string,
) {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const t = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(t)) throw new PermanentError(`${name}: expected a block number or a date, got "${value}"`);
  return chain.blockAt(t, head);
}

/** `pmdata backfill alpha ...`. Resolves to the process exit code. */
export async function runBackfillCommand(
  argv: string[],
  deps: Deps,
  options: CliOptions = {},
): Promise<number> {
  const io = options.io ?? defaultIo;
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'from-block': { type: 'string' },
      'to-block': { type: 'string' },
      concurrency: { type: 'string' },
      force: { type: 'boolean', default: false },
      'enqueue-only': { type: 'boolean', default: false },
      catalog: { type: 'boolean', default: false },
      trades: { type: 'boolean', default: false },
      from: { type: 'string' },
      quiet: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      'progress-interval': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    io.out(BACKFILL_USAGE);
    return 0;
  }
  // Checked before any service is touched.
  const intervalMs = options.progressEveryMs ?? progressIntervalMs(values['progress-interval']);
  const venue = positionals[0] ?? 'alpha';
  const venueBackfill = VENUE_BACKFILLS[venue];
  if (venueBackfill)
    return runVenueBackfill(
      venue as CanonicalVenue,
      venueBackfill,
      deps,
      io,
      values,
      intervalMs,
      options.signal,
    );
  if (venue !== 'alpha') {
    throw new PermanentError(
      `backfill: unknown source "${venue}" (expected alpha, ${Object.keys(VENUE_BACKFILLS).join(', ')})`,
    );
  }
  if (values.catalog) {
    return runCatalogSweep(
      deps,
      createProgress({ label: 'alpha catalog', io, mode: outputMode(values), intervalMs }),
      options.signal,
    );
  }
  // Range jobs worked at once. One by default: a job already keeps several eth_getLogs requests in
  // flight, and two dense ranges side by side ran slower on 2 cores and peaked near 1 GiB
  // (docs/operations.md).
  const concurrency = values.concurrency === undefined ? 1 : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
    throw new PermanentError(
      `backfill: --concurrency must be an integer from 1 to 64, got "${values.concurrency}"`,
    );
  }
  const chain = alphaChainFor(deps);
  const { settings } = chain;
  await chain.verifyChain();
  const head = await chain.head();
  const from = (await resolveBlock(chain, values['from-block'], head, '--from-block')) ?? settings.startBlock;
  const to =
    (await resolveBlock(chain, values['to-block'], head, '--to-block')) ??
    Math.max(0, head - settings.finalityDepth);
  if (to < from) throw new PermanentError(`backfill: --to-block ${to} is before --from-block ${from}`);
  if (to > head) throw new PermanentError(`backfill: --to-block ${to} is above the head ${head}`);
  const progress = createProgress({ label: 'alpha backfill', io, mode: outputMode(values), intervalMs });
  const stop = stopOnSignals(options.signal, () =>
    progress.warn(
      'Stopping: running jobs stop after their current page (press Ctrl+C again to exit at once)',
    ),
  );
  const totalBlocks = to - from + 1;
  const stopped = (detail: string, blocks: number, events: number) => {
    progress.finish({
      status: 'stopped',
      done: { blocks, events },
      failures: 0,
      quarantined: 0,
      detail: `${stop.reason()}; ${detail}`,
      fields: { from, to, total_blocks: totalBlocks },
    });
    return stop.exitCode;
  };
  try {
    // 1. Reference pass over the whole range: every job then knows every token's condition.
    progress.note(`alpha backfill: reference pass over blocks ${fmt(from)}..${fmt(to)}`);
    let tokens: number;
    try {
      ({ tokens } = await chain.referencePass(from, to, { signal: stop.signal }));
    } catch (err) {
      if (!stop.signal.aborted) throw err;
      return stopped('in the reference pass, nothing was enqueued', 0, 0);
    }
    const ranges = planBackfillRanges(from, to, settings.backfillJobBlocks).map((r) => ({
      ...r,
      id: backfillJobId('alpha', settings.chainId, r),
    }));
    if (values.force) await chain.forgetCheckpoints(ranges);

    // 2. One job per range.
    const prefix = options.queuePrefix ?? DEFAULT_PREFIX;
    const connection = createBullConnection(deps.config.redisUrl);
    const queues = createQueues({ connection, prefix });
    const queue = queues.get('chain');
    // A range's job id is fixed and finished jobs are kept (a day, or the last 1,000/5,000): adding it
    // again would be a no-op, and this request would report an earlier run's result (or its failure)
    // without running. Finished jobs of these ranges are removed first, so every range runs now (a
    // range done before is skipped by its checkpoint, and the summary says so); a range waiting or
    // running for an earlier request is that same work, watched here.
    let inProgress = 0;
    for (let i = 0; i < ranges.length; i += 100) {
      const states = await Promise.all(
        ranges.slice(i, i + 100).map(async (r) => ({ r, state: await queue.getJobState(r.id) })),
      );
      for (const { r, state } of states) {
        if (state === 'completed' || state === 'failed') await queue.remove(r.id);
        else if (state !== 'unknown') inProgress++;
      }
    }
    if (inProgress > 0) {
      progress.note(
        `alpha backfill: ${fmt(inProgress)} of the ranges are already queued or running (an earlier request); ` +
          'watching them',
      );
    }
    for (let i = 0; i < ranges.length; i += 500) {
      await queue.addBulk(
        ranges.slice(i, i + 500).map((r) => ({
          name: alphaBackfillJob.name,
          data: { chainId: settings.chainId, from: r.from, to: r.to },
          opts: { jobId: r.id, attempts: alphaBackfillJob.attempts },
        })),
      );
    }
    const enqueued = `Enqueued ${fmt(ranges.length)} alpha backfill jobs for blocks ${fmt(from)}..${fmt(to)} (${fmt(tokens)} tokens known)`;
    if (values['enqueue-only']) {
      await queues.close();
      connection.disconnect();
      // The summary of an enqueue-only run: what it enqueued (the workers report their progress).
      progress.finish({
        status: 'enqueued',
        done: { jobs: ranges.length },
        failures: 0,
        quarantined: 0,
        detail: enqueued,
        fields: { from, to, total_blocks: totalBlocks, tokens },
      });
      return 0;
    }
    progress.note(enqueued);

    // 3. Work them here, with a progress line until all are done.
    // The range jobs of the `chain` queue, worked here; a restarted backfill takes over a killed run's
    // jobs once their lock expired. On a stop signal, running jobs stop after their current page and go
    // back to the wait list with their checkpoints: the same command resumes them.
    const workers = createWorkers({
      deps,
      jobs: ALL_JOBS.filter((j) => j.queue === 'chain'),
      prefix,
      concurrency,
      lockDurationMs: options.lockDurationMs ?? 30_000,
    });
    progress.phase('blocks', totalBlocks);
    let watched: Awaited<ReturnType<typeof watchRangeJobs>>;
    try {
      watched = await watchRangeJobs({ jobs: queue, ranges, signal: stop.signal, reporter: progress });
    } finally {
      await workers.close();
      await queues.close();
      connection.disconnect();
    }
    const { done, failed } = watched;
    const t = totalsOf(done);
    const fields = {
      from,
      to,
      total_blocks: totalBlocks,
      jobs: ranges.length,
      jobs_done: done.size,
      rows: t.rows,
    };
    if (failed) {
      progress.finish({
        status: 'failed',
        done: { blocks: watched.blocksSeen, events: watched.logsSeen },
        failures: 1,
        quarantined: t.quarantined,
        detail: `${failed}; ${fmt(done.size)} of ${fmt(ranges.length)} jobs done`,
        fields: { ...fields, error: failed },
      });
      return 1;
    }
    if (done.size < ranges.length && stop.signal.aborted) {
      return stopped(
        `${fmt(watched.blocksSeen)} of ${fmt(totalBlocks)} blocks, ${fmt(done.size)} of ${fmt(ranges.length)} jobs done; ` +
          'run the same command again to resume from the checkpoints',
        watched.blocksSeen,
        watched.logsSeen,
      );
    }
    progress.finish({
      status: 'done',
      done: { blocks: totalBlocks, events: t.logs },
      failures: 0,
      quarantined: t.quarantined,
      detail:
        `blocks ${fmt(from)}..${fmt(to)} (${fmt(totalBlocks)}), ${fmt(ranges.length)} jobs, ` +
        `${fmt(t.logs)} events read, ${fmt(t.rows)} rows written` +
        (t.skipped > 0
          ? `; ${fmt(t.skipped)} of the ranges were done before (skipped by their checkpoints; --force redoes them)`
          : ''),
      fields: { ...fields, skipped_jobs: t.skipped },
    });
    return 0;
  } finally {
    stop.dispose();
  }
}
