import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, inject, it } from 'vitest';
import { loadConfig } from './config.ts';
import { DependencyError } from './errors.ts';
import { createLogger } from './logger.ts';
import { freePort } from './net.ts';
import { redisAnswers } from './redis.ts';
import { ensureRedis } from './redis-server.ts';

const log = createLogger({ level: 'silent' });

function processAlive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('embedded redis', () => {
  it('uses a Redis that already answers at REDIS_URL without starting one', async () => {
    const config = loadConfig({ REDIS_URL: inject('redisUrl'), PMDATA_DATA_DIR: inject('tmpRoot') });
    const r = await ensureRedis({ config, log });
    expect(r.server).toBeUndefined();
  });

  it('starts redis-server with an append-only file under the data dir when nothing answers, and stops it', async () => {
    const port = await freePort();
    const dataDir = path.join(inject('tmpRoot'), `embedded-${process.pid}`);
    const config = loadConfig({ REDIS_URL: `redis://127.0.0.1:${port}`, PMDATA_DATA_DIR: dataDir });
    const r = await ensureRedis({ config, log });
    expect(r.server?.pid).toBeGreaterThan(0);
    expect(await redisAnswers(r.url)).toBe(true);
    const pid = r.server!.pid!;
    await r.server!.stop();
    expect(processAlive(pid)).toBe(false);
    expect(await redisAnswers(r.url, 300)).toBe(false);
    expect(fs.readdirSync(path.join(dataDir, 'redis')).join(',')).toMatch(/appendonly/);
  });

  it('with REDIS_EMBEDDED=false and nothing answering, fails saying what to do', async () => {
    const config = loadConfig({
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      REDIS_EMBEDDED: 'false',
      PMDATA_DATA_DIR: inject('tmpRoot'),
    });
    const err = await ensureRedis({ config, log }).catch((e) => e);
    expect(err).toBeInstanceOf(DependencyError);
    expect(err.message).toMatch(/REDIS_URL/);
  }, 20_000);

  it('stops a redis-server an earlier run left in a data dir since deleted, and starts its own', async () => {
    const port = await freePort();
    const dataDir = path.join(inject('tmpRoot'), `orphan-${process.pid}`);
    const config = loadConfig({ REDIS_URL: `redis://127.0.0.1:${port}`, PMDATA_DATA_DIR: dataDir });
    const first = await ensureRedis({ config, log });
    const client = new Redis(first.url);
    await client.set('left-behind', '1');
    client.disconnect();
    // Still alive in the same dir: used as it is.
    expect((await ensureRedis({ config, log })).server).toBeUndefined();
    // The earlier run was killed without stopping it, and its data dir deleted (a fresh demo world).
    fs.rmSync(dataDir, { recursive: true, force: true });
    const second = await ensureRedis({ config, log });
    try {
      expect(second.server?.pid).toBeGreaterThan(0);
      expect(second.server?.pid).not.toBe(first.server?.pid);
      expect(processAlive(first.server!.pid!)).toBe(false);
      const fresh = new Redis(second.url);
      expect(await fresh.get('left-behind')).toBeNull();
      fresh.disconnect();
    } finally {
      await second.server?.stop();
      await first.server?.stop();
    }
  });
});
