import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../api/server.ts';
import { TEST_SECRET } from './api-helpers.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

let deps: TestDeps;

beforeAll(async () => {
  deps = await createTestDeps('api_server', {
    env: { PORT: '0', REQUEST_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '1000', KEEP_ALIVE_TIMEOUT_MS: '5000' },
  });
});
afterAll(async () => deps?.close());

const slowRoutes = async (app: import('fastify').FastifyInstance) => {
  app.get('/v2/alpha/test-slow', async (request) => {
    const ms = Number((request.query as { ms?: string }).ms ?? 300);
    await new Promise((r) => setTimeout(r, ms));
    return { slept: ms };
  });
};

describe('startServer', () => {
  it('listens on HOST:PORT with the configured socket timeouts and answers /health', async () => {
    const server = await startServer({ ...deps, secret: TEST_SECRET });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${server.url}/health`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'healthy' });
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await server.close();
    }
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  });

  it('lets an in-flight request finish on close, then stops accepting', async () => {
    const { createKeyStore } = await import('../api/keys/store.ts');
    const { key } = await createKeyStore(deps.redis).create({ tier: 'pro', name: 'server' });
    const server = await startServer({ ...deps, secret: TEST_SECRET, extraRoutes: [slowRoutes] });
    const inflight = fetch(`${server.url}/v2/alpha/test-slow?ms=400`, { headers: { 'x-api-key': key } });
    await new Promise((r) => setTimeout(r, 100));
    const closed = server.close();
    const res = await inflight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ slept: 400 });
    await closed;
  });

  it('answers a request that outlives REQUEST_TIMEOUT_MS with 503 and no internals', async () => {
    const { createKeyStore } = await import('../api/keys/store.ts');
    const { key } = await createKeyStore(deps.redis).create({ tier: 'pro', name: 'timeout' });
    const server = await startServer({ ...deps, secret: TEST_SECRET, extraRoutes: [slowRoutes] });
    try {
      const res = await fetch(`${server.url}/v2/alpha/test-slow?ms=1600`, { headers: { 'x-api-key': key } });
      expect(res.status).toBe(503);
      const body = await res.json();
      expect(body).toEqual({ error: 'Service Unavailable', message: expect.stringMatching(/retry/) });
      expect(JSON.stringify(body)).not.toMatch(/FST_|handlerTimeout|test-slow/);
      expect(res.headers.get('retry-after')).toBe('1');
    } finally {
      await server.close();
    }
  });

  it('answers 503 with Retry-After, not 500, while Redis (keys and limits) is unreachable', async () => {
    const { buildApp } = await import('../api/app.ts');
    const { createRedis } = await import('../core/redis.ts');
    const dead = createRedis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    dead.on('error', () => {});
    const app = await buildApp({ ...deps, redis: dead, secret: TEST_SECRET });
    try {
      const res = await app.inject({
        method: 'GET',
        url: '/v2/alpha/trades',
        headers: { 'x-api-key': 'pmd_x' },
      });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ error: 'Service Unavailable', message: expect.stringMatching(/retry/) });
      expect(res.body).not.toMatch(/Redis|ECONNREFUSED|127\.0\.0\.1/);
      expect(res.headers['retry-after']).toBe('1');
      expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    } finally {
      await app.close();
      dead.disconnect();
    }
  });
});
