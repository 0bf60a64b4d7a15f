/**
 * The API's request metrics, read the way Prometheus reads them: `GET /metrics` with the admin key on a
 * real app (chDB, redis-server). Ten requests of /v2/alpha/trades raise
 * pmdata_http_requests_total{route="/v2/alpha/trades"} by ten and its duration histogram's count by ten;
 * an unknown path counts as route="unmatched" and its URL appears nowhere; the body passes
 * `promtool check metrics` (Debian's prometheus package, installed by .ci/run).
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAdminKey } from '../core/admin-key.ts';
import { registry } from '../core/metrics.ts';
import { type ApiTestContext, addr, createApiTestContext } from './api-helpers.ts';
import { sample } from './support/metrics.ts';

describe('HTTP metrics', () => {
  let ctx: ApiTestContext;
  let adminKey: string;

  beforeAll(async () => {
    ctx = await createApiTestContext('metrics_http');
    const resolved = resolveAdminKey(ctx.deps.config);
    if (!resolved) throw new Error('embedded mode has an admin key');
    adminKey = resolved.key;
  });
  afterAll(async () => {
    await ctx?.close();
  });

  async function scrape(): Promise<string> {
    const res = await ctx.app.inject({
      url: '/metrics',
      headers: { authorization: `Bearer ${adminKey}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(registry.contentType);
    return res.body;
  }

  it('ten requests of a route raise its request counter and duration count by ten', async () => {
    const key = await ctx.key('enterprise');
    const labels = { service: 'api', route: '/v2/alpha/trades', method: 'GET' };
    const before = await scrape();
    for (let i = 0; i < 10; i++) {
      const res = await ctx.app.inject({
        url: `/v2/alpha/trades?wallet=${addr(i + 1)}&limit=5`,
        headers: { 'x-api-key': key },
      });
      expect(res.statusCode).toBe(200);
    }
    const after = await scrape();
    const requests = (t: string) => sample(t, 'pmdata_http_requests_total', { ...labels, status: '200' });
    const count = (t: string) => sample(t, 'pmdata_http_request_duration_seconds_count', labels);
    expect(requests(after) - requests(before)).toBe(10);
    expect(count(after) - count(before)).toBe(10);
    // The raw URLs (their wallets) are not labels.
    expect(after).not.toContain(addr(1));
  });

  it('counts a request no route matched as route="unmatched", never its URL', async () => {
    const labels = { service: 'api', route: 'unmatched', method: 'GET', status: '404' };
    const before = await scrape();
    const res = await ctx.app.inject({ url: '/v2/no-such-route-4711?x=1' });
    expect(res.statusCode).toBe(404);
    const after = await scrape();
    expect(
      sample(after, 'pmdata_http_requests_total', labels) -
        sample(before, 'pmdata_http_requests_total', labels),
    ).toBe(1);
    expect(after).not.toContain('no-such-route-4711');
  });

  it('answers 401 without the admin key, and to an API key', async () => {
    const key = await ctx.key('enterprise');
    expect((await ctx.app.inject({ url: '/metrics' })).statusCode).toBe(401);
    expect((await ctx.app.inject({ url: '/metrics', headers: { 'x-api-key': key } })).statusCode).toBe(401);
    expect(
      (await ctx.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${key}` } })).statusCode,
    ).toBe(401);
  });

  it('serves what promtool check metrics accepts', async () => {
    const body = await scrape();
    const check = spawnSync('promtool', ['check', 'metrics'], { input: body, encoding: 'utf8' });
    if (check.error)
      throw new Error(`promtool did not run (Debian package prometheus): ${check.error.message}`);
    expect(check.stdout + check.stderr).toBe('');
    expect(check.status).toBe(0);
    // Process metrics are there, with the prefix.
    expect(sample(body, 'pmdata_process_cpu_seconds_total')).toBeGreaterThan(0);
  });
});
