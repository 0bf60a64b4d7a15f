import { describe, expect, it } from 'vitest';
import { rpcLog } from '../../test/support/rpc-logs.ts';
import { JsonRpcResponseError } from './log-stream.ts';
import { HttpStatusError, SlabLogReader, type SlabPart } from './slab-reader.ts';
import { SlabPool } from './slabs.ts';
import type { RpcLog } from './types.ts';

/** Logs of two topics and 1–4 data words, 40 transactions a block. */
function log(i: number, tx: number): RpcLog {
  return rpcLog(i, tx, {
    topics: [`0x${i.toString(16).padStart(64, '0')}`, `0x${'0'.repeat(24)}${'ab'.repeat(20)}`],
    data: `0x${(i * 7).toString(16).padStart(64, '0')}${'0'.repeat(64 * (i % 4))}`,
    blockNumber: `0x${(16 + Math.floor(tx / 40)).toString(16)}`,
  });
}

/** Logs in transactions of 1–40 logs, and one of `giant` logs after the first third. */
function chainLogs(n: number, giant = 0): RpcLog[] {
  const out: RpcLog[] = [];
  let tx = 0;
  let left = 0;
  for (let i = 0; out.length < n; i++) {
    if (left === 0) {
      tx++;
      left = out.length > n / 3 && giant > 0 ? giant : 1 + ((i * 7919) % 40);
      if (left === giant) giant = 0;
    }
    out.push(log(i, tx));
    left--;
  }
  return out;
}

/**
 * Reads `body` as the socket would hand it over (pieces of `sizes` bytes, cycled, each written into the
 * reader's space); the first pull comes before any byte unless `pullFirst` is false.
 */
async function read(
  reader: SlabLogReader,
  body: string,
  sizes: number[],
  pullFirst = true,
): Promise<SlabPart[]> {
  const bytes = Buffer.from(body, 'utf8');
  const parts: SlabPart[] = [];
  const first = pullFirst ? reader.next() : undefined;
  let at = 0;
  for (let k = 0; at < bytes.length; k++) {
    const space = reader.space();
    const n = Math.min(sizes[k % sizes.length]!, bytes.length - at, space.length);
    bytes.copy(space, 0, at, at + n);
    reader.wrote(space, n);
    at += n;
  }
  reader.end();
  if (first) {
    const p = await first;
    if (p) parts.push(p);
  }
  for (let p = await reader.next(); p; p = await reader.next()) parts.push(p);
  return parts;
}

const all = (parts: SlabPart[]) => parts.flatMap((p) => p.logs.toArray());
const body = (logs: RpcLog[]) => JSON.stringify({ jsonrpc: '2.0', id: 7, result: logs });

