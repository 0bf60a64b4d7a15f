import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BodySink, HttpAgent, MIN_SPACE } from './http-stream.ts';

/** Collects a body; `pauseAt` pauses the reading once that many bytes arrived. */
class Collect implements BodySink {
  private readonly scratch = Buffer.alloc(MIN_SPACE * 2);
  chunks: Buffer[] = [];
  bytes = 0;
  ended = false;
  pausedAt = -1;
  constructor(private readonly pauseAt = Number.POSITIVE_INFINITY) {}
  space(): Buffer {
    return this.scratch;
  }
  wrote(at: Buffer, n: number): boolean {
    this.chunks.push(Buffer.from(at.subarray(0, n)));
    this.bytes += n;
    if (this.pausedAt < 0 && this.bytes >= this.pauseAt) {
      this.pausedAt = this.bytes;
      return false;
    }
    return true;
  }
  end(): void {
    this.ended = true;
  }
  get body(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

const payload = Buffer.from(
  Array.from({ length: 300_000 }, (_, i) => String.fromCharCode(33 + (i % 90))).join(''),
);

describe('HttpAgent', () => {
  let server: http.Server;
  let url: string;
  let connections = 0;
  const requests: { body: string; headers: http.IncomingHttpHeaders }[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        requests.push({ body, headers: req.headers });
        const mode = new URL(req.url ?? '/', 'http://x').pathname;
        if (mode === '/length') {
          res.setHeader('content-length', payload.length);
          res.end(payload);
        } else if (mode === '/chunked') {
          // Chunks of irregular sizes: the framing falls anywhere in the client's reads.
          let at = 0;
          const sizes = [1, 2, 3, 17, 4096, 65_537, 9, 100_000];
          for (let k = 0; at < payload.length; k++) {
            const n = sizes[k % sizes.length]!;
            res.write(payload.subarray(at, at + n));
            at += n;
          }
          res.end();
        } else if (mode === '/trailers') {
          res.setHeader('trailer', 'x-checksum');
          res.write(payload.subarray(0, 1000));
          res.write(payload.subarray(1000));
          res.addTrailers({ 'x-checksum': 'abc' });
          res.end();
        } else if (mode === '/empty') {
          res.setHeader('content-length', 0);
          res.end();
        } else if (mode === '/missing') {
          res.statusCode = 404;
          res.end('no such route');
        } else if (mode === '/stall') {
          res.setHeader('content-length', 100);
          res.write('partial');
        } else if (mode === '/close') {
          // No length, no chunking: the body ends with the connection.
          res.shouldKeepAlive = false;
          res.removeHeader('transfer-encoding');
          res.useChunkedEncodingByDefault = false;
          res.end(payload);
        }
      });
    });
    server.on('connection', () => connections++);
    server.keepAliveTimeout = 200;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('reads bodies with a length, chunked and ending with the connection, byte for byte', async () => {
    const agent = new HttpAgent();
    for (const path of ['/length', '/chunked', '/trailers', '/close']) {
      const sink = new Collect();
      const ex = agent.post(`${url}${path}`, '{"id":1}', sink);
      const head = await ex.head;
      await ex.done;
      expect(head.status).toBe(200);
      expect(sink.ended).toBe(true);
      expect(sink.body.equals(payload)).toBe(true);
    }
    const empty = new Collect();
    const ex = agent.post(`${url}/empty`, '{}', empty);
    await ex.done;
    expect(empty.ended).toBe(true);
    expect(empty.bytes).toBe(0);
    expect(requests.at(-1)?.headers['content-type']).toBe('application/json');
    agent.close();
  });

  it('keeps connections alive between requests, and sends again on a new one when the server closed it', async () => {
    const agent = new HttpAgent();
    const before = connections;
    for (let i = 0; i < 3; i++) await agent.post(`${url}/length`, `{"n":${i}}`, new Collect()).done;
    expect(connections - before).toBe(1);
    // Past the server's keep-alive timeout the idle connection is gone: the next request still succeeds.
    await sleep(400);
    const sink = new Collect();
    await agent.post(`${url}/length`, '{"n":3}', sink).done;
    expect(sink.body.equals(payload)).toBe(true);
    expect(requests.at(-1)?.body).toBe('{"n":3}');
    agent.close();
  });

  it('pauses a body until resumed', async () => {
    const agent = new HttpAgent();
    const sink = new Collect(1000);
    const ex = agent.post(`${url}/length`, '{}', sink);
    await ex.head;
    await sleep(100);
    expect(sink.pausedAt).toBeGreaterThan(0);
    expect(sink.bytes).toBe(sink.pausedAt);
    expect(sink.ended).toBe(false);
    ex.resume();
    await ex.done;
    expect(sink.body.equals(payload)).toBe(true);
    agent.close();
  });

  it('hands over the status of an error response, and fails on abort and on a connection refused', async () => {
    const agent = new HttpAgent();
    const sink = new Collect();
    const missing = agent.post(`${url}/missing`, '{}', sink);
    expect((await missing.head).status).toBe(404);
    await missing.done;
    expect(sink.body.toString()).toBe('no such route');

    const stalled = agent.post(`${url}/stall`, '{}', new Collect());
    await stalled.head;
    stalled.abort(new Error('given up'));
    await expect(stalled.done).rejects.toThrow('given up');

    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const refused = agent.post(`http://127.0.0.1:${port}/`, '{}', new Collect());
    await expect(refused.head).rejects.toMatchObject({ name: 'HttpRequestError' });
    agent.close();
  });
});
