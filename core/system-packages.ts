/**
 * Programs pmdata runs that npm does not install (`redis-server`; for the tests also `chromium` and
 * `promtool`): found on PATH, or installed with apt on Debian when running as root, or a message saying
 * how to get them. The embedded Redis (core/redis-server.ts) and the README's test command
 * (`npm test`: bin/test-deps.js) use it; CI runs that same command.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Directories searched after PATH (a root shell's PATH may lack the sbin ones). */
const SEARCH_PATHS = ['/usr/bin', '/usr/sbin', '/usr/local/bin', '/opt/homebrew/bin'];

/** A program, and the Debian package that provides it. */
export interface SystemProgram {
  command: string;
  package: string;
  /** apt's `--no-install-recommends` (prometheus would otherwise pull in a desktop's worth). */
  noRecommends?: boolean;
  /** How to get it elsewhere. */
  elsewhere: string;
}

/** The programs the test suite needs beyond npm's packages. */
export const TEST_PROGRAMS: readonly SystemProgram[] = [
  { command: 'redis-server', package: 'redis-server', elsewhere: 'macOS: brew install redis' },
  { command: 'chromium', package: 'chromium', elsewhere: 'any Chromium; set CHROMIUM_PATH to its binary' },
  {
    command: 'promtool',
    package: 'prometheus',
    noRecommends: true,
    elsewhere: 'macOS: brew install prometheus',
  },
];

/** The executable `command` on PATH or in the usual directories, or undefined. */
export function findCommand(command: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = [...(env.PATH ?? '').split(path.delimiter), ...SEARCH_PATHS];
  for (const dir of dirs) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {}
  }
  return undefined;
}

export interface Host {
  debian: boolean;
  root: boolean;
}

export function thisHost(): Host {
  return {
    debian: fs.existsSync('/etc/debian_version'),
    root: typeof process.getuid === 'function' && process.getuid() === 0,
  };
}

export type InstallPlan =
  | { action: 'none' }
  | { action: 'apt'; packages: string[]; noRecommends: string[] }
  | { action: 'refuse'; message: string };

/** What to do about the `missing` programs on `host`: nothing, apt, or a message saying how to get them. */
export function planInstall(missing: readonly SystemProgram[], host: Host): InstallPlan {
  if (missing.length === 0) return { action: 'none' };
  if (host.debian && host.root) {
    return {
      action: 'apt',
      packages: missing.filter((p) => !p.noRecommends).map((p) => p.package),
      noRecommends: missing.filter((p) => p.noRecommends).map((p) => p.package),
    };
  }
  const why = host.debian ? 'not running as root' : 'not a Debian system';
  const names = missing.map((p) => p.command).join(', ');
  const how = missing.map(
    (p) => `  ${p.command}: Debian \`apt-get install -y ${p.package}\`; ${p.elsewhere}`,
  );
  return {
    action: 'refuse',
    message: [
      `Missing: ${names}. They are installed with apt only on Debian as root (here: ${why}). Install them:`,
      ...how,
    ].join('\n'),
  };
}

/**
 * Runs `apt-get update` and `apt-get install -y` for the plan, its output appended to `installLog`.
 * Returns '' on success, else what failed (naming the log).
 */
export function aptInstall(plan: { packages: string[]; noRecommends: string[] }, installLog: string): string {
  fs.mkdirSync(path.dirname(installLog), { recursive: true });
  const fd = fs.openSync(installLog, 'a');
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const stdio: ['ignore', number, number] = ['ignore', fd, fd];
    const run = (args: string[]) => spawnSync('apt-get', args, { stdio, env });
    const steps: string[][] = [['update', '-qq']];
    if (plan.packages.length > 0) steps.push(['install', '-y', '-qq', ...plan.packages]);
    if (plan.noRecommends.length > 0) {
      steps.push(['install', '-y', '-qq', '--no-install-recommends', ...plan.noRecommends]);
    }
    for (const args of steps) {
      const r = run(args);
      if (r.status !== 0) {
        return `apt-get ${args[0]} failed (exit ${r.status ?? r.signal ?? r.error?.message}); its output is in ${installLog}`;
      }
    }
    return '';
  } finally {
    fs.closeSync(fd);
  }
}
