/**
 * Memory settings of the processes that ingest, applied by starting the command again in a child
 * process. V8 reads its heap limits, and the embedded engine's allocator its configuration, once, when
 * a process starts: neither can be changed from inside (`v8.setFlagsFromString` leaves the heap limit
 * where it was). See docs/operations.md, "Memory of ingestion processes".
 *
 * The child runs in its own process group, so a terminal's Ctrl+C reaches the launcher only, which
 * forwards it once: the child's first signal is a graceful shutdown and a second one exits at once,
 * so two copies of one Ctrl+C must not both arrive. The launcher forwards SIGINT, SIGTERM and SIGHUP
 * and exits the way the child did (its code, or its signal). If the launcher dies without forwarding
 * anything (SIGKILL), the child sees its IPC channel close and shuts down as on SIGTERM.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';

/**
 * V8 flags of an ingesting process: a capped old space keeps the heap near its live set instead of
 * letting garbage pile up between major collections (with Node's default limit, ≈ 4 GiB on a 24 GiB
 * machine, a 1M-fill backfill peaked at 922–1,049 MiB); a 32 MB young generation lets the mapper's
 * short-lived rows die there instead of being promoted (16 MB: decode + write ~20 % slower; 64 MB:
 * ~40 MiB more RSS and no faster). A larger old-generation growing factor under the cap was ≈ 10 %
 * faster but put the shipped backfill over 1 GiB (docs/operations.md). A 160 MB floor under the
 * old generation's limit stops V8 from setting it to ≈ 1.5 × the live set after every full collection
 * (≈ 55 MB live: a full collection every 150–300 ms); the heap itself stays where it was.
 */
export const INGESTION_NODE_FLAGS: readonly string[] = [
  '--max-old-space-size=384',
  '--max-semi-space-size=32',
  '--initial-old-space-size=160',
];

/**
 * The embedded engine's jemalloc: freed pages are kept for up to 10 s before they go back to the
 * system, muzzy pages at once. chDB's jemalloc reads JE_MALLOC_CONF (prefixed build); MALLOC_CONF is
 * set too for an unprefixed one. A value already in the environment is kept.
 */
export const ENGINE_MALLOC_CONF = 'dirty_decay_ms:10000,muzzy_decay_ms:0';

/**
 * libuv threads of a process holding the embedded engine. A running chDB statement holds one of them
 * for its whole run, and the engine has up to five sessions at work (the main one, two insert lanes, two
 * read lanes: core/clickhouse/embedded.ts); with libuv's default of 4, a read could wait for a thread
 * behind the writes, and file I/O behind both. libuv reads the variable when its pool starts, before any
 * of our code runs, so it is set in the environment of the process: the npm scripts, the image, and the
 * ingestion child processes.
 */
export const ENGINE_THREADPOOL_SIZE = '8';

/** Set in the child's environment: it is the launched process (and must not launch again). */
export const LAUNCHED_ENV = 'PMDATA_LAUNCHED';

const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** True when the process was started with its own V8 heap limits (flags or NODE_OPTIONS): they win. */
export function hasHeapFlags(execArgv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  const flags = `${execArgv.join(' ')} ${env.NODE_OPTIONS ?? ''}`;
  return /--max[-_](old[-_]space|semi[-_]space|heap)[-_]size/.test(flags);
}

/**
 * The environment of an ingesting process: the engine's allocator setting and its libuv threads unless
 * given.
 */
export function ingestionEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...env,
    UV_THREADPOOL_SIZE: env.UV_THREADPOOL_SIZE ?? ENGINE_THREADPOOL_SIZE,
    JE_MALLOC_CONF: env.JE_MALLOC_CONF ?? ENGINE_MALLOC_CONF,
    MALLOC_CONF: env.MALLOC_CONF ?? ENGINE_MALLOC_CONF,
  };
}

/** Whether this process should start its command again with the ingestion settings. */
export function needsRelaunch(
  execArgv: readonly string[] = process.execArgv,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  return env[LAUNCHED_ENV] === undefined && !hasHeapFlags(execArgv, env);
}

/**
 * Runs `script args` again in a child process with `flags` and `env`, forwards signals to it, and
 * exits as it exits. Never returns.
 */
export function relaunch(
  script: string,
  args: readonly string[],
  opts: { flags: readonly string[]; env: NodeJS.ProcessEnv },
): Promise<never> {
  const child = spawn(process.execPath, [...process.execArgv, ...opts.flags, script, ...args], {
    // stdin is not read by the launched commands; a background process group reading the terminal
    // would be stopped (SIGTTIN).
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    detached: true,
    env: { ...opts.env, [LAUNCHED_ENV]: '1' },
  });
  const forward = (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
  return new Promise<never>(() => {
    child.once('error', (err) => {
      process.stderr.write(`pmdata: could not start the command's process: ${err.message}\n`);
      process.exit(1);
    });
    child.once('exit', (code, signal) => {
      for (const s of FORWARDED_SIGNALS) process.removeListener(s, forward);
      if (!signal) process.exit(code ?? 1);
      // Die of the same signal, so a shell sees what the command died of; exit with its status if
      // that signal does not end this process.
      process.kill(process.pid, signal);
      setTimeout(() => process.exit(128 + os.constants.signals[signal]), 100);
    });
  });
}

/**
 * In a launched child: shut down (as on SIGTERM) when the launcher is gone, and do not let the IPC
 * channel keep the process alive.
 */
export function attachToLauncher(): void {
  if (process.env[LAUNCHED_ENV] === undefined || !process.channel) return;
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}
