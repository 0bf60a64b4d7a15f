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

describe("each data dir's own redis (REDIS_URL unset)", () => {
  it('two data dirs get two redis-servers on unix sockets inside them: separate keys', async () => {
    const a = loadConfig({ PMDATA_DATA_DIR: path.join(inject('tmpRoot'), `own-a-${process.pid}`) });
    const b = loadConfig({ PMDATA_DATA_DIR: path.join(inject('tmpRoot'), `own-b-${process.pid}`) });
    const ra = await ensureRedis({ config: a, log });
    const rb = await ensureRedis({ config: b, log });
    try {
      expect(ra.url).toBe(path.join(a.dataDir, 'redis', 'redis.sock'));
      expect(rb.url).toBe(path.join(b.dataDir, 'redis', 'redis.sock'));
      expect(ra.server?.pid).toBeGreaterThan(0);
      expect(rb.server?.pid).toBeGreaterThan(0);
      expect(ra.server?.pid).not.toBe(rb.server?.pid);
      const ca = new Redis(ra.url);
      const cb = new Redis(rb.url);
      await ca.set('only-in-a', '1');
      expect(await cb.get('only-in-a')).toBeNull();
      expect(await ca.get('pmdata:data-dir')).toBe(a.dataDir);
      expect(await cb.get('pmdata:data-dir')).toBe(b.dataDir);
      ca.disconnect();
      cb.disconnect();
      // A second process of the same data dir uses the running one.
      expect((await ensureRedis({ config: a, log })).server).toBeUndefined();
    } finally {
      await ra.server?.stop();
      await rb.server?.stop();
    }
  });

  it("a data dir pointed at another data dir's redis is refused, naming both", async () => {
    const a = loadConfig({ PMDATA_DATA_DIR: path.join(inject('tmpRoot'), `owner-a-${process.pid}`) });
    const ra = await ensureRedis({ config: a, log });
    try {
      const bDir = path.join(inject('tmpRoot'), `owner-b-${process.pid}`);
      const b = loadConfig({ PMDATA_DATA_DIR: bDir, REDIS_URL: ra.url });
      const err = await ensureRedis({ config: b, log }).catch((e) => e);
      expect(err).toBeInstanceOf(DependencyError);
      expect(err.message).toContain(`The Redis at ${ra.url} belongs to the data dir ${a.dataDir}`);
      expect(err.message).toContain(bDir);
      expect(err.message).toMatch(/unset REDIS_URL/);
    } finally {
      await ra.server?.stop();
    }
  });

  it('stops its own redis-server left behind in a data dir since deleted, and starts a new one there', async () => {
    const dataDir = path.join(inject('tmpRoot'), `own-orphan-${process.pid}`);
    const first = await ensureRedis({ config: loadConfig({ PMDATA_DATA_DIR: dataDir }), log });
    fs.rmSync(dataDir, { recursive: true, force: true });
    const second = await ensureRedis({ config: loadConfig({ PMDATA_DATA_DIR: dataDir }), log });
    try {
      expect(second.server?.pid).toBeGreaterThan(0);
      for (let i = 0; i < 50 && processAlive(first.server!.pid!); i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(processAlive(first.server!.pid!)).toBe(false);
    } finally {
      await second.server?.stop();
      await first.server?.stop();
    }
  });

  it('a data dir whose socket path would be too long gets a port, recorded in the data dir and reused', async () => {
    const dataDir = path.join(inject('tmpRoot'), `long-${process.pid}-${'x'.repeat(110)}`);
    const config = loadConfig({ PMDATA_DATA_DIR: dataDir });
    const first = await ensureRedis({ config, log });
    let second: Awaited<ReturnType<typeof ensureRedis>> | undefined;
    try {
      const port = Number(fs.readFileSync(path.join(dataDir, 'redis', 'port'), 'utf8'));
      expect(port).toBeGreaterThan(0);
      expect(first.url).toBe(`redis://127.0.0.1:${port}`);
      await first.server!.stop();
      second = await ensureRedis({ config: loadConfig({ PMDATA_DATA_DIR: dataDir }), log });
      expect(second.url).toBe(first.url);
      expect(second.server?.pid).toBeGreaterThan(0);
    } finally {
      await second?.server?.stop();
      await first.server?.stop();
    }
  });
});
