/**
 * `pmdata follow alpha [--from-block N]`: the live follower (ingest/chain/follower.ts) in this process,
 * until SIGINT/SIGTERM. A Redis lease keeps it to one follower across all processes (the `alpha.follow`
 * job takes the same lease).
 */
import { parseArgs } from 'node:util';
import type { Deps } from '../../core/deps.ts';
import { PermanentError } from '../../core/errors.ts';
import { acquireLease } from '../../core/lease.ts';
import { createPublisher } from '../../ingest/venues/alpha/chain/publish.ts';
import { alphaChainFor } from '../../ingest/venues/alpha/chain/runtime.ts';
import { ALPHA_FOLLOW_LEASE } from '../processors/alpha-follow.ts';
import { type CliOptions, defaultIo, fmt } from './io.ts';
import { stopOnSignals } from './stop.ts';

export const FOLLOW_USAGE =
  'Usage: pmdata follow alpha [--from-block N]\n\n' +
  'Options:\n' +
  '  --from-block N  the block to start at on an empty database (default: after the last finished backfill, else ALPHA_START_BLOCK)';

/** `pmdata follow alpha`: the live follower, until SIGINT/SIGTERM (or `options.signal`). */
export async function runFollowCommand(
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
    io.out(FOLLOW_USAGE);
    return 0;
  }
  const venue = positionals[0] ?? 'alpha';
  if (venue !== 'alpha') throw new PermanentError(`follow: unknown source "${venue}" (expected alpha)`);
  const stop = stopOnSignals(options.signal);
  const lease = await acquireLease(deps.redis, ALPHA_FOLLOW_LEASE, 30_000, () => stop.abort());
  if (!lease.held) {
    stop.dispose();
    io.out('Another alpha follower is running (lease held); not starting a second one');
    return 1;
  }
  try {
    const chain = alphaChainFor(deps);
    const follower = chain.follow({
      publisher: createPublisher(deps.redis, { chainId: chain.settings.chainId }),
      fromBlock: values['from-block'] !== undefined ? Number(values['from-block']) : undefined,
    });
    io.out('Following alpha chain (Ctrl+C to stop)');
    await follower.run(stop.signal, (o) => {
      if (o.kind === 'ingested') {
        io.progress(
          `alpha follow: blocks ${fmt(o.from)}..${fmt(o.to)} (head ${fmt(o.head)}), ${fmt(o.logs)} events`,
          io.isTTY,
        );
      } else if (o.kind === 'reorg') {
        io.progress(`alpha follow: reorg of depth ${o.depth}, back to block ${fmt(o.ancestor)}`, false);
      }
    });
    return 0;
  } finally {
    stop.dispose();
    await lease.release();
  }
}
