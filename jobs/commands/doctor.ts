/**
 * `pmdata doctor`: checks what pmdata needs and prints one line per check with versions and, for
 * what is wrong, what to do. Required checks (configuration, ClickHouse, Redis) decide the exit code;
 * upstream reachability (RPC, venue APIs) is reported as a warning, since the API serves without it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createClickHouse, EngineBusyError } from '../../core/clickhouse/index.ts';
import { type Config, loadConfig, VARIABLES, type VariableSpecs } from '../../core/config.ts';
import { ConfigError } from '../../core/errors.ts';
import { createLogger } from '../../core/logger.ts';
import { MIN_CLICKHOUSE_VERSION } from '../../core/migrations.ts';
import { createRedis, redisAnswers } from '../../core/redis.ts';
import { findRedisServer } from '../../core/redis-server.ts';
import { alphaConfig } from '../../ingest/venues/alpha/config.ts';
import { CONFIG_SECTIONS } from '../config.ts';

type Status = 'ok' | 'warn' | 'fail';
interface Check {
  name: string;
  status: Status;
  detail: string;
}

function versionAtLeast(version: string, min: string): boolean {
  const a = version.split('.').map(Number);
  const b = min.split('.').map(Number);
  for (let i = 0; i < b.length; i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return true;
}

async function checkClickHouse(config: Config): Promise<Check> {
  const log = createLogger({ level: 'silent' });
  try {
    const ch = await createClickHouse({ config, log, maxAttempts: 1 });
    const p = await ch.ping();
    await ch.close();
    if (!p.ok) return { name: 'clickhouse', status: 'fail', detail: p.error ?? 'no answer' };
    const mode = config.embedded
      ? `embedded chDB at ${path.join(config.dataDir, 'clickhouse')}`
      : config.clickhouseUrl!;
    if (!config.embedded && p.version && !versionAtLeast(p.version, MIN_CLICKHOUSE_VERSION)) {
      return {
        name: 'clickhouse',
        status: 'fail',
        detail: `${mode}: version ${p.version} is older than the minimum ${MIN_CLICKHOUSE_VERSION}`,
      };
    }
    return { name: 'clickhouse', status: 'ok', detail: `${mode}, version ${p.version}` };
  } catch (err) {
    if (err instanceof EngineBusyError) {
      return {
        name: 'clickhouse',
        status: 'ok',
        detail: `embedded chDB in use by process ${err.owner} (a running pmdata); not opened`,
      };
    }
    return { name: 'clickhouse', status: 'fail', detail: (err as Error).message };
  }
}

async function checkRedis(config: Config): Promise<Check> {
  if (await redisAnswers(config.redisUrl, 1500)) {
    const client = createRedis(config.redisUrl, { maxRetriesPerRequest: 1 });
    try {
      const info = await client.info('server');
      const version = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
      return { name: 'redis', status: 'ok', detail: `${config.redisUrl}, version ${version}` };
    } finally {
      client.disconnect();
    }
  }
  const binary = findRedisServer();
  if (config.redisEmbedded && binary) {
    return {
      name: 'redis',
      status: 'ok',
      detail: `nothing at ${config.redisUrl} yet; pmdata will start ${binary} there (REDIS_EMBEDDED)`,
    };
  }
  if (config.redisEmbedded) {
    return {
      name: 'redis',
      status: fs.existsSync('/etc/debian_version') && process.getuid?.() === 0 ? 'warn' : 'fail',
      detail:
        'redis-server not installed; `pmdata up` installs it with apt on Debian as root, otherwise install it ' +
        '(apt-get install redis-server / brew install redis) or set REDIS_URL',
    };
  }
  return { name: 'redis', status: 'fail', detail: `nothing answers at REDIS_URL=${config.redisUrl}` };
}

async function rpcCall(url: string, method: string): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
    signal: AbortSignal.timeout(3000),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
  return body.result;
}

async function checkRpc(url: string): Promise<Check> {
  try {
    const [chainId, head] = await Promise.all([rpcCall(url, 'eth_chainId'), rpcCall(url, 'eth_blockNumber')]);
    return {
      name: `rpc ${url}`,
      status: 'ok',
      detail: `chain id ${Number(chainId)}, head block ${Number(head)}`,
    };
  } catch (err) {
    return {
      name: `rpc ${url}`,
      status: 'warn',
      detail: `not reachable (${(err as Error).message}); chain ingestion will wait for it`,
    };
  }
}

/** Variables named *_URL(S) that have their own check above, or are not an upstream. */
const CHECKED_APART = new Set(['CLICKHOUSE_URL', 'REDIS_URL', 'ALPHA_RPC_URLS']);

/**
 * Every upstream pmdata reads from: each variable named *_URL or *_URLS, in core's or any source's
 * section (so a venue added later is checked without touching this), less those checked apart; a
 * WebSocket (ws, wss) is reached by an HTTP request to the same address.
 */
export function upstreamUrls(config: Config): { env: string; url: string }[] {
  const out: { env: string; url: string }[] = [];
  const blocks: [VariableSpecs, Readonly<Record<string, unknown>>][] = [
    [VARIABLES, config],
    ...CONFIG_SECTIONS.map((s): [VariableSpecs, Readonly<Record<string, unknown>>] => [
      s.variables,
      s.of(config),
    ]),
  ];
  for (const [specs, values] of blocks) {
    for (const [key, spec] of Object.entries(specs)) {
      if (!/_URLS?$/.test(spec.env) || CHECKED_APART.has(spec.env)) continue;
      const value = values[key];
      for (const v of Array.isArray(value) ? value : [value]) {
        if (typeof v === 'string' && /^(https?|wss?):\/\//.test(v)) out.push({ env: spec.env, url: v });
      }
    }
  }
  return out;
}

async function checkUpstream(env: string, url: string): Promise<Check> {
  try {
    // A WebSocket's address answers a plain HTTP request too (an error status, without the upgrade).
    const res = await fetch(url.replace(/^ws/, 'http'), { signal: AbortSignal.timeout(3000) });
    await res.body?.cancel();
    return { name: `upstream ${env}`, status: 'ok', detail: `${url} answered HTTP ${res.status}` };
  } catch (err) {
    return {
      name: `upstream ${env}`,
      status: 'warn',
      detail: `${url} not reachable (${(err as Error).message})`,
    };
  }
}

export async function runDoctor(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const checks: Check[] = [{ name: 'node', status: 'ok', detail: process.version }];
  let config: Config;
  try {
    config = loadConfig(env, CONFIG_SECTIONS);
    checks.push({ name: 'config', status: 'ok', detail: 'all variables valid' });
  } catch (err) {
    const problems = err instanceof ConfigError ? err.problems.map((p) => `${p.variable}: ${p.message}`) : [];
    checks.push({ name: 'config', status: 'fail', detail: problems.join('; ') || (err as Error).message });
    print(checks);
    return 1;
  }
  checks.push(await checkClickHouse(config));
  checks.push(await checkRedis(config));
  for (const url of alphaConfig.of(config).rpcUrls) checks.push(await checkRpc(url));
  for (const u of upstreamUrls(config)) checks.push(await checkUpstream(u.env, u.url));
  print(checks);
  return checks.some((c) => c.status === 'fail') ? 1 : 0;
}

function print(checks: Check[]) {
  const mark = { ok: 'ok  ', warn: 'WARN', fail: 'FAIL' } as const;
  const width = Math.max(...checks.map((c) => c.name.length));
  for (const c of checks) process.stdout.write(`${mark[c.status]}  ${c.name.padEnd(width)}  ${c.detail}\n`);
}
