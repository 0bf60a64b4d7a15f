/**
 * The embedded mode's own `redis-server`. When nothing answers at REDIS_URL on a loopback address and
 * REDIS_EMBEDDED is on, pmdata starts `redis-server` as a child process on that port with its data
 * under `<dataDir>/redis` (append-only file on), and stops it on exit. A missing `redis-server` is
 * installed with apt on Debian when running as root (apt's output in `<dataDir>/logs/redis-server-install.log`). Used by the commands (jobs/), the tests' global
 * setup and the benchmarks; the services only ever get a client (core/redis.ts).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import type { Config } from './config.ts';
import { DependencyError } from './errors.ts';
import type { Logger } from './logger.ts';
import { redisAnswers } from './redis.ts';

const SEARCH_PATHS = ['/usr/bin', '/usr/sbin', '/usr/local/bin', '/opt/homebrew/bin'];

export function findRedisServer(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), ...SEARCH_PATHS];
  for (const dir of dirs) {
    if (!dir) continue;
    const candidate = path.join(dir, 'redis-server');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/**
 * Finds `redis-server`, installing it with apt on Debian as root (apt's output goes to `installLog`, not
 * the terminal: one line says what is happening, one how it ended); otherwise says how to get it.
 */
export function ensureRedisServerBinary(
  log: Logger,
  installLog = path.join(os.tmpdir(), 'pmdata-redis-server-install.log'),
): string {
  const found = findRedisServer();
  if (found) return found;
  const debian = fs.existsSync('/etc/debian_version');
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  let failed = '';
  if (debian && root) {
    log.info({ output: installLog }, 'Installing redis-server with apt (not found on PATH; takes ≈ 10–60 s)');
    const t0 = performance.now();
    fs.mkdirSync(path.dirname(installLog), { recursive: true });
    const fd = fs.openSync(installLog, 'a');
    try {
      const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
      const stdio: ['ignore', number, number] = ['ignore', fd, fd];
      const update = spawnSync('apt-get', ['update', '-qq'], { stdio, env });
      const install =
        update.status === 0
          ? spawnSync('apt-get', ['install', '-y', '-qq', 'redis-server'], { stdio, env })
          : update;
      const after = findRedisServer();
      if (install.status === 0 && after) {
        log.info(
          { binary: after, seconds: Math.round((performance.now() - t0) / 1000), output: installLog },
          'Installed redis-server',
        );
        return after;
      }
      failed = ` apt-get failed (exit ${install.status ?? install.signal}); its output is in ${installLog}.`;
    } finally {
      fs.closeSync(fd);
    }
  }
  throw new DependencyError(
    `redis-server was not found.${failed} Install it (Debian/Ubuntu: \`sudo apt-get install -y redis-server\`, ` +
      'macOS: `brew install redis`) or set REDIS_URL to a running Redis.',
  );
}

export interface RedisServerHandle {
  url: string;
  port: number;
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * Starts a private `redis-server` on `port` with its data in `dir`. With `persistent` the append-only
 * file is on (the embedded default); tests run it with persistence off.
 */
export async function startRedisServer(opts: {
  port: number;
  dir: string;
  log: Logger;
  persistent?: boolean;
  /** Where apt's output goes when redis-server has to be installed. */
  installLog?: string;
}): Promise<RedisServerHandle> {
  const binary = ensureRedisServerBinary(opts.log, opts.installLog);
  fs.mkdirSync(opts.dir, { recursive: true });
  const args = [
    '--port',
    String(opts.port),
    '--bind',
    '127.0.0.1',
    '--dir',
    opts.dir,
    '--daemonize',
    'no',
    '--save',
    '',
    '--appendonly',
    opts.persistent === false ? 'no' : 'yes',
    '--loglevel',
    'warning',
  ];
  // Its own process group: a terminal's Ctrl+C (SIGINT to the foreground group) reaches pmdata only,
  // which closes its Redis clients and then stops this server, instead of Redis vanishing first.
  const child: ChildProcess = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += String(d);
  });
  const url = `redis://127.0.0.1:${opts.port}`;
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const killOnExit = () => {
    if (!exited) child.kill('SIGTERM');
  };
  process.once('exit', killOnExit);

  const deadline = Date.now() + 10_000;
  while (!(await redisAnswers(url, 300))) {
    if (exited || Date.now() > deadline) {
      killOnExit();
      throw new DependencyError(
        `redis-server did not start on port ${opts.port}: ${stderr.trim() || 'no output'}`,
      );
    }
    await sleep(50);
  }
  opts.log.info({ port: opts.port, pid: child.pid, dir: opts.dir }, 'Started redis-server');
  return {
    url,
    port: opts.port,
    pid: child.pid,
    async stop() {
      process.removeListener('exit', killOnExit);
      if (exited) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(timer);
      opts.log.info({ port: opts.port }, 'Stopped redis-server');
    },
  };
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/**
 * Whether the Redis at `url` is a local redis-server whose working directory was `dir` and no longer
 * exists: its process's cwd reads `<dir> (deleted)` (Linux), or `CONFIG GET dir` names `dir` and the
 * directory is gone.
 */
