/**
 * `alpha.follow`: runs the live follower of venue alpha's chain (ingest/chain/follower.ts) for up to
 * `maxRunMs`, then completes; a scheduler re-enqueues it, so a crashed worker's follower is picked up by
 * another within one interval. A Redis lease keeps it to one follower across all processes: a run that
 * finds the lease taken completes at once.
 */
import { acquireLease } from '../../core/lease.ts';
import { createPublisher } from '../../ingest/venues/alpha/chain/publish.ts';
import { alphaChainFor } from '../../ingest/venues/alpha/chain/runtime.ts';
import { defineJob } from '../define.ts';

export const ALPHA_FOLLOW_LEASE = 'alpha:follow:lease';

export const alphaFollowJob = defineJob<{ maxRunMs?: number }, { ran: boolean; ticks: number }>({
  name: 'alpha.follow',
  queue: 'chain',
  attempts: 1,
  async process({ deps, job, log, signal }) {
    const lease = await acquireLease(deps.redis, ALPHA_FOLLOW_LEASE, 30_000);
    if (!lease.held) return { ran: false, ticks: 0 };
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal.addEventListener('abort', onAbort);
    const timer = setTimeout(() => stop.abort(), job.data.maxRunMs ?? 5 * 60_000);
    let ticks = 0;
    try {
      const chain = alphaChainFor(deps);
      const follower = chain.follow({
        log,
        publisher: createPublisher(deps.redis, { chainId: chain.settings.chainId }),
      });
      await follower.run(stop.signal, () => {
        ticks++;
      });
      return { ran: true, ticks };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      await lease.release();
    }
  },
});
