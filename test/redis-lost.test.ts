/**
 * Losing Redis under a running `pmdata up`: one line says so (not one per reconnect attempt, client or
 * worker), one line says when it is back, and the first SIGINT stops the process within 10 s although Redis is still down.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../core/logger.ts';
import { freePort } from '../core/net.ts';
import { type RedisServerHandle, startRedisServer } from '../core/redis-server.ts';

const root = path.resolve(import.meta.dirname, '..');

/** The log lines (pretty: `hh:mm:ss LEVEL ...`) of `text`, not the stacks under them. */
const logLines = (text: string) => text.split('\n').filter((l) => /^\d\d:\d\d:\d\d [A-Z]+ /.test(l));
/** Those about Redis or its connection. */
const redisLines = (text: string) =>
  logLines(text).filter((l) => /redis|ECONNREFUSED|Connection is closed|max retries/i.test(l));
let child: ChildProcess | undefined;
let redis: RedisServerHandle | undefined;

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await redis?.stop();
});

describe('Redis lost under pmdata up', () => {
  it('prints one line for the loss, and one when it is back, and the first SIGINT stops it within 10 s while Redis is down', async () => {
    const dataDir = path.join(inject('tmpRoot'), `redis-lost-${process.pid}`);
    redis = await startRedisServer({
      port: await freePort(),
      dir: path.join(dataDir, 'private-redis'),
      log: createLogger({ level: 'silent' }),
    });
    child = spawn(process.execPath, [path.join(root, 'bin/pmdata.js'), 'up'], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PMDATA_DATA_DIR: dataDir,
        PORT: '0',
        REDIS_URL: redis.url,
        // The terminal of the demo: errors only (the upstreams of the default config are not reachable here).
        LOG_LEVEL: 'error',
        LOG_FORMAT: 'pretty',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += String(d);
    });
    child.stderr!.on('data', (d) => {
      out += String(d);
    });
    const started = Date.now();
    while (!out.includes('Press Ctrl+C to stop.')) {
      if (child.exitCode !== null) throw new Error(`pmdata up exited ${child.exitCode}: ${out}`);
      if (Date.now() - started > 150_000) throw new Error(`not up within 150 s: ${out}`);
      await sleep(200);
    }
    await sleep(2000);
    const before = out.length;
    await redis.stop();
    await sleep(10_000);
    const after = out.slice(before);
    const lines = logLines(after);
    fs.writeFileSync(path.join(dataDir, 'after-loss.txt'), after);
    const lost = redisLines(after);
    expect(lost, after.slice(0, 4000)).toHaveLength(1);
    expect(lost[0]).toMatch(/Lost Redis at redis:\/\/127\.0\.0\.1:\d+/);
    expect(lines.length, after.slice(0, 4000)).toBeLessThanOrEqual(3);

    // Back: one line says so; lost again: one line again.
    const port = redis.port!;
    const mark = out.length;
    redis = await startRedisServer({
      port,
      dir: path.join(dataDir, 'private-redis'),
      log: createLogger({ level: 'silent' }),
    });
    await sleep(8000);
    const back = redisLines(out.slice(mark));
    expect(back, out.slice(mark, mark + 4000)).toHaveLength(1);
    expect(back[0]).toMatch(/Redis at redis:\/\/127\.0\.0\.1:\d+ is back after \d+ s/);
    const mark2 = out.length;
    await redis.stop();
    await sleep(3000);
    expect(redisLines(out.slice(mark2))).toHaveLength(1);

    const t0 = Date.now();
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    const code = await Promise.race([exited, sleep(15_000).then(() => 'still running')]);
    expect(code, out.slice(before).slice(-3000)).not.toBe('still running');
    expect(Date.now() - t0).toBeLessThan(10_000);
  }, 240_000);
});
