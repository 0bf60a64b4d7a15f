/**
 * `pmdata up` as a user runs it: a real process on the embedded default with its own data dir and no
 * REDIS_URL, so it starts its data dir's own redis-server child (on a unix socket in the data dir). A
 * second `up` on another data dir beside it gets a Redis of its own; one pointed at the first's Redis is
 * refused.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { redisAnswers } from '../core/redis.ts';

const root = path.resolve(import.meta.dirname, '..');
let child: ChildProcess | undefined;
let second: ChildProcess | undefined;

afterAll(() => {
  for (const c of [child, second]) if (c && c.exitCode === null) c.kill('SIGTERM');
});

function upEnv(dataDir: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PMDATA_DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'warn',
  };
}

/** Starts `pmdata up`; resolves with its output once it printed its API URL. */
async function startUp(
  env: NodeJS.ProcessEnv,
): Promise<{ proc: ChildProcess; out: () => string; api: string }> {
  const started = Date.now();
  const proc = spawn(process.execPath, [path.join(root, 'bin/pmdata.js'), 'up'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (d) => {
    stdout += String(d);
  });
  proc.stderr!.on('data', (d) => {
    stderr += String(d);
  });
  let api: string | undefined;
  while (!api) {
    if (proc.exitCode !== null) throw new Error(`pmdata up exited ${proc.exitCode}: ${stderr}`);
    if (Date.now() - started > 90_000) throw new Error(`no API URL within 90 s: ${stdout}${stderr}`);
    api = /API\s+(http:\/\/\S+)/.exec(stdout)?.[1];
    await sleep(100);
  }
  return { proc, out: () => stdout, api };
}

function descendants(pid: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry), ...descendants(Number(entry)));
    } catch {}
  }
  return out;
}

function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/\) Z /.test(stat);
  } catch {
    return false;
  }
}

describe('pmdata up', () => {
  it("answers /health within 30 s on its data dir's own Redis; SIGTERM stops it and its redis-server leaving no process behind", async () => {
    const dataDir = path.join(inject('tmpRoot'), `up-${process.pid}`);
    const started = Date.now();
    const up = await startUp(upEnv(dataDir));
    child = up.proc;
    const stdout = up.out();
    const res = await fetch(`${up.api}/health`);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'healthy' });
    const socket = path.join(dataDir, 'redis', 'redis.sock');
    expect(stdout).toContain(`redis    ${socket} (started by pmdata for this data dir)`);
    expect(await redisAnswers(socket)).toBe(true);
    // Where the admin pages are and the file holding their key (generated, 0600): the key opens them.
    const admin = /admin +(\S+\/admin\/status),.* \(the key is in (\S+)\)/.exec(stdout);
    expect(admin, stdout).not.toBeNull();
    expect(admin![2]).toBe(path.join(dataDir, 'admin-key'));
    expect(fs.statSync(admin![2]!).mode & 0o777).toBe(0o600);
    const adminKey = fs.readFileSync(admin![2]!, 'utf8').trim();
    expect((await fetch(admin![1]!)).status).toBe(401);
    const page = await fetch(admin![1]!, { headers: { authorization: `Bearer ${adminKey}` } });
    expect(page.status).toBe(200);

    // A second data dir beside it: a Redis of its own, its own queues and keys.
    const otherDir = path.join(inject('tmpRoot'), `up-other-${process.pid}`);
    const other = await startUp(upEnv(otherDir));
    second = other.proc;
    const otherSocket = path.join(otherDir, 'redis', 'redis.sock');
    expect(other.out()).toContain(`redis    ${otherSocket} (started by pmdata for this data dir)`);
    expect((await fetch(`${other.api}/health`)).status).toBe(200);
    const a = new Redis(socket);
    const b = new Redis(otherSocket);
    try {
      expect(await a.get('pmdata:data-dir')).toBe(dataDir);
      expect(await b.get('pmdata:data-dir')).toBe(otherDir);
      expect((await a.keys('pmdata:*')).length).toBeGreaterThan(1);
      expect((await b.keys('pmdata:*')).length).toBeGreaterThan(1);
      await a.set('only-in-first', '1');
      expect(await b.get('only-in-first')).toBeNull();
    } finally {
      a.disconnect();
      b.disconnect();
    }
    const otherExited = new Promise((resolve) => second!.once('exit', resolve));
    second.kill('SIGTERM');
    expect(await otherExited).toBe(0);
    expect(await redisAnswers(otherSocket, 300)).toBe(false);

    // A third data dir pointed at the first's Redis is refused, naming both data dirs.
    const thirdDir = path.join(inject('tmpRoot'), `up-third-${process.pid}`);
    const refused = spawnSync(process.execPath, [path.join(root, 'bin/pmdata.js'), 'up'], {
      cwd: root,
      env: { ...upEnv(thirdDir), REDIS_URL: socket },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain(
      `pmdata: The Redis at ${socket} belongs to the data dir ${dataDir} (its key pmdata:data-dir), not to this process's data dir ${thirdDir}`,
    );

    const children = descendants(child.pid!);
    expect(children.length).toBeGreaterThan(0);
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    for (let i = 0; i < 50 && children.some(alive); i++) await sleep(100);
    expect(children.filter(alive)).toEqual([]);
    expect(await redisAnswers(socket, 300)).toBe(false);
  }, 240_000);
});
