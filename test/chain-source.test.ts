/**
 * The log source against a real anvil behind a real HTTP proxy that behaves like a public RPC
 * provider: it refuses log ranges wider than 4 blocks ("query returned more than 10000 results"),
 * answers every third request with HTTP 429, and the first configured URL is dead. The pages must
 * still hold exactly the node's logs, in order, and the headers must arrive in JSON-RPC batches.
 * A dense block (more logs than a page's target) is read as a stream and handed over in parts cut on
 * transaction boundaries, even when the proxy drops the connection in the middle of its body.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AbiEvent, encodeAbiParameters, encodeEventTopics, type Hex, parseAbiItem } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../core/logger.ts';
import { freePort } from '../core/net.ts';
import { emitInBlock, installRawEmitter, type RawLogSpec } from '../ingest/chain/raw-emitter.ts';
import { createLogSource, logPages } from '../ingest/chain/source.ts';
import { type Anvil, startTestChain } from './support/chain.ts';

const CTF = '0x4D97DCd97eC945f40cF65F87097ACe5EA0476045';

function transferSingle(i: number): RawLogSpec {
  const item = parseAbiItem(
    'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  ) as AbiEvent;
  const addr = `0x${i.toString(16).padStart(40, '0')}`;
  return {
    topics: encodeEventTopics({
      abi: [item],
      eventName: 'TransferSingle',
      args: { operator: addr, from: addr, to: addr } as never,
    }) as Hex[],
    data: encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [BigInt(i), BigInt(i * 10)]),
  };
}

describe('alpha log source', () => {
  let anvil: Anvil;
  let proxy: http.Server;
  let proxyUrl: string;
  const seen = { getLogs: 0, refused: 0, throttled: 0, batches: 0, batchSizes: [] as number[], cut: 0 };
  /** The dense block: 6 transactions of 40 logs each. */
  let dense = 0;

  beforeAll(async () => {
    anvil = await startTestChain();
    await installRawEmitter(anvil.rpc, [CTF]);
    for (let b = 0; b < 30; b++) {
      await emitInBlock(anvil.rpc, [
        { address: CTF, logs: Array.from({ length: 3 }, (_, i) => transferSingle(b * 3 + i + 1)) },
      ]);
    }
    dense = await emitInBlock(
      anvil.rpc,
      Array.from({ length: 6 }, (_, t) => ({
        address: CTF,
        logs: Array.from({ length: 40 }, (_, i) => transferSingle(1000 + t * 40 + i)),
      })),
    );
    let n = 0;
    proxy = http.createServer(async (req, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      const parsed = JSON.parse(body) as
        | { method: string; params: { fromBlock: string; toBlock: string }[]; id: number }
        | unknown[];
      if (++n % 3 === 0) {
        seen.throttled++;
        res.writeHead(429).end('rate limited');
        return;
      }
      if (Array.isArray(parsed)) {
        seen.batches++;
        seen.batchSizes.push(parsed.length);
      } else if (parsed.method === 'eth_getLogs') {
        seen.getLogs++;
        const f = parsed.params[0]!;
        if (Number(f.toBlock) - Number(f.fromBlock) + 1 > 4) {
          seen.refused++;
          res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: parsed.id,
              error: { code: -32005, message: 'query returned more than 10000 results' },
            }),
          );
          return;
        }
      }
      const upstream = await fetch(anvil.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      const text = await upstream.text();
      // The first read of the dense block loses its connection after 60 % of the body.
      if (
        !Array.isArray(parsed) &&
        parsed.method === 'eth_getLogs' &&
        text.length > 50_000 &&
        seen.cut++ === 0
      ) {
        res.writeHead(upstream.status, { 'content-type': 'application/json' });
        res.write(text.slice(0, Math.floor(text.length * 0.6)));
        setTimeout(() => res.destroy(), 20);
        return;
      }
      res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => proxy?.close(r));
    await anvil?.stop();
  });

  it('shrinks refused ranges, retries throttled requests, falls back past a dead URL and batches headers', async () => {
    Object.assign(seen, { getLogs: 0, refused: 0, throttled: 0, batches: 0, batchSizes: [], cut: 0 });
    const dead = `http://127.0.0.1:${await freePort()}`;
    const source = createLogSource({
      urls: [dead, proxyUrl],
      log: createLogger({ level: 'silent' }),
      backoffMs: 5,
      maxAttempts: 8,
    });
    const head = await source.headNumber();
    const pages = [];
    for await (const page of logPages(source, 0, head, {
      addresses: [CTF.toLowerCase()],
      initialRange: 16,
      maxRange: 64,
      concurrency: 3,
      targetLogsPerPage: 50,
    })) {
      pages.push(page);
    }
    // Pages tile [0, head] in order; the dense block's page comes in parts.
    const parts = pages.filter((p) => p.from <= dense && dense <= p.to);
    expect(parts.length).toBeGreaterThan(2);
    expect(parts.map((p) => p.final)).toEqual([...parts.slice(1).map(() => false), true]);
    for (let i = 1; i < parts.length; i++) {
      if (parts[i]!.logs.length === 0) continue;
      const prev = parts[i - 1]!.logs;
      expect(parts[i]!.logs.transactionHash(0)).not.toBe(prev.transactionHash(prev.length - 1));
    }
    expect(seen.cut).toBeGreaterThan(1);
    const finals = pages.filter((p) => p.final);
    expect(finals[0]!.from).toBe(0);
    for (let i = 1; i < finals.length; i++) expect(finals[i]!.from).toBe(finals[i - 1]!.to + 1);
    expect(finals.at(-1)!.to).toBe(head);
    const got = pages.flatMap((p) => p.logs.toArray());
    const direct = await anvil.rpc<unknown[]>('eth_getLogs', [
      { fromBlock: '0x0', toBlock: `0x${head.toString(16)}`, address: CTF },
    ]);
    expect(got).toEqual(direct);
    expect(got).toHaveLength(90 + 240);
    expect(seen.refused).toBeGreaterThan(0);
    expect(seen.throttled).toBeGreaterThan(0);
    expect(source.counters.retries).toBeGreaterThan(0);

    const blocks = Array.from({ length: head + 1 }, (_, i) => i);
    const headers = await source.getHeaders(blocks);
    expect(headers.size).toBe(head + 1);
    for (let i = 1; i <= head; i++) expect(headers.get(i)!.parentHash).toBe(headers.get(i - 1)!.hash);
    expect(Math.max(...seen.batchSizes)).toBeGreaterThan(1);
  });
});
