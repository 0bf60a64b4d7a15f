import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../api/keys/store.ts';
import { runKeysCommand } from '../jobs/commands/keys.ts';
import { type ApiTestContext, createApiTestContext } from './api-helpers.ts';

let t: ApiTestContext;

beforeAll(async () => {
  t = await createApiTestContext('api_keys');
});
afterAll(async () => t?.close());

async function keys(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runKeysCommand(argv, {
    redis: t.deps.redis,
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('pmdata keys', () => {
  it('creates a key, prints it once, and stores only its hash', async () => {
    const r = await keys('create', '--tier', 'dev', '--name', 'Research desk');
    expect(r.code).toBe(0);
    const key = /API key \(shown once, store it now\): (pmd_\S+)/.exec(r.out)?.[1];
    expect(key).toBeDefined();
    expect(r.out).toMatch(/Dev key key_[0-9a-f]+ \(Research desk\), 20 req\/s/);
    // Nothing in Redis holds the key in plain text.
    // KEYS patterns are not prefixed by ioredis: ask for this file's keys explicitly.
    const prefix = `${t.deps.prefix}:`;
    const stored = await t.deps.redis.keys(`${prefix}*`);
    expect(stored.length).toBeGreaterThan(0);
    for (const k of stored) {
      const name = k.slice(prefix.length);
      expect(name).not.toContain(key!);
      const type = await t.deps.redis.type(name);
      const values =
        type === 'hash'
          ? Object.values(await t.deps.redis.hgetall(name))
          : type === 'string'
            ? [await t.deps.redis.get(name)]
            : await t.deps.redis.smembers(name);
      for (const v of values) expect(v).not.toContain(key!);
    }
    expect(await t.deps.redis.hget(`apikey:${hashKey(key!)}`, 'tier')).toBe('dev');
    const res = await t.app.inject({
      method: 'GET',
      url: '/v2/alpha/trades?limit=1',
      headers: { 'x-api-key': key! },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['ratelimit-limit']).toBe('20');
  });

  it('lists keys without their secret and revokes one so it answers 401', async () => {
    const created = await keys('create', '--tier', 'pro', '--name', 'to-revoke');
    const key = /: (pmd_\S+)/.exec(created.out)![1]!;
    const id = /key (key_[0-9a-f]+)/.exec(created.out)![1]!;
    const list = await keys('list');
    expect(list.code).toBe(0);
    expect(list.out).toContain(id);
    expect(list.out).toContain('to-revoke');
    expect(list.out).toContain('Pro');
    expect(list.out).not.toContain(key);
    const revoked = await keys('revoke', id);
    expect(revoked.code).toBe(0);
    expect((await keys('list')).out).toMatch(new RegExp(`${id}.*revoked`));
    const res = await t.app.inject({ method: 'GET', url: '/v2/alpha/trades', headers: { 'x-api-key': key } });
    expect(res.statusCode).toBe(401);
    expect((await keys('revoke', 'key_000000000000')).code).toBe(1);
  });

  it('creates Enterprise keys with their own rate', async () => {
    const r = await keys('create', '--tier', 'enterprise', '--name', 'big', '--rate', '750');
    expect(r.code).toBe(0);
    expect(r.out).toContain('750 req/s');
  });

  it('creates Enterprise keys with their own streaming limits, the fields the stream reads', async () => {
    const r = await keys(
      'create',
      '--tier',
      'enterprise',
      '--name',
      'streams',
      '--stream',
      'connections=7',
      '--stream',
      'total_items=15',
      '--stream',
      'wildcards=0',
    );
    expect(r.code).toBe(0);
    expect(r.out).toContain('Streaming limits: connections 7, total_items 15, wildcards 0');
    const id = /key (key_[0-9a-f]+)/.exec(r.out)![1]!;
    const hash = await t.deps.redis.get(`apikey-id:${id}`);
    expect(await t.deps.redis.hgetall(`apikey:${hash}`)).toMatchObject({
      stream_connections: '7',
      stream_total_items: '15',
      stream_wildcards_per_channel: '0',
    });
    for (const argv of [
      ['create', '--tier', 'pro', '--name', 'x', '--stream', 'connections=7'],
      ['create', '--tier', 'enterprise', '--name', 'x', '--stream', 'sockets=7'],
      ['create', '--tier', 'enterprise', '--name', 'x', '--stream', 'connections=-1'],
    ]) {
      const bad = await keys(...argv);
      expect(bad.code, argv.join(' ')).toBe(2);
    }
  });

  it('shows monthly usage per key', async () => {
    const created = await keys('create', '--tier', 'free', '--name', 'usage-check');
    const key = /: (pmd_\S+)/.exec(created.out)![1]!;
    const id = /key (key_[0-9a-f]+)/.exec(created.out)![1]!;
    await t.app.inject({ method: 'GET', url: '/v2/alpha/trades?limit=1', headers: { 'x-api-key': key } });
    await t.app.inject({ method: 'GET', url: '/v2/alpha/trades?limit=1', headers: { 'x-api-key': key } });
    const u = await keys('usage', id);
    expect(u.code).toBe(0);
    expect(u.out).toMatch(
      new RegExp(`${id}\\s+usage-check\\s+Free\\s+0\\s+1,000\\s+0\\s+\\$0\\.00\\s+1\\s+1\\s+0`),
    );
  });

  it('rejects bad usage with exit code 2 and the usage text', async () => {
    for (const argv of [
      ['create', '--tier', 'gold', '--name', 'x'],
      ['create', '--tier', 'dev'],
      ['create', '--tier', 'dev', '--name', 'x', '--rate', '5'],
      ['frobnicate'],
      ['usage', '--month', '2026-13'],
    ]) {
      const r = await keys(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err).toContain('Usage:');
    }
  });
});
