/**
 * A new user's first run, on a terminal: `npm run demo` under a pseudo-terminal (util-linux `script`), with
 * an empty contract compile cache (SIM_CONTRACTS_BUILD_DIR), says what it does (compile, start, backfill,
 * the rest) in human lines and shows no JSON log line; run again on the same data dir, it starts afresh
 * (the follower reads the new chain: no "Reorg below"); a data dir that is not a demo's is refused with
 * exit code 2 and left as it is. Also: `--help` lists every option with its default, a bad enum value
 * names the allowed values, and `doctor` checks every upstream variable.
 *
 * Not covered: a machine without redis-server (apt is real here, and uninstalling it is not ours to do);
 * the install path prints its line and keeps apt's output in <data dir>/logs/redis-server-install.log.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { VARIABLES } from '../core/config.ts';
import { freePort } from '../core/net.ts';
import { redisAnswers } from '../core/redis.ts';
import { CONFIG_SECTIONS } from '../jobs/config.ts';

const root = path.resolve(import.meta.dirname, '..');
const bin = path.join(root, 'bin/pmdata.js');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

const baseEnv = () => ({ PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'xterm' });
const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
/** Terminal output without colours, carriage returns and line rewrites. */
const plain = (s: string) =>
  stripVTControlCharacters(s)
    .split(/\r?\n/)
    .map((l) => l.split('\r').at(-1) ?? '')
    .join('\n');

