/**
 * `pmdata up` as a user runs it: a real process on the embedded default with its own data dir and a
 * Redis port where nothing answers, so it starts its own redis-server child.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../core/net.ts';
import { redisAnswers } from '../core/redis.ts';

const root = path.resolve(import.meta.dirname, '..');
let child: ChildProcess | undefined;

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});

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
  it('answers /health within 30 s, and SIGTERM stops it and its redis-server leaving no process behind', async () => {
    const redisPort = await freePort();
    const dataDir = path.join(inject('tmpRoot'), `up-${process.pid}`);
    const started = Date.now();
    child = spawn(process.execPath, [path.join(root, 'bin/pmdata.js'), 'up'], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PMDATA_DATA_DIR: dataDir,
        PORT: '0',
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => {
      stdout += String(d);
    });
    child.stderr!.on('data', (d) => {
      stderr += String(d);
    });

    let apiUrl: string | undefined;
    while (!apiUrl) {
      if (child.exitCode !== null) throw new Error(`pmdata up exited ${child.exitCode}: ${stderr}`);
      if (Date.now() - started > 30_000) throw new Error(`no API URL within 30 s: ${stdout}${stderr}`);
      apiUrl = /API\s+(http:\/\/\S+)/.exec(stdout)?.[1];
      await sleep(100);
    }
    const res = await fetch(`${apiUrl}/health`);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'healthy' });
    expect(await redisAnswers(`redis://127.0.0.1:${redisPort}`)).toBe(true);
    // Where the admin pages are and the file holding their key (generated, 0600): the key opens them.
    const admin = /admin +(\S+\/admin\/status),.* \(the key is in (\S+)\)/.exec(stdout);
    expect(admin, stdout).not.toBeNull();
    expect(admin![2]).toBe(path.join(dataDir, 'admin-key'));
    expect(fs.statSync(admin![2]!).mode & 0o777).toBe(0o600);
    const adminKey = fs.readFileSync(admin![2]!, 'utf8').trim();
    expect((await fetch(admin![1]!)).status).toBe(401);
    const page = await fetch(admin![1]!, { headers: { authorization: `Bearer ${adminKey}` } });
    expect(page.status).toBe(200);

    const children = descendants(child.pid!);
    expect(children.length).toBeGreaterThan(0);
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    for (let i = 0; i < 50 && children.some(alive); i++) await sleep(100);
    expect(children.filter(alive)).toEqual([]);
    expect(await redisAnswers(`redis://127.0.0.1:${redisPort}`, 300)).toBe(false);
  }, 60_000);
});