async function orphanedIn(url: string, dir: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1000 });
  const want = path.resolve(dir);
  try {
    await client.connect();
    const pid = /process_id:(\d+)/.exec(await client.info('server'))?.[1];
    if (pid) {
      try {
        if (fs.readlinkSync(`/proc/${pid}/cwd`) === `${want} (deleted)`) return true;
      } catch {}
    }
    const [, workDir] = (await client.config('GET', 'dir').catch(() => ['', ''])) as [string, string];
    return workDir !== '' && path.resolve(workDir) === want && !fs.existsSync(want);
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** `SHUTDOWN NOSAVE` and waits until nothing answers at `url` (at most 10 s). */
async function shutdown(url: string): Promise<void> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await client.connect();
    await client.shutdown('NOSAVE').catch(() => {});
  } finally {
    client.disconnect();
  }
  const deadline = Date.now() + 10_000;
  while (await redisAnswers(url, 300)) {
    if (Date.now() > deadline) throw new DependencyError(`The redis-server at ${url} did not stop`);
    await sleep(50);
  }
}

/**
 * Makes sure a Redis answers at REDIS_URL: uses it when it answers; otherwise, in embedded mode on a
 * loopback URL, starts one. Returns the handle of the child it started, if any.
 */
export async function ensureRedis(deps: {
  config: Pick<Config, 'redisUrl' | 'redisEmbedded' | 'dataDir'>;
  log: Logger;
}): Promise<{ url: string; server?: RedisServerHandle }> {
  const { config, log } = deps;
  const u = new URL(config.redisUrl);
  const ownDir = path.join(config.dataDir, 'redis');
  if (await redisAnswers(config.redisUrl)) {
    // A redis-server an earlier run started in this data dir, left behind when that run was killed, keeps
    // answering after the dir was deleted (the demo starts each world afresh): it holds the old run's
    // queues and keys. Stop it and start our own; any other Redis is used as it is.
    if (!(config.redisEmbedded && LOOPBACK.has(u.hostname) && (await orphanedIn(config.redisUrl, ownDir)))) {
      return { url: config.redisUrl };
    }
    log.warn(
      { url: config.redisUrl, dir: ownDir },
      'Stopping a redis-server left behind in a deleted data dir',
    );
    await shutdown(config.redisUrl);
  }
  if (!config.redisEmbedded || !LOOPBACK.has(u.hostname)) {
    throw new DependencyError(
      `Nothing answers at REDIS_URL=${config.redisUrl}. Start Redis there, or use a loopback URL with ` +
        'REDIS_EMBEDDED=true to let pmdata start its own.',
    );
  }
  const port = Number(u.port || 6379);
  const installLog = path.join(config.dataDir, 'logs', 'redis-server-install.log');
  const server = await startRedisServer({ port, dir: ownDir, log, installLog });
  return { url: config.redisUrl, server };
}
