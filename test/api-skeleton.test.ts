import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickHouseQueryError } from '../core/errors.ts';
import { type ApiTestContext, createApiTestContext } from './api-helpers.ts';

let t: ApiTestContext;

beforeAll(async () => {
  t = await createApiTestContext('api_skeleton', {
    env: { REMOVED_VENUES: 'zeta', CORS_ORIGINS: '*' },
    extraRoutes: [
      // A route that fails the way a real one can: a ClickHouse error whose text names SQL.
      async (app) => {
        app.get('/v2/alpha/test-failure', async () => {
          throw new ClickHouseQueryError('trades.page', {
            code: '62',
            message: 'Syntax error: SELECT secret_column FROM fills WHERE maker = 0xabc',
          });
        });
        app.get(
          '/v2/alpha/test-validated',
          {
            schema: {
              querystring: Type.Object({
                limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
                order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
              }),
            },
          },
          async (request) => ({ query: request.query }),
        );
      },
    ],
  });
});
afterAll(async () => t?.close());

describe('API skeleton', () => {
  it('answers /health with 200 {"status":"healthy"} without a key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'healthy' });
    expect(res.headers['ratelimit-limit']).toBeUndefined();
  });

  it('never rate limits /health', async () => {
    const codes = await Promise.all(
      Array.from({ length: 30 }, () =>
        t.app.inject({ method: 'GET', url: '/health' }).then((r) => r.statusCode),
      ),
    );
    expect(new Set(codes)).toEqual(new Set([200]));
  });

  it('answers an unknown route with a JSON 404 {error:"Not Found", message}', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/no/such/route?x=1' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json();
    expect(body).toEqual({ error: 'Not Found', message: expect.stringContaining('/no/such/route') });
  });

  it('answers a schema violation with 422 whose detail[].loc names the field', async () => {
    const key = await t.key('pro');
    const res = await t.app.inject({
      method: 'GET',
      url: '/v2/alpha/test-validated?limit=500&order=sideways',
      headers: { 'x-api-key': key },
    });
    expect(res.statusCode).toBe(422);
    const body = res.json() as { detail: { loc: unknown[]; msg: string; type: string }[] };
    expect(body.detail).toContainEqual({
      loc: ['query', 'limit'],
      msg: 'Input should be less than or equal to 200',
      type: 'less_than_equal',
    });
    expect(body.detail.some((d) => d.loc.join('.') === 'query.order')).toBe(true);
    expect(res.headers['ratelimit-limit']).toBe('100');
  });

  it('reports a non-integer query value as a 422 type error at its loc', async () => {
    const key = await t.key('pro');
    const res = await t.app.inject({
      method: 'GET',
      url: '/v2/alpha/test-validated?limit=abc',
      headers: { 'x-api-key': key },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0]).toMatchObject({ loc: ['query', 'limit'], type: 'type_error' });
  });

  it('turns a thrown internal error into 500 {error:"Internal Server Error", message} without stack or SQL', async () => {
    const key = await t.key('pro');
    const res = await t.app.inject({
      method: 'GET',
      url: '/v2/alpha/test-failure',
      headers: { 'x-api-key': key },
    });
    expect(res.statusCode).toBe(500);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['error', 'message']);
    expect(body.error).toBe('Internal Server Error');
    expect(res.body).not.toMatch(/SELECT|secret_column|fills|Syntax|at .*\.ts|stack/i);
    expect(body.message).toContain(res.headers['x-request-id']);
  });

  it('answers the retired cross-venue endpoints with 410 and the general body, without a key', async () => {
    for (const url of [
      '/v2/matching-markets',
      '/v2/matching-markets/pairs',
      '/v2/markets',
      '/v2/markets/listings',
      '/v2/outcomes/pmc_ABCDEFGHIJKL',
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(410);
      expect(res.json()).toEqual({ error: 'Gone', message: expect.stringContaining('retired') });
    }
  });

  it("answers a removed venue's paths with 404", async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v2/zeta/markets' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Not Found', message: expect.stringContaining('zeta') });
  });

  it('answers /v1 paths with an error pointing to /v2', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/trades?user=0x1' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Not Found', message: expect.stringContaining('/v2') });
  });

  it('sends CORS headers, exposing the rate-limit headers, and answers preflight without a key', async () => {
    const pre = await t.app.inject({
      method: 'OPTIONS',
      url: '/v2/alpha/test-validated',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-api-key',
      },
    });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    expect(String(pre.headers['access-control-allow-headers'])).toMatch(/x-api-key/i);
    const res = await t.app.inject({
      method: 'GET',
      url: '/health',
      headers: { origin: 'https://app.example.com' },
    });
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(String(res.headers['access-control-expose-headers'])).toMatch(/RateLimit-Reset/);
  });
});
