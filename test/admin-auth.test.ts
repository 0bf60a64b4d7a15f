/**
 * Admin access (core/admin-auth.ts, api/plugins/admin.ts) on the real API: the admin routes (`/metrics`,
 * `/admin/status.json`, `/admin`, the queue dashboard and its JSON API) refuse a request without the admin key, with a wrong one, and with an
 * API key of any tier (401 + `WWW-Authenticate: Basic realm="pmdata admin"`); accept Bearer and Basic;
 * past 10 wrong keys a minute from one address answer 429 while the right key still passes; cluster mode
 * without PMDATA_ADMIN_KEY mounts none of them (404); they are absent from `/openapi.json` and carry no
 * CORS headers; embedded mode's generated key is kept 0600 and reused.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TIERS } from '../api/access.ts';
import { buildApp } from '../api/app.ts';
import { resolveAdminKey } from '../core/admin-key.ts';
import { loadConfig } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';
import { type ApiTestContext, createApiTestContext, TEST_SECRET } from './api-helpers.ts';

let t: ApiTestContext;
let adminKey: string;

const basic = (password: string, user = 'prometheus') =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

beforeAll(async () => {
  t = await createApiTestContext('admin_auth');
  adminKey = resolveAdminKey(t.deps.config)!.key;
});
afterAll(async () => t?.close());

const ADMIN_URLS = ['/metrics', '/admin/status.json', '/admin', '/admin/queues', '/admin/queues/api/queues'];

describe('admin access', () => {
  it('refuses no key, a wrong key and every tier’s API key with 401 and the Basic challenge', async () => {
    const apiKeys = await Promise.all(TIERS.map((tier) => t.key(tier)));
    for (const url of ADMIN_URLS) {
      const attempts: Record<string, string>[] = [
        {},
        { authorization: 'Bearer not-the-admin-key-0123456789abcdefghijkl' },
        ...apiKeys.flatMap((k): Record<string, string>[] => [
          { authorization: `Bearer ${k}` },
          { 'x-api-key': k },
          { authorization: basic(k) },
        ]),
      ];
      for (const [i, headers] of attempts.entries()) {
        const res = await t.app.inject({ url, headers, remoteAddress: `10.0.1.${i}` });
        expect(res.statusCode, `${url} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Basic realm="pmdata admin"');
        expect(res.json()).toMatchObject({ error: 'unauthorized' });
      }
    }
  });

  it('accepts the admin key as Bearer and as Basic’s password', async () => {
    for (const authorization of [`Bearer ${adminKey}`, basic(adminKey), basic(adminKey, '')]) {
      const metrics = await t.app.inject({ url: '/metrics', headers: { authorization } });
      expect(metrics.statusCode).toBe(200);
      expect(metrics.body).toContain('pmdata_http_requests_total');
      const status = await t.app.inject({ url: '/admin/status.json', headers: { authorization } });
      expect(status.statusCode).toBe(200);
      const root = await t.app.inject({ url: '/admin', headers: { authorization } });
      expect(root.statusCode).toBe(302);
      const board = await t.app.inject({ url: '/admin/queues', headers: { authorization } });
      expect(board.statusCode).toBe(200);
      const boardApi = await t.app.inject({ url: '/admin/queues/api/queues', headers: { authorization } });
      expect(boardApi.statusCode).toBe(200);
    }
  });

  it('answers 429 past 10 wrong keys a minute from one address; the right key still passes', async () => {
    // Counted per minute: start early in one, so the 12 requests share it.
    if (Date.now() % 60_000 > 50_000) await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000)));
    const remoteAddress = '10.0.9.9';
    const wrong = { authorization: 'Bearer wrong-wrong-wrong-wrong-wrong-wrong-wrong' };
    const codes: number[] = [];
    for (let i = 0; i < 12; i++) {
      codes.push((await t.app.inject({ url: '/metrics', headers: wrong, remoteAddress })).statusCode);
    }
    expect(codes).toEqual([...Array(10).fill(401), 429, 429]);
    const right = await t.app.inject({
      url: '/metrics',
      headers: { authorization: `Bearer ${adminKey}` },
      remoteAddress,
    });
    expect(right.statusCode).toBe(200);
    // Another address is not affected.
    const other = await t.app.inject({ url: '/metrics', headers: wrong, remoteAddress: '10.0.9.10' });
    expect(other.statusCode).toBe(401);
  }, 75_000);

  it('leaves the admin routes out of /openapi.json and out of CORS', async () => {
    const doc = (await t.app.inject({ url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p === '/metrics' || p.startsWith('/admin'))).toEqual([]);
    const origin = { origin: 'https://dashboard.example' };
    const admin = await t.app.inject({
      url: '/admin/status.json',
      headers: { ...origin, authorization: `Bearer ${adminKey}` },
    });
    expect(admin.statusCode).toBe(200);
    expect(admin.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/metrics',
      headers: { ...origin, 'access-control-request-method': 'GET' },
    });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    const data = await t.app.inject({ url: '/health', headers: origin });
    expect(data.headers['access-control-allow-origin']).toBe('*');
  });

  it('mounts no admin route in cluster mode without PMDATA_ADMIN_KEY (404)', async () => {
    const config = { ...t.deps.config, embedded: false, adminKey: undefined };
    const app = await buildApp({ ...t.deps, config, secret: TEST_SECRET });
    try {
      for (const url of ADMIN_URLS) {
        const res = await app.inject({ url, headers: { authorization: `Bearer ${adminKey}` } });
        expect(res.statusCode, url).toBe(404);
      }
    } finally {
      await app.close();
    }
  });

  it('keeps embedded mode’s generated key 0600 and reuses it; PMDATA_ADMIN_KEY wins and must be 32+ chars', () => {
    const first = resolveAdminKey(t.deps.config)!;
    expect(first.file).not.toBeNull();
    expect(fs.statSync(first.file!).mode & 0o777).toBe(0o600);
    expect(first.key.length).toBeGreaterThanOrEqual(32);
    expect(resolveAdminKey(t.deps.config)!.key).toBe(first.key);
    const set = 'k'.repeat(40);
    expect(resolveAdminKey({ ...t.deps.config, adminKey: set })).toEqual({ key: set, file: null });
    expect(() => loadConfig({ PMDATA_ADMIN_KEY: 'short-secret' })).toThrow(ConfigError);
    // The error names the length, never the value.
    expect(() => loadConfig({ PMDATA_ADMIN_KEY: 'short-secret' })).toThrow(/a value of 12 characters/);
    expect(() => loadConfig({ PMDATA_ADMIN_KEY: 'short-secret' })).not.toThrow(/short-secret/);
  });
});
