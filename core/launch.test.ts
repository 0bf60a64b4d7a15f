/**
 * The launcher of ingesting commands, with real processes: the child gets the flags and environment,
 * a terminal's Ctrl+C (SIGINT to the launcher's process group) reaches the child exactly once, the
 * launcher exits as the child did, and a child whose launcher was SIGKILLed shuts down.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasHeapFlags, ingestionEnv, needsRelaunch } from './launch.ts';

const CHILD = path.join(import.meta.dirname, 'launch.child.ts');

interface Ready {
  pid: number;
  pgid: number;
  heapLimitMb: number;
  execArgv: string[];
  je?: string;
  launched?: string;
}

function startLauncher(code: number) {
  // Its own process group, as a shell gives a foreground job: a signal to the group is what a
  // terminal's Ctrl+C sends.
  const launcher = spawn(process.execPath, ['--import', 'tsx', CHILD, 'launcher', String(code)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  let err = '';
  launcher.stderr!.on('data', (d) => {
    err += d;
  });
  const ready = new Promise<Ready>((resolve, reject) => {
    launcher.stdout!.on('data', (d) => {
      out += d;
      const m = /^READY (.*)$/m.exec(out);
      if (m) resolve(JSON.parse(m[1]!) as Ready);
    });
    launcher.once('exit', () => reject(new Error(`launcher exited before the child was ready: ${err}`)));
  });
  // Everything written to the pipe, by the launcher or the child (which inherits it), until both close.
  const closed = new Promise<string>((resolve) => launcher.stdout!.once('close', () => resolve(out)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    launcher.once('exit', (c, s) => resolve({ code: c, signal: s })),
  );
  return { launcher, ready, closed, exited };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

function signals(out: string): string[] {
  const m = /^SIGNALS (.*)$/m.exec(out);
  return m ? (JSON.parse(m[1]!) as string[]) : [];
}

describe('launching an ingesting command with its memory settings', () => {
  it('decides from the flags and environment the process was started with', () => {
    expect(needsRelaunch([], {})).toBe(true);
    expect(needsRelaunch(['--max-old-space-size=512'], {})).toBe(false);
    expect(needsRelaunch([], { NODE_OPTIONS: '--max_old_space_size=512' })).toBe(false);
    expect(needsRelaunch([], { NODE_OPTIONS: '--max-semi-space-size=64' })).toBe(false);
    expect(needsRelaunch([], { NODE_OPTIONS: '--max-heap-size=900' })).toBe(false);
    expect(needsRelaunch(['--import', 'tsx'], { NODE_OPTIONS: '--enable-source-maps' })).toBe(true);
    expect(needsRelaunch([], { PMDATA_LAUNCHED: '1' })).toBe(false);
    expect(hasHeapFlags(['--max-old-space-size=384'], {})).toBe(true);
    expect(ingestionEnv({}).JE_MALLOC_CONF).toBe('dirty_decay_ms:10000,muzzy_decay_ms:0');
    expect(ingestionEnv({ JE_MALLOC_CONF: 'dirty_decay_ms:0' }).JE_MALLOC_CONF).toBe('dirty_decay_ms:0');
    expect(ingestionEnv({}).UV_THREADPOOL_SIZE).toBe('8');
    expect(ingestionEnv({ UV_THREADPOOL_SIZE: '16' }).UV_THREADPOOL_SIZE).toBe('16');
  });

  it('starts the child with the flags and environment; one Ctrl+C reaches it once; the launcher exits with its code', async () => {
    const run = startLauncher(7);
    const ready = await run.ready;
    expect(ready.execArgv).toContain('--max-old-space-size=200');
    // The flag took effect: V8's limit is the old space asked for plus the young generation.
    expect(ready.heapLimitMb).toBeLessThan(300);
    expect(ready.je).toBe('dirty_decay_ms:1234');
    expect(ready.launched).toBe('1');
    // Its own process group: the terminal's signal does not reach it beside the forwarded one.
    expect(ready.pgid).toBe(ready.pid);
    process.kill(-run.launcher.pid!, 'SIGINT');
    expect(await run.exited).toEqual({ code: 7, signal: null });
    expect(signals(await run.closed)).toEqual(['SIGINT']);
    expect(await gone(ready.pid)).toBe(true);
  });

  it('forwards SIGTERM sent to the launcher alone', async () => {
    const run = startLauncher(0);
    await run.ready;
    run.launcher.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(signals(await run.closed)).toEqual(['SIGTERM']);
  });

  it('dies of the signal that killed the child', async () => {
    const run = startLauncher(0);
    const ready = await run.ready;
    process.kill(ready.pid, 'SIGKILL');
    expect(await run.exited).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('a child whose launcher was SIGKILLed shuts down as on SIGTERM', async () => {
    const run = startLauncher(0);
    const ready = await run.ready;
    run.launcher.kill('SIGKILL');
    expect(signals(await run.closed)).toEqual(['SIGTERM']);
    expect(await gone(ready.pid)).toBe(true);
  });
});
