import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { PackedLogs } from './packed-logs.ts';
import { type LogPart, type LogSource, type LogStream, logPages } from './source.ts';
import type { RpcLog } from './types.ts';

/** `perBlock(b)` logs in each block b of [from, to], one transaction per log. */
function blockLogs(from: number, to: number, perBlock: (b: number) => number): RpcLog[] {
  const logs: RpcLog[] = [];
  for (let b = from; b <= to; b++) {
    for (let i = 0; i < perBlock(b); i++) {
      logs.push({
        address: '0x01',
        topics: [],
        data: '0x',
        blockNumber: `0x${b.toString(16)}`,
        blockHash: '0x02',
        transactionHash: `0x${b.toString(16)}${i.toString(16).padStart(6, '0')}`,
        transactionIndex: '0x0',
        logIndex: `0x${i.toString(16)}`,
      });
    }
  }
  return logs;
}

/**
 * A streaming node like anvil: a request is built (`buildMs`) before its head is answered with the
 * body's length (800 bytes a log); the body is then read in parts as they are pulled. Records every
 * request, how many the node builds at once, how many were sent but not yet read, and which were closed.
 */
function streamingSource(perBlock: (b: number) => number, buildMs = 1) {
  const stats = {
    requests: [] as { from: number; to: number; done: boolean; closed: boolean }[],
    building: 0,
    maxBuilding: 0,
    unread: 0,
    maxUnread: 0,
    /** Logs of the ranges answered and not yet read. */
    waiting: 0,
    maxWaiting: 0,
  };
  const source = {
    counters: { requests: 0, retries: 0, logs: 0 },
    getLogs() {
      throw new Error('a streaming source is read with streamLogs');
    },
    async getHeaders() {
      return new Map();
    },
    streamLogs(from: number, to: number, _a: unknown, _t: unknown, partLogs: number): LogStream {
      const request = { from, to, done: false, closed: false };
      stats.requests.push(request);
      stats.building++;
      stats.maxBuilding = Math.max(stats.maxBuilding, stats.building);
      stats.unread++;
      stats.maxUnread = Math.max(stats.maxUnread, stats.unread);
      const logs = blockLogs(from, to, perBlock);
      let read = false;
      const answered = sleep(buildMs).then(() => {
        stats.building--;
        if (!read) stats.waiting += logs.length;
        stats.maxWaiting = Math.max(stats.maxWaiting, stats.waiting);
        return { bytes: 20 + logs.length * 800 };
      });
      async function* parts(): AsyncGenerator<LogPart> {
        await answered;
        read = true;
        stats.unread--;
        stats.waiting -= logs.length;
        for (let i = 0; i + partLogs < logs.length; i += partLogs) {
          await sleep(0);
          yield { logs: PackedLogs.of(logs.slice(i, i + partLogs)), last: false };
        }
        const rest = logs.length % partLogs || Math.min(partLogs, logs.length);
        request.done = true;
        yield { logs: PackedLogs.of(logs.slice(logs.length - rest)), last: true };
      }
      const gen = parts();
      const close = gen.return.bind(gen);
      return Object.assign(gen, {
        answered,
        return(value: undefined) {
          request.closed = true;
          if (!read) {
            read = true;
            stats.unread--;
            void answered.then(() => (stats.waiting -= logs.length));
          }
          return close(value);
        },
      }) as LogStream;
    },
  } as unknown as LogSource;
  return { source, stats };
}

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
      const logs = blockLogs(from, to, perBlock);
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

describe('logPages over a streaming node', () => {
  const options = {
    addresses: ['0x01'],
    initialRange: 1,
    maxRange: 16,
    concurrency: 2,
    targetLogsPerPage: 100,
  };

  it('requests pages ahead of the one being read, the node building at most `concurrency` at once', async () => {
    const { source, stats } = streamingSource(() => 10);
    const blocks: number[] = [];
    let logs = 0;
    for await (const page of logPages(source, 0, 599, options)) {
      if (page.final) for (let b = page.from; b <= page.to; b++) blocks.push(b);
      logs += page.logs.length;
      // A consumer slower than the node: the node keeps answering ranges meanwhile.
      await sleep(3);
    }
    expect(blocks).toEqual(Array.from({ length: 600 }, (_, i) => i));
    expect(logs).toBe(6000);
    expect(stats.maxBuilding).toBe(2);
    // Answered, unread ranges wait in the node for their turn: more than `concurrency` of them.
    expect(stats.maxUnread).toBeGreaterThan(4);
    expect(stats.requests.every((r) => r.done && !r.closed)).toBe(true);
  });

  it('bounds the requests ahead by the logs their answers announce', async () => {
    const walk = async (aheadLogs: number | undefined) => {
      const { source, stats } = streamingSource(() => 10);
      for await (const _page of logPages(source, 0, 599, { ...options, aheadLogs })) await sleep(3);
      return stats.maxWaiting;
    };
    // Ranges of 80 logs (8 blocks: the size stops doubling at a quarter of the target): once 250 logs
    // wait, no range is requested, and the (at most 2) ranges being built add theirs.
    expect(await walk(250)).toBeLessThanOrEqual(250 + 2 * 80);
    expect(await walk(undefined)).toBeGreaterThan(250 + 2 * 80);
  });

  it("shrinks the next ranges as soon as an answer's length shows a dense range, before it is read", async () => {
    // Blocks 0-99 hold 1 log, blocks 100+ hold 400 (4 × the target).
    const { source, stats } = streamingSource((b) => (b < 100 ? 1 : 400));
    let logs = 0;
    for await (const page of logPages(source, 0, 199, options)) {
      logs += page.logs.length;
      await sleep(3);
    }
    expect(logs).toBe(100 + 100 * 400);
    const denseWide = stats.requests.filter((r) => r.to >= 100 && r.to > r.from);
    // Only the ranges the node was building when the first dense answer came can span several blocks.
    expect(denseWide.length).toBeLessThanOrEqual(options.concurrency);
    expect(stats.requests.filter((r) => r.from >= 100 && r.from === r.to).length).toBeGreaterThan(50);
  });

  it('closes every stream requested ahead when the walk stops early', async () => {
    const { source, stats } = streamingSource(() => 10);
    let pages = 0;
    for await (const _page of logPages(source, 0, 599, options)) {
      await sleep(5);
      if (++pages === 5) break;
    }
    expect(stats.requests.length).toBeGreaterThan(6);
    expect(stats.requests.every((r) => r.done || r.closed)).toBe(true);
    expect(stats.unread).toBe(0);
  });
});
