import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type LogSource, logPages } from './source.ts';
import type { RpcLog } from './types.ts';

/** An in-memory node: `perBlock(b)` logs in block b; records the most getLogs calls in flight at once. */
function memorySource(perBlock: (b: number) => number) {
  const stats = { inFlight: 0, maxInFlight: 0, calls: 0 };
  const source = {
    counters: { requests: 0, retries: 0, logs: 0 },
    async getLogs(from: number, to: number) {
      stats.calls++;
      stats.inFlight++;
      stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
      await sleep(2);
      const logs: RpcLog[] = [];
      for (let b = from; b <= to; b++) {
        for (let i = 0; i < perBlock(b); i++) {
          logs.push({
            address: '0x01',
            topics: [],
            data: '0x',
            blockNumber: `0x${b.toString(16)}`,
            blockHash: '0x02',
            transactionHash: '0x03',
            transactionIndex: '0x0',
            logIndex: `0x${i.toString(16)}`,
          });
        }
      }
      stats.inFlight--;
      return logs;
    },
  } as unknown as LogSource;
  return { source, stats };
}

async function walk(source: LogSource, to: number) {
  const blocks: number[] = [];
  let logs = 0;
  for await (const page of logPages(source, 0, to, {
    addresses: ['0x01'],
    initialRange: 1,
    maxRange: 64,
    concurrency: 4,
    targetLogsPerPage: 100,
  })) {
    for (let b = page.from; b <= page.to; b++) blocks.push(b);
    logs += page.logs.length;
  }
  return { blocks, logs };
}

describe('logPages', () => {
  it('keeps `concurrency` requests in flight over sparse blocks, every block once and in order', async () => {
    const { source, stats } = memorySource(() => 1);
    const { blocks, logs } = await walk(source, 999);
    expect(blocks).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect(logs).toBe(1000);
    expect(stats.maxInFlight).toBe(4);
  });

  it('fetches one page at a time when a single block holds more logs than the target', async () => {
    // Blocks of 500 logs (5 × target): the range cannot shrink below a block, so in-flight pages do.
    const { source, stats } = memorySource(() => 500);
    const { blocks, logs } = await walk(source, 39);
    expect(blocks).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(logs).toBe(40 * 500);
    expect(stats.maxInFlight).toBe(1);
  });
});
