/**
 * `alpha.backfill-range`: ingests one block range of venue alpha's chain (ingest/chain/backfill.ts).
 * The job id is derived from the range, so enqueueing a range twice is harmless; a rerun of a finished
 * range is skipped by its checkpoint, and an interrupted one resumes after its last checkpoint. A range
 * it finished enqueues the runs of the products that read the chain (jobs/products.ts).
 */
import type { BackfillRangeResult } from '../../ingest/chain/backfill.ts';
import { alphaChainFor } from '../../ingest/venues/alpha/chain/runtime.ts';
import { defineJob } from '../define.ts';
import { enqueueAfterCommit } from '../products.ts';

export interface AlphaBackfillPayload {
  chainId: number;
  from: number;
  to: number;
}

export const alphaBackfillJob = defineJob<AlphaBackfillPayload, BackfillRangeResult>({
  name: 'alpha.backfill-range',
  queue: 'chain',
  jobId: (p) => `alpha-backfill:${p.chainId}:${p.from}-${p.to}`,
  attempts: 10,
  async process({ deps, job, log, signal, enqueue }) {
    const chain = alphaChainFor(deps);
    const { from, to } = job.data;
    const started = Date.now();
    const result = await chain.ingestRange(
      { from, to },
      {
        signal,
        // `{done, total, unit}` like every long job (core/progress.ts); the backfill command shows it.
        onProgress: (p) => {
          job
            .updateProgress({ done: p.blocksDone, total: to - from + 1, unit: 'blocks', ...p })
            .catch(() => {});
        },
      },
    );
    log.info({ from, to, ...result }, result.skipped ? 'Skipped finished range' : 'Backfilled range');
    // The range's mark moved (committed by this run): the products that read the chain follow
    // (analytics/products.ts): the market data recomputes the range's buckets whole, also below its
    // checkpoint; the positions, path-dependent, rewind to just below a range that lies below their checkpoint.
    if (!result.skipped) {
      await enqueueAfterCommit(
        { enqueue, deps },
        { source: 'alpha-chain', stream: 'backfill', kind: 'range', from, to },
        started,
      );
    }
    return result;
  },
});
