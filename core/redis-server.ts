/**
 * The embedded mode's own `redis-server`. Each data dir has its own: with REDIS_URL unset and
 * REDIS_EMBEDDED on, pmdata starts `redis-server` as a child process listening on the unix socket
 * `<dataDir>/redis/redis.sock` (no TCP port), or, when that path is too long for a socket, on a free
 * 127.0.0.1 port recorded in `<dataDir>/redis/port`; its data is under `<dataDir>/redis` (append-only
 * file on), and it stops on exit. A later process of the same data dir uses it while it runs. With a
 * loopback REDIS_URL where nothing answers, it is started on that port instead. A Redis pmdata started
 * holds the key `pmdata:data-dir` naming its data dir; a process of another data dir pointed at it is
 * refused. A missing `redis-server` is installed with apt on Debian when running as root (apt's output
 * in `<dataDir>/logs/redis-server-install.log`). Used by the commands (jobs/), the tests' global setup
 * and the benchmarks; the services only ever get a client (core/redis.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { type Config, ownRedisPlace } from './config.ts';
import { DependencyError } from './errors.ts';
import type { Logger } from './logger.ts';
import { freePort, portFree } from './net.ts';
import { redisAnswers } from './redis.ts';
import { aptInstall, findCommand, planInstall, type SystemProgram, thisHost } from './system-packages.ts';

const REDIS_SERVER: SystemProgram = {
  command: 'redis-server',
  package: 'redis-server',
  elsewhere: 'macOS: `brew install redis`',
};

export function findRedisServer(): string | undefined {
  return findCommand('redis-server');
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
  const plan = planInstall([REDIS_SERVER], thisHost());
  let failed = '';
  if (plan.action === 'apt') {
    log.info({ output: installLog }, 'Installing redis-server with apt (not found on PATH; takes ≈ 10–60 s)');
    const t0 = performance.now();
    const error = aptInstall(plan, installLog);
    const after = findRedisServer();
    if (!error && after) {
      log.info(
        { binary: after, seconds: Math.round((performance.now() - t0) / 1000), output: installLog },
        'Installed redis-server',
      );
      return after;
    }
    failed = ` ${error || `apt-get installed no redis-server; its output is in ${installLog}`}.`;
  }
  throw new DependencyError(
    `redis-server was not found.${failed} Install it (Debian/Ubuntu: \`sudo apt-get install -y redis-server\`, ` +
      'macOS: `brew install redis`) or set REDIS_URL to a running Redis.',
  );
}

export interface RedisServerHandle {
  /** `redis://127.0.0.1:<port>`, or the socket's path. */
  url: string;
  /** The TCP port; undefined on a unix socket. */
  port: number | undefined;
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * Starts a private `redis-server` on 127.0.0.1:`port`, or on the unix socket `socket` only (mode 0700),
 * with its data in `dir`. With `persistent` the append-only file is on (the embedded default); tests run
 * it with persistence off.
 */
export async function startRedisServer(opts: {
  port?: number;
  socket?: string;
  dir: string;
  log: Logger;
  persistent?: boolean;
  /** Where apt's output goes when redis-server has to be installed. */
  installLog?: string;
}): Promise<RedisServerHandle> {
  const binary = ensureRedisServerBinary(opts.log, opts.installLog);
  fs.mkdirSync(opts.dir, { recursive: true });
  const listen = opts.socket
    ? ['--port', '0', '--unixsocket', opts.socket, '--unixsocketperm', '700']
    : ['--port', String(opts.port ?? 6379), '--bind', '127.0.0.1'];
  const where = opts.socket ? `unix socket ${opts.socket}` : `port ${opts.port}`;
  const args = [
    ...listen,
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
  const url = opts.socket ?? `redis://127.0.0.1:${opts.port}`;
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
      throw new DependencyError(`redis-server did not start on ${where}: ${stderr.trim() || 'no output'}`);
    }
    await sleep(50);
  }
  opts.log.info({ at: url, pid: child.pid, dir: opts.dir }, 'Started redis-server');
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
      opts.log.info({ at: url }, 'Stopped redis-server');
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

/** The key naming the data dir a Redis pmdata started belongs to. */
export const DATA_DIR_KEY = 'pmdata:data-dir';

/**
 * Refuses a Redis that belongs to another data dir (its DATA_DIR_KEY); with `stamp`, marks a Redis of
 * no data dir yet as `dataDir`'s (a Redis pmdata started for it, or its own).
 */
async function claim(url: string, dataDir: string, stamp: boolean): Promise<void> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000 });
  client.on('error', () => {});
  let owner: string | null;
  try {
    await client.connect();
    if (stamp) await client.setnx(DATA_DIR_KEY, dataDir);
    owner = await client.get(DATA_DIR_KEY);
  } finally {
    client.disconnect();
  }
  if (owner !== null && owner !== dataDir) {
    throw new DependencyError(
      `The Redis at ${url} belongs to the data dir ${owner} (its key ${DATA_DIR_KEY}), not to this ` +
        `process's data dir ${dataDir}: their queues, keys and leases would mix. Each data dir has its own ` +
        `Redis: unset REDIS_URL to use ${dataDir}'s own, or point REDIS_URL at a Redis no other data dir uses.`,
    );
  }
}

/**
 * Stops `redis-server` processes whose working directory is `dir` and was deleted (Linux): a run killed
 * without stopping its Redis, whose data dir was removed since (the demo starts each world afresh). Their
 * socket is gone with the dir, so nothing could reach or stop them otherwise.
 */