/** `pmdata <args>` on a pseudo-terminal; Ctrl+C is typed into it, as a user would. */
function onTerminal(args: string[], env: Record<string, string | undefined>) {
  // `exec`: pmdata is the terminal's foreground process itself, so its exit code is script's (a shell
  // between them would exit 130 after a Ctrl+C whatever pmdata's own code).
  const command = `exec ${[process.execPath, bin, ...args].map(quote).join(' ')}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: root,
    env: { ...baseEnv(), ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => {
    out += String(d);
  });
  child.stderr!.on('data', (d) => {
    out += String(d);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    output: () => out,
    exited,
    async waitFor(text: string | RegExp, ms: number): Promise<string> {
      const started = Date.now();
      const found = () => (typeof text === 'string' ? out.includes(text) : text.test(out));
      while (!found()) {
        if (child.exitCode !== null)
          throw new Error(`exited ${child.exitCode} before ${text}:\n${plain(out)}`);
        if (Date.now() - started > ms) throw new Error(`no ${text} in ${ms} ms:\n${plain(out)}`);
        await sleep(200);
      }
      return plain(out);
    },
    ctrlC() {
      child.stdin!.write('\x03');
    },
  };
}

function pmdata(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    env: { ...baseEnv(), LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Output lines that are JSON objects (a log line in JSON). */
const jsonLines = (text: string) =>
  text.split('\n').filter((l) => {
    if (!l.trim().startsWith('{')) return false;
    try {
      return typeof JSON.parse(l.trim()) === 'object';
    } catch {
      return false;
    }
  });

describe('first run', () => {
  it('the demo on a terminal: progress and human lines only, then again on its data dir: afresh', async () => {
    const tmp = inject('tmpRoot') as string;
    const dataDir = path.join(tmp, `first-run-${process.pid}`);
    const buildDir = fs.mkdtempSync(path.join(tmp, 'contracts-build-'));
    const env = {
      PMDATA_DATA_DIR: dataDir,
      SIM_CONTRACTS_BUILD_DIR: buildDir,
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      PORT: '0',
    };

    const first = onTerminal(['demo', '--rate', '2'], env);
    let out = await first.waitFor('Press Ctrl+C', 240_000);
    first.ctrlC();
    expect(await first.exited).toBe(0);
    // No compiled contracts: it says so, compiles into the empty cache, says how long it took.
    expect(out).toMatch(
      /Compiling the sim's Solidity contracts .*\.\.\.\n {2}compiled \d+ contracts in \d+ s/,
    );
    expect(fs.readdirSync(buildDir).some((f) => f.endsWith('.json'))).toBe(true);
    expect(out).toContain(`Logs: ${path.join(dataDir, 'logs', 'pmdata.log')}`);
    expect(out).toMatch(
      /Starting pmdata \(ClickHouse, Redis, migrations\)\.\.\.\n {2}clickhouse .* migrations applied/,
    );
    expect(out).toMatch(/alpha backfill done in [\d.]+ s: blocks 0\.\.\d+/);
    expect(out).toMatch(/Ingesting venue epsilon from its replica\.\.\./);
    expect(jsonLines(out), out).toEqual([]);
    // The requests, jobs and the rest are in the log file (JSON), not on the terminal.
    const log = fs
      .readFileSync(path.join(dataDir, 'logs', 'pmdata.log'), 'utf8')
      .trim()
      .split('\n');
    expect(log.length).toBeGreaterThan(20);
    for (const l of log.slice(0, 20)) expect(() => JSON.parse(l)).not.toThrow();
    const firstRpc = (
      JSON.parse(fs.readFileSync(path.join(dataDir, 'demo.json'), 'utf8')) as { rpc_url: string }
    ).rpc_url;

    // Again on the same data dir: the earlier demo's data is removed and the new chain followed. The
    // follower starts with pmdata, before the backfill; with the earlier chain's data it failed with
    // "Reorg below block ..." from its first poll. Stopped with Ctrl+C while still starting (the catalog
    // is synced, the venues not yet): it stops the chain and its redis-server, and exits 130.
    const second = onTerminal(['demo', '--rate', '5'], env);
    out = await second.waitFor(/^ {2}catalog: /m, 180_000);
    second.ctrlC();
    expect(await second.exited).toBe(130);
    out = plain(second.output());
    expect(out).toContain(`Removing the earlier demo's data in ${dataDir}`);
    expect(out).not.toContain('Compiling');
    expect(out).toMatch(/alpha backfill done in .* 0 quarantined/);
    expect(Number(/([\d,]+) events read/.exec(out)?.[1]?.replaceAll(',', ''))).toBeGreaterThan(0);
    expect(out).toContain('Stopping after the current step (SIGINT; again to exit at once)...');
    expect(out).not.toMatch(/Reorg below/);
    expect(jsonLines(out), out).toEqual([]);
    const demo = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo.json'), 'utf8')) as { rpc_url: string };
    expect(demo.rpc_url).not.toBe(firstRpc);
    const log2 = fs.readFileSync(path.join(dataDir, 'logs', 'pmdata.log'), 'utf8');
    expect(log2).not.toMatch(/Reorg below/);
    expect(log2).toMatch(/"msg":"Started alpha follower"/);
    // Nothing it started is left running.
    expect(await redisAnswers(env.REDIS_URL, 500)).toBe(false);
    await expect(
      fetch(demo.rpc_url, { method: 'POST', signal: AbortSignal.timeout(2000) }),
    ).rejects.toThrow();
  }, 480_000);

  it('refuses a data dir that holds something other than a demo, exit 2, and leaves it as it is', async () => {
    const dataDir = fs.mkdtempSync(path.join(inject('tmpRoot') as string, 'not-a-demo-'));
    fs.writeFileSync(path.join(dataDir, 'notes.txt'), 'mine\n');
    const run = onTerminal(['demo'], {
      PMDATA_DATA_DIR: dataDir,
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
    });
    expect(await run.exited).toBe(2);
    const out = plain(run.output());
    expect(out).toContain(
      `PMDATA_DATA_DIR=${dataDir} holds data that is not an earlier demo's (no demo.json)`,
    );
    expect(out).toMatch(/Point PMDATA_DATA_DIR at an empty or new directory, or unset it/);
    expect(fs.readdirSync(dataDir)).toEqual(['notes.txt']);
  });

  it('logs as human lines on a terminal, JSON when piped or with --log-format json', async () => {
    // Each on a new data dir, so that each applies the migrations and logs them.
    let n = 0;
    const env = () => ({
      PMDATA_DATA_DIR: path.join(inject('tmpRoot') as string, `log-format-${process.pid}-${n++}`),
      REDIS_URL: inject('redisUrl') as string,
      LOG_LEVEL: 'info',
    });
    const human = onTerminal(['migrate'], env());
    expect(await human.exited).toBe(0);
    const text = plain(human.output());
    expect(text).toMatch(/^\d\d:\d\d:\d\d INFO {2}pmdata: \S.*$/m);
    expect(jsonLines(text)).toEqual([]);
    const json = onTerminal(['migrate', '--log-format', 'json'], env());
    expect(await json.exited).toBe(0);
    expect(jsonLines(plain(json.output())).length).toBeGreaterThan(0);
    const piped = pmdata(['migrate'], env());
    expect(piped.code).toBe(0);
    expect(jsonLines(piped.err).length).toBeGreaterThan(0);
    const bad = pmdata(['migrate', '--log-format', 'fancy'], env());
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--log-format: got "fancy", expected one of auto, pretty, json');
  });

  it('--help lists every option with its default; a bad enum value names the allowed values', () => {
    const demo = pmdata(['demo', '--help']);
    expect(demo.code).toBe(0);
    expect(demo.out).toMatch(/--seed <value> +world seed .*\(default: demo\)/);
    expect(demo.out).toMatch(/--size <value> +world size: small, medium or large \(default: small\)/);
    expect(demo.out).toMatch(/--rate <value> +live trading rate, matches per second \(default: 2\)/);
    expect(demo.out).toMatch(/--log-format <auto\|pretty\|json> .*\(default: auto/);
    expect(pmdata(['--help']).out).toMatch(/--log-format <auto\|pretty\|json>/);
    expect(pmdata(['tail', '--help']).out).toMatch(/--url <value> +.*\(default: ws:\/\/127\.0\.0\.1:8080\)/);
    const backfill = pmdata(['backfill', '--help']).out;
    for (const flag of [
      '--from-block',
      '--to-block',
      '--concurrency',
      '--force',
      '--enqueue-only',
      '--trades',
      '--from ',
    ]) {
      expect(backfill).toMatch(new RegExp(`^ {2}${flag}.*\\(default: [^)]+\\)`, 'm'));
    }
    expect(pmdata(['follow', '--help']).out).toMatch(/--from-block N .*\(default: /);
    const keysHelp = pmdata(['keys', '--help']).out;
    for (const flag of ['--tier', '--name', '--rate', '--stream', '--month']) {
      expect(keysHelp).toMatch(new RegExp(`^ {2}${flag} .*(default|required)`, 'm'));
    }

    const gold = pmdata(['keys', 'create', '--tier', 'gold', '--name', 'x'], {
      REDIS_URL: inject('redisUrl') as string,
    });
    expect(gold.code).toBe(2);
    expect(gold.err).toContain('--tier: got "gold", expected one of free, dev, pro, enterprise');
    const size = pmdata(['demo', '--size', 'huge']);
    expect(size.code).not.toBe(0);
    expect(size.err).toContain('--size: got "huge", expected small, medium or large');
  });

  it('doctor checks every upstream variable of the configuration', () => {
    const r = pmdata(['doctor'], {
      PMDATA_DATA_DIR: path.join(inject('tmpRoot') as string, `doctor-first-run-${process.pid}`),
      REDIS_URL: inject('redisUrl') as string,
      // Nothing listens here: every upstream is reported (as a warning), none is skipped.
      ...Object.fromEntries(
        upstreamVariables().map((v) => [v, /_WS_URL$/.test(v) ? 'ws://127.0.0.1:9' : 'http://127.0.0.1:9']),
      ),
      ALPHA_RPC_URLS: 'http://127.0.0.1:9',
    });
    expect(r.code, r.out + r.err).toBe(0);
    for (const v of upstreamVariables()) expect(r.out).toMatch(new RegExp(`^WARN\\s+upstream ${v}\\s`, 'm'));
    expect(r.out).toMatch(/^WARN\s+rpc http:\/\/127\.0\.0\.1:9\s/m);
  });
});

/** Every *_URL variable of core and the sources, less those doctor checks apart (ClickHouse, Redis, RPC). */
function upstreamVariables(): string[] {
  const all = [VARIABLES, ...CONFIG_SECTIONS.map((s) => s.variables)].flatMap((specs) =>
    Object.values(specs).map((s) => s.env),
  );
  return all.filter(
    (e) => /_URLS?$/.test(e) && !['CLICKHOUSE_URL', 'REDIS_URL', 'ALPHA_RPC_URLS'].includes(e),
  );
}