describe('SlabLogReader', () => {
  it('reads a body in pieces of any size into pages of at least the target, ending on transactions', async () => {
    const logs = chainLogs(3000);
    for (const sizes of [[1, 7, 13], [4096], [65_536], [100_000]]) {
      const parts = await read(new SlabLogReader(new SlabPool(), 500, 1 << 30), body(logs), sizes);
      expect(all(parts)).toEqual(logs);
      expect(parts.at(-1)?.last).toBe(true);
      for (const [k, p] of parts.entries()) {
        if (k < parts.length - 1) expect(p.last).toBe(false);
        if (k < parts.length - 1) expect(p.logs.length).toBeGreaterThanOrEqual(500);
        const next = parts[k + 1];
        if (next && p.logs.length > 0 && next.logs.length > 0) {
          expect(p.logs.transactionHash(p.logs.length - 1)).not.toBe(next.logs.transactionHash(0));
        }
      }
    }
  });

  it('moves on to new slabs mid-body, carrying the last transaction, and grows for one larger than a slab', async () => {
    const pool = new SlabPool(256 * 1024, 4);
    const logs = chainLogs(6000, 1200);
    const parts = await read(new SlabLogReader(pool, 300, 1 << 30), body(logs), [65_536]);
    expect(all(parts)).toEqual(logs);
    // Every page lies in one slab and ends on a transaction boundary (the giant one stays whole).
    for (let k = 0; k + 1 < parts.length; k++) {
      const p = parts[k]!.logs;
      const q = parts[k + 1]!.logs;
      if (p.length && q.length) expect(p.transactionHash(p.length - 1)).not.toBe(q.transactionHash(0));
    }
    const giant = parts.find((p) => p.logs.length >= 1200);
    expect(giant).toBeDefined();
    expect(pool.counters.made).toBeGreaterThan(2);
  });

  it('gives a slab back once every page cut from it is released, and never reuses one a page holds', async () => {
    const pool = new SlabPool(256 * 1024, 8);
    const first = chainLogs(2000);
    const held = await read(new SlabLogReader(pool, 200, 1 << 30), body(first), [65_536]);
    const madeAfterFirst = pool.counters.made;
    // Held pages: a second body must not be read into their slabs.
    const second = chainLogs(2000).map((l) => ({ ...l, data: `0x${'ee'.repeat(64)}` as `0x${string}` }));
    const other = await read(new SlabLogReader(pool, 200, 1 << 30), body(second), [65_536]);
    expect(all(held)).toEqual(first);
    expect(all(other)).toEqual(second);
    expect(pool.counters.reused).toBe(0);
    // Released: the next body reuses them.
    for (const p of [...held, ...other]) {
      p.logs.release();
      p.logs.release();
    }
    const third = await read(new SlabLogReader(pool, 200, 1 << 30), body(first), [65_536]);
    expect(all(third)).toEqual(first);
    expect(pool.counters.reused).toBeGreaterThan(0);
    expect(pool.counters.made).toBeLessThanOrEqual(madeAfterFirst * 2);
    // A slice holds no lease: releasing it leaves the page's slab held.
    const slice = third[0]!.logs.slice(1);
    slice.release();
    expect(third[0]!.logs.toArray()).toEqual(first.slice(0, third[0]!.logs.length));
  });

  it('reads a body that ended before its first pull into memory of its own size', async () => {
    const pool = new SlabPool();
    const logs = chainLogs(50);
    const parts = await read(new SlabLogReader(pool, 500, 1 << 30), body(logs), [65_536], false);
    expect(all(parts)).toEqual(logs);
    expect(pool.counters.made).toBe(0);
  });

  it('goes on through the JSON.parse path from the first page not handed out when a log has another key or an escape', async () => {
    // The JSON.parse path packs the logs again as canonical JSON: another key is left out, a value the
    // fast parse cannot hold is marked (PackedLogs.of) and its log quarantined when mapped.
    const logs = chainLogs(3000);
    const withKey = { ...logs[2100]!, extra: 1 };
    const parts = await read(
      new SlabLogReader(new SlabPool(256 * 1024), 400, 1 << 30),
      body([...logs.slice(0, 2100), withKey as RpcLog, ...logs.slice(2101)]),
      [65_536],
    );
    expect(all(parts)).toEqual(logs);
    expect(parts.at(-1)?.last).toBe(true);
    // The same while the bytes read before the first pull are taken in.
    const early = chainLogs(400);
    early[150] = { ...early[150]!, data: '0x"\\}' as `0x${string}` };
    const late = await read(new SlabLogReader(new SlabPool(), 50, 1 << 30, 50), body(early), [4096], false);
    early[150] = {
      ...early[150]!,
      data: '!data holds characters other than printable ASCII, or a quote or backslash' as `0x${string}`,
    };
    expect(all(late)).toEqual(early);
  });

  it('throws the node error, returns nothing for a null result, and rejects a body cut short', async () => {
    const err = JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32005, message: 'too many logs' } });
    const failing = read(new SlabLogReader(new SlabPool(), 100, 1 << 30), err, [5]);
    await expect(failing).rejects.toBeInstanceOf(JsonRpcResponseError);
    await expect(failing).rejects.toMatchObject({ code: -32005 });
    const none = await read(new SlabLogReader(new SlabPool(), 100, 1 << 30), '{"id":1,"result":null}', [3]);
    expect(all(none)).toEqual([]);
    const cut = body(chainLogs(10));
    await expect(
      read(new SlabLogReader(new SlabPool(), 100, 1 << 30), cut.slice(0, cut.length - 40), [64]),
    ).rejects.toBeInstanceOf(JsonRpcResponseError);
  });

  it('keeps the body of a response whose status is not 2xx as the error text', async () => {
    const reader = new SlabLogReader(new SlabPool(), 100, 1 << 30);
    reader.head({ status: 429, headers: new Map() });
    const failing = read(reader, 'rate limited, slow down', [4]);
    await expect(failing).rejects.toBeInstanceOf(HttpStatusError);
    await expect(failing).rejects.toMatchObject({ status: 429, message: 'HTTP 429 rate limited, slow down' });
  });

  it('pauses once the pages waiting for the puller pass the cap, and asks to go on as they are pulled', async () => {
    const reader = new SlabLogReader(new SlabPool(), 100, 50_000);
    let drained = 0;
    reader.onDrain = () => drained++;
    const first = reader.next();
    const bytes = Buffer.from(body(chainLogs(2000)));
    let paused = false;
    let at = 0;
    while (at < bytes.length && !paused) {
      const space = reader.space();
      const n = Math.min(8192, bytes.length - at);
      bytes.copy(space, 0, at, at + n);
      paused = !reader.wrote(space, n);
      at += n;
    }
    expect(paused).toBe(true);
    expect(at).toBeLessThan(bytes.length);
    const before = drained;
    await first;
    for (let k = 0; k < 100 && drained === before; k++) await reader.next();
    expect(drained).toBeGreaterThan(before);
  });
});