async function stopOrphansIn(dir: string, log: Logger): Promise<void> {
  const want = `${path.resolve(dir)} (deleted)`;
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return;
  }
  const stopped: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readlinkSync(`/proc/${entry}/cwd`) !== want) continue;
      if (!fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('redis-server')) continue;
      log.warn({ pid: Number(entry), dir }, 'Stopping a redis-server left behind in a deleted data dir');
      process.kill(Number(entry), 'SIGTERM');
      stopped.push(Number(entry));
    } catch {}
  }
  // Waited for: on exit, redis-server removes its socket's path, which the new server is about to bind.
  const deadline = Date.now() + 10_000;
  const alive = (pid: number) => {
    try {
      return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };
  while (stopped.some(alive) && Date.now() < deadline) await sleep(50);
}

/**
 * The data dir's own Redis (REDIS_URL unset): used when it answers, else started on its socket, or on its
 * recorded port (a free one, recorded, when none is recorded or another Redis took it).
 */
async function ensureOwnRedis(
  config: Pick<Config, 'redisEmbedded' | 'dataDir'>,
  log: Logger,
): Promise<{ url: string; server?: RedisServerHandle }> {
  const dir = path.join(config.dataDir, 'redis');
  const place = ownRedisPlace(config.dataDir);
  const installLog = path.join(config.dataDir, 'logs', 'redis-server-install.log');
  const notEmbedded = () =>
    new DependencyError(
      `Nothing answers at ${place.url} (this data dir's own Redis) and REDIS_EMBEDDED=false: set REDIS_URL ` +
        'to a running Redis, or REDIS_EMBEDDED=true to let pmdata start its own.',
    );
  if (place.socket) {
    if (await redisAnswers(place.socket)) {
      await claim(place.socket, config.dataDir, true);
      return { url: place.socket };
    }
    if (!config.redisEmbedded) throw notEmbedded();
    await stopOrphansIn(dir, log);
    const server = await startRedisServer({ socket: place.socket, dir, log, installLog });
    await claimOrStop(server, config.dataDir);
    return { url: server.url, server };
  }
  const recorded = Number(new URL(place.url).port);
  if (recorded > 0 && (await redisAnswers(place.url))) {
    const owner = await ownerOf(place.url);
    if (owner === config.dataDir) return { url: place.url };
  }
  if (!config.redisEmbedded) throw notEmbedded();
  await stopOrphansIn(dir, log);
  const port = recorded > 0 && (await portFree(recorded)) ? recorded : await freePort();
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(place.portFile, `${port}\n`);
  const server = await startRedisServer({ port, dir, log, installLog });
  await claimOrStop(server, config.dataDir);
  return { url: server.url, server };
}

async function claimOrStop(server: RedisServerHandle, dataDir: string): Promise<void> {
  try {
    await claim(server.url, dataDir, true);
  } catch (err) {
    await server.stop();
    throw err;
  }
}

async function ownerOf(url: string): Promise<string | null> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    return await client.get(DATA_DIR_KEY);
  } catch {
    return null;
  } finally {
    client.disconnect();
  }
}

/**
 * Makes sure a Redis answers for this data dir: with REDIS_URL unset, the data dir's own (started when
 * it does not answer); else REDIS_URL, used when it answers, or in embedded mode on a loopback URL or a
 * socket path, started there. A Redis that belongs to another data dir is refused. Returns where the
 * Redis is and the handle of the child it started, if any.
 */
export async function ensureRedis(deps: {
  config: Pick<Config, 'redisUrl' | 'redisOwn' | 'redisEmbedded' | 'dataDir'>;
  log: Logger;
}): Promise<{ url: string; server?: RedisServerHandle }> {
  const { config, log } = deps;
  if (config.redisOwn) return ensureOwnRedis(config, log);
  const socket = config.redisUrl.startsWith('/') ? config.redisUrl : undefined;
  const local = socket !== undefined || LOOPBACK.has(new URL(config.redisUrl).hostname);
  const ownDir = path.join(config.dataDir, 'redis');
  if (await redisAnswers(config.redisUrl)) {
    // A redis-server an earlier run started in this data dir, left behind when that run was killed, keeps
    // answering after the dir was deleted (the demo starts each world afresh): it holds the old run's
    // queues and keys. Stop it and start our own; any other Redis is used as it is, unless it belongs to
    // another data dir.
    if (!(config.redisEmbedded && local && !socket && (await orphanedIn(config.redisUrl, ownDir)))) {
      await claim(config.redisUrl, config.dataDir, false);
      return { url: config.redisUrl };
    }
    log.warn(
      { url: config.redisUrl, dir: ownDir },
      'Stopping a redis-server left behind in a deleted data dir',
    );
    await shutdown(config.redisUrl);
  }
  if (!config.redisEmbedded || !local) {
    throw new DependencyError(
      `Nothing answers at REDIS_URL=${config.redisUrl}. Start Redis there, or use a loopback URL with ` +
        'REDIS_EMBEDDED=true to let pmdata start its own.',
    );
  }
  const installLog = path.join(config.dataDir, 'logs', 'redis-server-install.log');
  const server = socket
    ? await startRedisServer({ socket, dir: ownDir, log, installLog })
    : await startRedisServer({
        port: Number(new URL(config.redisUrl).port || 6379),
        dir: ownDir,
        log,
        installLog,
      });
  await claimOrStop(server, config.dataDir);
  return { url: config.redisUrl, server };
}
