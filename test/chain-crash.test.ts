/**
 * Crash safety of the alpha backfill, across real processes: a backfill SIGKILLed mid-run and then
 * restarted leaves the same tables as an uninterrupted run, and running the same backfill twice changes
 * nothing. A backfill stopped by SIGINT stops its jobs at a safe point, leaves them waiting with their
 * attempts, and its rerun leaves the same tables too. Each run is a child process with its own embedded ClickHouse (one engine per process).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { Queue } from 'bullmq';
import { type AbiEvent, encodeAbiParameters, encodeEventTopics, type Hex, pad, parseAbiItem } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { emitInBlock, installRawEmitter, type RawLogSpec } from '../ingest/chain/raw-emitter.ts';
import { createBullConnection } from '../jobs/queues.ts';
import { ALPHA_ADDRESS_SETS, allContracts } from '../schemas/abi/alpha-addresses.ts';
import { type Anvil, startTestChain } from './support/chain.ts';

const V1 = '0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E';
const CTF = '0x4D97DCd97eC945f40cF65F87097ACe5EA0476045';
const CHILD = path.join(import.meta.dirname, 'chain-crash.child.ts');

function encodeEvent(signature: string, args: Record<string, unknown>): RawLogSpec {
  const item = parseAbiItem(signature) as AbiEvent;
  const topics = encodeEventTopics({ abi: [item], eventName: item.name, args: args as never }) as Hex[];
  const nonIndexed = item.inputs.filter((i) => !i.indexed);
  return {
    topics,
    data: encodeAbiParameters(
      nonIndexed,
      nonIndexed.map((i) => args[i.name!]),
    ),
  };
}
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

describe('alpha backfill crash safety', () => {
  let anvil: Anvil;
  let head = 0;

  function env(name: string): NodeJS.ProcessEnv {
    return {
      ...process.env,
      PMDATA_DATA_DIR: path.join(inject('tmpRoot'), `crash-${name}-${process.pid}`),
      CLICKHOUSE_DATABASE: 'crash',
      REDIS_URL: inject('redisUrl'),
      LOG_LEVEL: 'silent',
      ALPHA_RPC_URLS: anvil.url,
      ALPHA_POSITION_IDS: 'simplified',
      ALPHA_FINALITY_DEPTH: '5',
      ALPHA_START_BLOCK: '1',
      ALPHA_BACKFILL_JOB_BLOCKS: '20',
      ALPHA_LOG_RANGE: '2',
      ALPHA_LOG_RANGE_MAX: '2',
      TEST_QUEUE_PREFIX: `crash-${name}-${process.pid}`,
    };
  }

  function run(name: string, args: string[], onStderr?: (line: string, child: ChildProcess) => void) {
    // `node --import tsx` (not the tsx binary, which forks): SIGKILL must hit the process doing the work.
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], {
      env: env(name),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => {
      stdout += d;
    });
    child.stderr!.on('data', (d) => {
      stderr += d;
      for (const line of String(d).split('\n')) if (line) onStderr?.(line, child);
    });
    return new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>(
      (resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })),
    );
  }

  beforeAll(async () => {
    anvil = await startTestChain();
    await installRawEmitter(
      anvil.rpc,
      allContracts(ALPHA_ADDRESS_SETS).map((c) => c.address),
    );
    for (let b = 0; b < 40; b++) {
      await emitInBlock(anvil.rpc, [
        {
          address: CTF,
          logs: [
            encodeEvent(
              'event ConditionPreparation(bytes32 indexed conditionId, address indexed oracle, bytes32 indexed questionId, uint256 outcomeSlotCount)',
              {
                conditionId: pad(`0x${(b + 1).toString(16)}`, { size: 32 }),
                oracle: addr(9),
                questionId: pad('0x01', { size: 32 }),
                outcomeSlotCount: 2n,
              },
            ),
          ],
        },
        {
          address: V1,
          logs: Array.from({ length: 5 }, (_, i) =>
            encodeEvent(
              'event OrderFilled(bytes32 indexed orderHash, address indexed maker, address indexed taker, uint256 makerAssetId, uint256 takerAssetId, uint256 makerAmountFilled, uint256 takerAmountFilled, uint256 fee)',
              {
                orderHash: pad(`0x${(b * 10 + i + 1).toString(16)}`, { size: 32 }),
                maker: addr(100 + i),
                taker: i === 4 ? V1 : addr(200),
                makerAssetId: i % 2 === 0 ? 0n : BigInt(b + 1),
                takerAssetId: i % 2 === 0 ? BigInt(b + 1) : 0n,
                makerAmountFilled: BigInt(1_000 * (i + 1)),
                takerAmountFilled: BigInt(2_000 * (b + 1)),
                fee: BigInt(i),
              },
            ),
          ),
        },
        // one malformed log per 10 blocks: quarantined identically in both runs
        ...(b % 10 === 0
          ? [{ address: CTF, logs: [{ topics: [pad('0xbad', { size: 32 })], data: '0x' as Hex }] }]
          : []),
      ]);
    }
    head = Number(await anvil.rpc<string>('eth_blockNumber'));
  }, 120_000);
  afterAll(async () => {
    await anvil?.stop();
  });

  /** The tables each run of the child printed (one `DUMP <json>` line per backfill that succeeded). */
  const dumps = (stdout: string) =>
    stdout
      .split('\n')
      .filter((l) => l.startsWith('DUMP '))
      .map((l) => JSON.parse(l.slice(5)) as Record<string, unknown[]>);

  /**
   * A stderr watcher that sends `signal` once the progress line shows the run mid-way (at least 10
   * blocks done, at least 10 left); `at()` is the line it acted on.
   */
  function signalMidRun(signal: NodeJS.Signals) {
    let sentAt = '';
    return {
      onStderr(line: string, child: ChildProcess) {
        const m = /backfill ([\d,]+)\/([\d,]+) blocks/.exec(line);
        if (!m || sentAt) return;
        const done = Number(m[1]!.replaceAll(',', ''));
        if (done >= 10 && done < head - 10) {
          sentAt = line;
          child.kill(signal);
        }
      },
      at: () => sentAt,
    };
  }

  it('SIGKILL mid-backfill then restart equals an uninterrupted run; the same backfill twice changes nothing', async () => {
    const kill = signalMidRun('SIGKILL');
    const crashed = await run('killed', ['backfill', '1', String(head)], kill.onStderr);
    expect(crashed.signal, crashed.stderr.slice(-2000)).toBe('SIGKILL');
    // The restart, and an uninterrupted run done twice, side by side.
    const [resumed, straight] = await Promise.all([
      run('killed', ['backfill', '1', String(head)]),
      run('straight', ['backfill', '1', String(head), '2']),
    ]);
    expect(resumed.code, resumed.stderr.slice(-2000)).toBe(0);
    expect(straight.code, straight.stderr.slice(-2000)).toBe(0);
    const [killedTables] = dumps(resumed.stdout);
    const [once, twice] = dumps(straight.stdout);
    expect(killedTables!.alpha_fills).toHaveLength(40 * 5);
    expect(killedTables!.quarantine).toHaveLength(4);
    for (const t of Object.keys(once!)) expect(killedTables![t], t).toEqual(once![t]);
    for (const t of Object.keys(once!)) expect(twice![t], t).toEqual(once![t]);
    expect(kill.at()).not.toBe('');
  }, 120_000);

  it('SIGINT mid-backfill: jobs stop after their page and wait with their attempts (exit 130); the rerun equals an uninterrupted run', async () => {
    const interrupt = signalMidRun('SIGINT');
    const stopped = await run('interrupted', ['backfill', '1', String(head)], interrupt.onStderr);
    expect(interrupt.at()).not.toBe('');
    expect(stopped.code, stopped.stderr.slice(-2000)).toBe(130);
    expect(stopped.stdout).toMatch(/alpha backfill stopped in [\d.]+ s: SIGINT; [\d,]+ of [\d,]+ blocks/);
    expect(stopped.stdout).not.toContain('DUMP ');

    // The stopped jobs went back to the wait list without using an attempt; none failed or was delayed.
    const connection = createBullConnection(inject('redisUrl'));
    const queue = new Queue('chain', { connection, prefix: `crash-interrupted-${process.pid}` });
    try {
      const counts = await queue.getJobCounts('wait', 'active', 'delayed', 'failed', 'completed');
      expect(counts).toMatchObject({ active: 0, delayed: 0, failed: 0 });
      expect(counts.wait).toBeGreaterThan(0);
      for (const job of await queue.getJobs(['wait'])) expect(job.attemptsMade, job.id).toBe(0);
    } finally {
      await queue.close();
      connection.disconnect();
    }

    const [resumed, straight] = await Promise.all([
      run('interrupted', ['backfill', '1', String(head)]),
      run('straight-2', ['backfill', '1', String(head)]),
    ]);
    expect(resumed.code, resumed.stderr.slice(-2000)).toBe(0);
    expect(straight.code, straight.stderr.slice(-2000)).toBe(0);
    const [after] = dumps(resumed.stdout);
    const [once] = dumps(straight.stdout);
    expect(after!.alpha_fills).toHaveLength(40 * 5);
    for (const t of Object.keys(once!)) expect(after![t], t).toEqual(once![t]);
  }, 120_000);
});
