/**
 * `npm run bench -- demo-starts [--runs 20] [--timeout 240] [--rate N] [--node] [--keep]`: starts the demo
 * `runs` times in a row, each in a fresh data dir with a Redis port of its own, as a user does
 * (`npm run demo`; `--node`: `node bin/pmdata.js demo` without npm), waits for "Press Ctrl+C", then stops
 * it with SIGINT to its process group (what Ctrl+C in a terminal does) and waits for it to exit. A start
 * fails when the demo exits, or is not ready within `--timeout` seconds (default 600: on the shared 2-core
 * machine a start took up to ≈ 220 s); a stop is unclean when a process of the group is left 60 s after
 * the SIGINT (they are then killed) or the demo exits other than 0 (under npm, which dies of the SIGINT
 * itself: 0 or the signal). A failed start's output and data dir are kept and printed
 * (`--keep`: every data dir). Figures: time to ready per start, its p50 and max.
 * Last line: `SUMMARY starts=N ok=… failed=… p50_s=… max_s=… unclean_stops=…`.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { freePort } from '../core/net.ts';

const root = path.resolve(import.meta.dirname, '..');
const READY = 'Press Ctrl+C';
const STOP_MS = 60_000;

interface Start {
  ok: boolean;
  readyS: number | null;
  stopS: number | null;
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  clean: boolean;
  why?: string;
}

const pct = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((sorted.length * p) / 100) - 1)]!;
const s1 = (ms: number) => Math.round(ms / 100) / 10;

/** Every process below `pid` (Linux /proc). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(e)]);
    } catch {}
  }
  const out: number[] = [];
  for (let todo = [pid]; todo.length > 0; ) {
    const next = children.get(todo.pop()!) ?? [];
    out.push(...next);
    todo.push(...next);
  }
  return out;
}

/** One start: spawn, wait for the ready line, SIGINT the group, wait for the exit. */
async function startOnce(
  n: number,
  dir: string,
  o: { timeoutMs: number; rate?: string; node: boolean },
): Promise<Start> {
  const demoArgs = ['demo', ...(o.rate ? ['--rate', o.rate] : [])];
  const [cmd, args] = o.node
    ? [process.execPath, [path.join(root, 'bin/pmdata.js'), ...demoArgs]]
    : ['npm', ['run', '--silent', 'demo', '--', ...demoArgs.slice(1)]];
  const logPath = path.join(dir, 'demo-output.log');
  fs.mkdirSync(dir, { recursive: true });
  const dataDir = path.join(dir, 'data');
  const child = spawn(cmd, args, {
    cwd: root,
    // A process group of its own: SIGINT reaches npm, its shell and the demo, as Ctrl+C does.
    detached: true,
    env: {
      ...process.env,
      PMDATA_DATA_DIR: dataDir,
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      PORT: '0',
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
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void exited.then((e) => {
    exit = e;
  });
  const groupAlive = () => {
    try {
      process.kill(-child.pid!, 0);
      return true;
    } catch {
      return false;
    }
  };
  const t0 = performance.now();
  const result: Start = {
    ok: false,
    readyS: null,
    stopS: null,
    exitCode: null,
    exitSignal: null,
    clean: false,
  };
  while (!out.includes(READY)) {
    if (exit !== undefined) {
      result.why = `exited ${exit.code ?? exit.signal} before "${READY}"`;
      break;
    }
    if (performance.now() - t0 > o.timeoutMs) {
      result.why = `not ready in ${o.timeoutMs / 1000} s`;
      break;
    }
    await sleep(100);
  }
  if (!result.why) {
    result.ok = true;
    result.readyS = s1(performance.now() - t0);
  }
  const t1 = performance.now();
  // SIGINT to the group (what Ctrl+C does), then wait until every process of the group is gone.
  try {
    process.kill(-child.pid!, 'SIGINT');
  } catch {}
  while ((exit === undefined || groupAlive()) && performance.now() - t1 < STOP_MS) await sleep(100);
  if (exit === undefined || groupAlive()) {
    // The demo's redis-server and chain run in process groups of their own: kill them by pid too.
    for (const pid of [child.pid!, ...descendants(child.pid!)]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {}
    await exited;
    result.why = `${result.why ? `${result.why}; ` : ''}still running ${STOP_MS / 1000} s after SIGINT (killed)`;
  } else {
    result.exitCode = exit.code;
    result.exitSignal = exit.signal;
    result.stopS = s1(performance.now() - t1);
    result.clean =
      result.ok && (exit.code === 0 || (!o.node && exit.code === null && exit.signal === 'SIGINT'));
  }
  fs.writeFileSync(logPath, out);
  if (!result.ok || !result.clean) {
    const tail = out.trimEnd().split('\n').slice(-12).join('\n    ');
    process.stdout.write(`  start ${n} output (last lines; all in ${logPath}):\n    ${tail}\n`);
  }
  return result;
}

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string', default: '20' },
      timeout: { type: 'string', default: '600' },
      rate: { type: 'string' },
      node: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
    },
  });
  const runs = Number(values.runs);
  const timeoutMs = Number(values.timeout) * 1000;
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(`--runs: expected a positive integer, got ${values.runs}`);
  if (!(timeoutMs > 0)) throw new Error(`--timeout: expected seconds > 0, got ${values.timeout}`);
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'pmdata-demo-starts-'));
  process.stdout.write(
    `demo-starts: ${runs} starts of ${values.node ? 'node bin/pmdata.js demo' : 'npm run demo'} in a row, ` +
      `each in a fresh data dir under ${base}\n`,
  );
  const starts: Start[] = [];
  for (let i = 1; i <= runs; i++) {
    const dir = path.join(base, `start-${i}`);
    const s = await startOnce(i, dir, { timeoutMs, rate: values.rate, node: values.node });
    starts.push(s);
    process.stdout.write(
      `start ${i}/${runs} ${s.ok ? 'ok' : 'FAILED'}: ` +
        (s.ok ? `ready in ${s.readyS} s` : String(s.why)) +
        (s.stopS !== null ? `; stopped in ${s.stopS} s (exit ${s.exitCode ?? s.exitSignal})` : '') +
        (s.ok && s.why ? `; ${s.why}` : '') +
        '\n',
    );
    if (s.ok && s.clean && !values.keep) fs.rmSync(dir, { recursive: true, force: true });
  }
  if (!values.keep && fs.readdirSync(base).length === 0) fs.rmSync(base, { recursive: true, force: true });
  const ready = starts
    .filter((s) => s.ok)
    .map((s) => s.readyS!)
    .sort((a, b) => a - b);
  const ok = ready.length;
  process.stdout.write(
    `SUMMARY starts=${runs} ok=${ok} failed=${runs - ok} p50_s=${pct(ready, 50)} max_s=${ready.at(-1) ?? 0} ` +
      `unclean_stops=${starts.filter((s) => s.ok && !s.clean).length}\n`,
  );
}
