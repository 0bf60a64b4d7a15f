import { describe, expect, it } from 'vitest';
import { rpcLog } from '../../test/support/rpc-logs.ts';
import { JsonRpcResponseError, LogArrayReader, TxChunker } from './log-stream.ts';
import { PackedLogs } from './packed-logs.ts';
import type { RpcLog } from './types.ts';

const log = rpcLog;

/** Feeds `body` to a reader in pieces of `sizes` bytes (cycled) and returns every log it produced. */
function readInPieces(body: string, sizes: number[]): RpcLog[] {
  const bytes = Buffer.from(body, 'utf8');
  const reader = new LogArrayReader();
  const out: RpcLog[] = [];
  let at = 0;
  for (let k = 0; at < bytes.length; k++) {
    const n = sizes[k % sizes.length]!;
    out.push(...reader.push(bytes.subarray(at, at + n)));
    at += n;
  }
  out.push(...reader.end());
  return out;
}

describe('LogArrayReader', () => {
  const logs = Array.from({ length: 2500 }, (_, i) => log(i, Math.floor(i / 3)));

  it('parses a result array fed in pieces of any size, splits inside strings and arrays included', () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, result: logs });
    for (const sizes of [[1], [7, 13], [4096], [65_536], [body.length], [Math.floor(body.length * 0.9)]]) {
      expect(readInPieces(body, sizes)).toEqual(logs);
    }
  });

  it('reads the result wherever it sits among the response keys, with whitespace', () => {
    const some = logs.slice(0, 5);
    const body = `{ "result" :\n [ ${some.map((l) => JSON.stringify(l, null, 2)).join(' ,\n')} ] , "id": 1, "jsonrpc": "2.0" }`;
    expect(readInPieces(body, [3])).toEqual(some);
    expect(readInPieces(JSON.stringify({ id: 1, jsonrpc: '2.0', result: [] }), [2])).toEqual([]);
  });

  it('handles escaped quotes and backslashes inside strings split across pieces', () => {
    const odd = [log(1, 1, { data: '0x"}]{[\\' as `0x${string}` }), log(2, 1)];
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, result: odd });
    // The log is read whole; its data, which canonical JSON cannot hold, is marked (PackedLogs.of).
    const read = [
      log(1, 1, {
        data: '!data holds characters other than printable ASCII, or a quote or backslash' as `0x${string}`,
      }),
      log(2, 1),
    ];
    for (let size = 1; size < 12; size++) expect(readInPieces(body, [size])).toEqual(read);
  });

  it('throws the node error of an error response, with its code', () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32005, message: 'query returned more than 10000 results', data: { limit: [1, 2] } },
    });
    let caught: unknown;
    try {
      readInPieces(body, [5]);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(JsonRpcResponseError);
    expect((caught as JsonRpcResponseError).code).toBe(-32005);
    expect((caught as Error).message).toMatch(/more than 10000 results/);
    expect(readInPieces(JSON.stringify({ jsonrpc: '2.0', id: 1, result: null }), [4])).toEqual([]);
  });

  it('rejects a body cut short', () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, result: logs.slice(0, 10) });
    expect(() => readInPieces(body.slice(0, body.length - 30), [100])).toThrow(JsonRpcResponseError);
    expect(() => readInPieces(body.slice(0, body.length - 1), [100])).toThrow(JsonRpcResponseError);
  });

  it('parses in batches: a push returns logs before the body ends', () => {
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: logs }));
    const reader = new LogArrayReader();
    const first = reader.push(body.subarray(0, Math.floor(body.length * 0.9)));
    expect(first.length).toBeGreaterThan(1000);
    expect([...first, ...reader.push(body.subarray(Math.floor(body.length * 0.9))), ...reader.end()]).toEqual(
      logs,
    );
  });
});

describe('TxChunker', () => {
  it('cuts parts of at least the target on transaction boundaries, keeping a big transaction whole', () => {
    // Transactions of 3 logs, then one of 40, then 3 again.
    const txOf = (i: number) => (i < 30 ? Math.floor(i / 3) : i < 70 ? 100 : 200 + Math.floor(i / 3));
    const all = Array.from({ length: 100 }, (_, i) => log(i, txOf(i)));
    for (const step of [1, 4, 100]) {
      const chunker = new TxChunker(10);
      const parts: RpcLog[][] = [];
      for (let i = 0; i < all.length; i += step)
        parts.push(...chunker.add(PackedLogs.of(all.slice(i, i + step))).map((p) => p.toArray()));
      parts.push(chunker.flush().toArray());
      expect(parts.flat()).toEqual(all);
      for (let p = 1; p < parts.length; p++) {
        if (parts[p]!.length === 0) continue;
        expect(parts[p]![0]!.transactionHash).not.toBe(parts[p - 1]!.at(-1)!.transactionHash);
      }
      // At least the target, at most the target plus the rest of the transaction it ends in.
      // (Logs come out as new objects: found by their log index.)
      const holds = (p: RpcLog[], i: number) => p.some((l) => l.logIndex === all[i]!.logIndex);
      for (const p of parts.slice(0, -1)) {
        expect(p.length).toBeGreaterThanOrEqual(10);
        if (!holds(p, 30)) expect(p.length).toBeLessThanOrEqual(12);
      }
      expect(holds(parts.filter((p) => holds(p, 30))[0]!, 69)).toBe(true);
      expect(parts.length).toBeGreaterThanOrEqual(6);
    }
  });
});
