/**
 * `pmdata backfill alpha` asked again for ranges an earlier request ran (their job ids are fixed, and
 * finished jobs are kept for a day): every requested range runs now. A range whose earlier job failed is
 * run again (it used to report the old failure, exit 1, without running); a range done before runs and is
 * skipped by its checkpoint, and the summary says so with this run's figures (it used to repeat the
 * earlier run's rows as written now).
 */
import { Queue, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProgressIo } from '../core/progress.ts';
import { backfillJobId, planBackfillRanges } from '../ingest/chain/backfill.ts';
import { runBackfillCommand } from '../jobs/commands/backfill.ts';
import { alphaBackfillJob } from '../jobs/processors/alpha-backfill.ts';
import { createBullConnection } from '../jobs/queues.ts';
import type { SavedSim } from '../sim/saved.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { SHARED_WORLD, sharedWorld } from './support/world-cache.ts';

let deps: TestDeps;
let sim: SavedSim;
const BLOCKS = 20;

beforeAll(async () => {
  sim = await sharedWorld(SHARED_WORLD);
  deps = await createTestDeps('backfill_rerun', {
    env: {
      ALPHA_RPC_URLS: sim.rpcUrl,
      ALPHA_POSITION_IDS: 'simplified',
      ALPHA_START_BLOCK: '0',
      ALPHA_FINALITY_DEPTH: '0',
      ALPHA_BACKFILL_JOB_BLOCKS: String(BLOCKS),
    },
  });
}, 300_000);

afterAll(async () => {
  await sim?.stop();
  await deps?.close();
}, 60_000);

const prefix = () => `${deps.prefix}:q`;

function collect() {
  const out: string[] = [];
  const io: ProgressIo = { out: (l) => out.push(l), progress: () => {}, isTTY: false };
  return { io, out };
}

const backfill = (io: ProgressIo) =>
  runBackfillCommand(['alpha', '--to-block', String(sim.historyHead), '--quiet'], deps, {
    io,
    queuePrefix: prefix(),
  });

const fillRows = async () =>
  Number(
    (await deps.clickhouse.query<{ n: string }>('test.n', 'SELECT count() AS n FROM alpha_fills'))[0]?.n,
  );

describe('pmdata backfill alpha, asked again', () => {
  it("runs a range whose earlier job failed, instead of reporting that job's failure", async () => {
    // An earlier request's job for the first range failed (its RPC was down): a failed job with that id.
    const [first] = planBackfillRanges(0, sim.historyHead, BLOCKS);
    const id = backfillJobId('alpha', sim.chainId, first!);
    const connection = createBullConnection(deps.config.redisUrl);
    const queue = new Queue('chain', { connection, prefix: prefix() });
    const worker = new Worker(
      'chain',
      async () => {
        throw new Error('RPC unreachable (an earlier run)');
      },
      { connection: createBullConnection(deps.config.redisUrl), prefix: prefix() },
    );
    try {
      const failed = new Promise<void>((resolve) => worker.once('failed', () => resolve()));
      await queue.add(
        alphaBackfillJob.name,
        { chainId: sim.chainId, from: first!.from, to: first!.to },
        { jobId: id, attempts: 1 },
      );
      await failed;
      expect(await queue.getJobState(id)).toBe('failed');
    } finally {
      await worker.close();
      await queue.close();
      connection.disconnect();
    }

    const c = collect();
    expect(await backfill(c.io), c.out.join('\n')).toBe(0);
    expect(c.out.at(-1)).toMatch(/^alpha backfill done in [\d.]+ s: .*, [\d,]+ rows written; /);
    expect(c.out.join('\n')).not.toContain('RPC unreachable');
    expect(await fillRows()).toBeGreaterThan(0);
  }, 120_000);

  it('runs every range again: done before, each is skipped by its checkpoint, and the summary says so', async () => {
    const rows = await fillRows();
    const ranges = planBackfillRanges(0, sim.historyHead, BLOCKS).length;
    const c = collect();
    expect(await backfill(c.io), c.out.join('\n')).toBe(0);
    expect(c.out.at(-1)).toMatch(
      new RegExp(
        `^alpha backfill done in [\\d.]+ s: .*, 0 rows written; ${ranges} of the ranges were done before ` +
          '\\(skipped by their checkpoints; --force redoes them\\);',
      ),
    );
    expect(await fillRows()).toBe(rows);
  }, 120_000);
});
