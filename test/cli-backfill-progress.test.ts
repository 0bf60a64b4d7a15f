/**
 * `pmdata backfill alpha` as a user sees it, on the sim's chain: under a pseudo-terminal (`script` from
 * util-linux) one progress line rewritten in place and the summary; piped, a plain progress line every
 * `--progress-interval`; with `--json`, stdout is the summary as one JSON line. Each run is the real CLI
 * (bin/pmdata.js) with its own data dir (embedded engine) and Redis database.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runBackfillCommand } from '../jobs/commands/backfill.ts';
import type { SavedSim } from '../sim/saved.ts';
import { SHARED_WORLD, sharedWorld } from './support/world-cache.ts';

const root = path.resolve(import.meta.dirname, '..');
const BIN = path.join(root, 'bin/pmdata.js');
let sim: SavedSim;

beforeAll(async () => {
  sim = await sharedWorld(SHARED_WORLD);
}, 120_000);
afterAll(async () => {
  await sim?.stop();
});

/** The run's environment: its own data dir and Redis database (`db`), ranges of 10 blocks. */
function env(name: string, db: number): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PMDATA_DATA_DIR: path.join(inject('tmpRoot'), `cli-backfill-${name}-${process.pid}`),
    REDIS_URL: `${inject('redisUrl')}/${db}`,
    LOG_LEVEL: 'warn',
    ALPHA_RPC_URLS: sim.rpcUrl,
    ALPHA_POSITION_IDS: 'simplified',
    ALPHA_START_BLOCK: '0',
    ALPHA_FINALITY_DEPTH: '0',
    ALPHA_BACKFILL_JOB_BLOCKS: '10',
  };
}

function run(cmd: string, args: string[], e: NodeJS.ProcessEnv) {
  const child = spawn(cmd, args, { cwd: root, env: e, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += String(d);
  });
  child.stderr.on('data', (d) => {
    stderr += String(d);
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stdout, stderr })),
  );
}

const backfillArgs = () => ['backfill', 'alpha', '--to-block', String(sim.historyHead)];
const blocks = () => (sim.historyHead + 1).toLocaleString('en-US');

describe('pmdata backfill alpha progress', () => {
  it('refuses a --progress-interval that is not a positive number of seconds, before touching any service', async () => {
    for (const venue of ['alpha', 'gamma']) {
      await expect(runBackfillCommand([venue, '--progress-interval', '0'], {} as never)).rejects.toThrow(
        '--progress-interval: expected a number of seconds > 0, got "0"',
      );
    }
  });

  it('under a pseudo-terminal rewrites one progress line in place, then prints the summary', async () => {
    const cmd = [process.execPath, BIN, ...backfillArgs()].join(' ');
    const r = await run('script', ['-qfec', cmd, '/dev/null'], env('tty', 13));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // Every draw starts with a carriage return and erases the rest of the line.
    const ERASE = '\x1b[K';
    const draws = [
      ...r.stdout.matchAll(/\ralpha backfill ([\d,]+)\/([\d,]+) blocks \[[#.]+\] [\d.]+% [^\r\n]*/g),
    ];
    for (const d of draws) expect(d[0].endsWith(ERASE), JSON.stringify(d[0])).toBe(true);
    // Drawn more than once: the line is rewritten, not repeated.
    expect(draws.length, r.stdout).toBeGreaterThan(1);
    expect(r.stdout.match(/\n[^\n]*alpha backfill [\d,]+\//g)?.length ?? 0).toBeLessThanOrEqual(1);
    for (const d of draws) expect(d[2]).toBe(blocks());
    expect(draws.at(-1)![1]).toBe(blocks());
    expect(draws.at(-1)![0]).toMatch(/ETA \S+ jobs (\d+)\/\1/);
    expect(r.stdout).toMatch(
      new RegExp(
        `alpha backfill done in [\\d.]+ s: blocks 0\\.\\.${sim.historyHead.toLocaleString('en-US')} \\(${blocks()}\\), ` +
          `\\d+ jobs, [\\d,]+ events read, [\\d,]+ rows written; ${blocks()} blocks, [\\d,]+ events ` +
          '\\([\\d,]+ blocks/s, [\\d,]+ events/s\\); 0 failed, 0 quarantined',
      ),
    );
  }, 120_000);

  it('piped, prints a plain progress line every --progress-interval and the summary on stdout', async () => {
    const r = await run(
      process.execPath,
      [BIN, ...backfillArgs(), '--progress-interval', '0.05'],
      env('pipe', 14),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('\r');
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('alpha backfill '));
    expect(lines.length, r.stderr).toBeGreaterThan(1);
    for (const l of lines) {
      expect(l).toMatch(
        new RegExp(
          `^alpha backfill [\\d,]+/${blocks()} blocks \\([\\d.]+%\\) [\\d,]+ blocks/s [\\d,]+ events/s ETA \\S+ jobs \\d+/\\d+$`,
        ),
      );
    }
    const out = r.stdout.trim().split('\n');
    expect(out[0]).toMatch(/^alpha backfill: reference pass over blocks 0\.\./);
    expect(out[1]).toMatch(/^Enqueued \d+ alpha backfill jobs/);
    expect(out.at(-1)).toMatch(/^alpha backfill done in [\d.]+ s: .*; 0 failed, 0 quarantined$/);
  }, 120_000);

  it('--json prints the summary as one JSON line on stdout and nothing else there', async () => {
    const r = await run(process.execPath, [BIN, ...backfillArgs(), '--json'], env('json', 15));
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n').filter(Boolean);
    expect(lines, r.stdout).toHaveLength(1);
    const s = JSON.parse(lines[0]!);
    const total = sim.historyHead + 1;
    expect(s).toMatchObject({
      command: 'alpha backfill',
      status: 'done',
      done: { blocks: total },
      failures: 0,
      quarantined: 0,
      from: 0,
      to: sim.historyHead,
      total_blocks: total,
    });
    expect(s.done.events).toBeGreaterThan(0);
    expect(s.rows).toBeGreaterThan(0);
    expect(s.jobs_done).toBe(s.jobs);
    expect(s.duration_s).toBeGreaterThan(0);
    expect(s.rates.blocks_per_s).toBeCloseTo(total / s.duration_s, 0);
    // The notes went to stderr, and no progress line was drawn.
    expect(r.stderr).toMatch(/Enqueued \d+ alpha backfill jobs/);
    expect(r.stderr).not.toMatch(/blocks\/s/);
  }, 120_000);
});
