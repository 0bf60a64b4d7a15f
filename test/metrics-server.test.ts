/**
 * The worker's and scheduler's metrics server (METRICS_PORT, core/metrics-server.ts) on real sockets:
 * `/health` 200 `{status, role}` while Redis and ClickHouse answer, 503 naming Redis once its
 * redis-server (one of this test's own) is stopped; `/metrics` 401 without the admin key, 200 with it;
 * cluster mode without PMDATA_ADMIN_KEY: `/metrics` 404. The stream role's own server serves
 * `/metrics` the same way.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startStream } from '../api/stream/run.ts';
import { resolveAdminKey } from '../core/admin-key.ts';
import { createLogger } from '../core/logger.ts';
import { registry } from '../core/metrics.ts';
import { startMetricsServer } from '../core/metrics-server.ts';
import { freePort } from '../core/net.ts';
import { createRedis } from '../core/redis.ts';
import { startRedisServer } from '../core/redis-server.ts';
import { createTestDeps, type TestDeps, testConfig } from './support/deps.ts';
import { sample } from './support/metrics.ts';

describe('metrics server', () => {
  let deps: TestDeps;
  let adminKey: string;

  beforeAll(async () => {
    deps = await createTestDeps('metrics_server');
    adminKey = resolveAdminKey(deps.config)!.key;
  });
  afterAll(async () => {
    await deps?.close();
  });

  it('GET /health: 200 with the role, 503 naming Redis once Redis is down', async () => {
    const log = createLogger({ level: 'silent' });
    const own = await startRedisServer({
      port: await freePort(),
      dir: path.join(inject('tmpRoot'), `redis-metrics-server-${process.pid}`),
      log,
      persistent: false,
    });
    const redis = createRedis(own.url, { maxRetriesPerRequest: 1 });
    redis.on('error', () => {});
    const server = await startMetricsServer({ ...deps, redis }, { role: 'worker', port: 0 });
    try {
      await redis.ping();
      const ok = await fetch(`${server!.url}/health`);
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({ status: 'ok', role: 'worker' });

      await own.stop();
      const t0 = performance.now();
      const down = await fetch(`${server!.url}/health`);
      expect(down.status).toBe(503);
      expect(await down.json()).toEqual({ status: 'unavailable', role: 'worker', unreachable: ['redis'] });
      // Within the ping's short timeout, not Redis' reconnection schedule.
      expect(performance.now() - t0).toBeLessThan(3000);
    } finally {
      await server?.close();
      redis.disconnect();
      await own.stop();
    }
  });

  it('GET /metrics: 401 without the admin key, the registry with it', async () => {
    const server = await startMetricsServer(deps, { role: 'scheduler', port: 0 });
    try {
      const refused = await fetch(`${server!.url}/metrics`);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Basic realm="pmdata admin"');
      const wrong = await fetch(`${server!.url}/metrics`, {
        headers: { authorization: `Bearer ${'x'.repeat(adminKey.length)}` },
      });
      expect(wrong.status).toBe(401);
      const basic = Buffer.from(`prometheus:${adminKey}`).toString('base64');
      const res = await fetch(`${server!.url}/metrics`, { headers: { authorization: `Basic ${basic}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(registry.contentType);
      const body = await res.text();
      expect(sample(body, 'pmdata_process_cpu_seconds_total')).toBeGreaterThan(0);
      expect(body).toContain('# TYPE pmdata_job_failures_total counter');
      expect((await fetch(`${server!.url}/other`)).status).toBe(404);
    } finally {
      await server?.close();
    }
  });

  it('cluster mode without PMDATA_ADMIN_KEY: /metrics is not served (404), /health is', async () => {
    const cluster = testConfig('metrics_server', { CLICKHOUSE_URL: 'http://127.0.0.1:1' });
    expect(resolveAdminKey(cluster)).toBeNull();
    const server = await startMetricsServer({ ...deps, config: cluster }, { role: 'worker', port: 0 });
    try {
      expect((await fetch(`${server!.url}/metrics`)).status).toBe(404);
      expect((await fetch(`${server!.url}/health`)).status).toBe(200);
    } finally {
      await server?.close();
    }
  });

  it('METRICS_PORT=0 starts no server', async () => {
    const config = testConfig('metrics_server', { METRICS_PORT: '0' });
    expect(await startMetricsServer({ ...deps, config }, { role: 'worker' })).toBeNull();
  });

  it('the stream role’s own server serves /metrics behind the admin key', async () => {
    const config = testConfig('metrics_server', { STREAM_PORT: '0' });
    const stream = await startStream({ ...deps, config });
    try {
      const base = stream.url.replace('ws://', 'http://');
      expect((await fetch(`${base}/metrics`)).status).toBe(401);
      const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${adminKey}` } });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('# TYPE pmdata_stream_connections gauge');
      expect((await fetch(`${base}/health`)).status).toBe(200);
      // A stream path without a key, asked over plain HTTP: 401 with the general body, as on a handshake.
      for (const path of ['/v1', '/v1/']) {
        const noKey = await fetch(`${base}${path}`);
        expect(noKey.status, path).toBe(401);
        expect(await noKey.json()).toEqual({
          error: 'Unauthorized',
          message: expect.stringContaining('/v1/<API key>'),
        });
      }
    } finally {
      await stream.close();
    }
  });
});
