/**
 * Simulated worlds shared by the test files of a run: the first file that needs a world builds its history
 * and saves it (sim/saved.ts) under the run's temp root, keyed by its options; every later file, in any
 * test process, loads it (its own anvil from the saved chain, its own replicas, state and ledger replayed)
 * instead of building it again. A file still gets a world of its own to read: its own anvil process and
 * replicas; the tables it writes are in its own database as before.
 *
 * Only for files that read the world's history: a loaded world has no live trading and no chain control
 * (reorgs, mining), so files that mine or reorg build their own with startSim. Files whose assertions do
 * not depend on the seed use SHARED_WORLD (one seed per size); a file whose assertions are about its own
 * seed keeps it (and still shares its world with another file of the same options).
 *
 * Building takes the lock `<key>.lock` (an exclusive create holding the builder's pid); the others wait
 * for `<key>/ready` and take the build over when the builder died. Measured on 2 busy cores: a small
 * world's history builds in 6–8 s and loads in about 2 s (saving it costs 3 s once); a medium world
 * builds in 34 s and loads in 29 s (a 500 MB state file), so only small worlds are shared.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import { buildAndSaveSim, loadSim, type SavedSim, type SavedSimOptions } from '../../sim/saved.ts';
import { startReplicas } from '../../sim/venues/index.ts';

/** The world of the files that take any small world: its seed is no test's own. */
export const SHARED_WORLD = { seed: 'shared-small-1', size: 'small' } as const satisfies SavedSimOptions;

const WAIT_MS = 600_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid in a lock file; 0 while it is being written or when it is gone. */
function lockOwner(lock: string): number {
  try {
    return Number(fs.readFileSync(lock, 'utf8').trim() || 0);
  } catch {
    return 0;
  }
}

/** Stable JSON (sorted keys) of the options: the cache key. */
function keyOf(options: SavedSimOptions): string {
  const sorted = (v: unknown): unknown =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
        )
      : v;
  const text = JSON.stringify(sorted(options));
  return `${String(options.seed).replace(/[^A-Za-z0-9_-]/g, '_')}-${options.size}-${createHash('sha256').update(text).digest('hex').slice(0, 12)}`;
}

/**
 * The world of `options` with its history, built once per run; with `replicas`, its venue replicas
 * started for this file. The caller stops it.
 */
export async function sharedWorld(
  options: SavedSimOptions,
  o: { replicas?: boolean } = {},
): Promise<SavedSim> {
  const root = path.join(inject('tmpRoot'), 'worlds');
  fs.mkdirSync(root, { recursive: true });
  const dir = path.join(root, keyOf(options));
  const ready = path.join(dir, 'ready');
  const lock = `${dir}.lock`;
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    if (fs.existsSync(ready)) return loadSim(dir, o);
    let fd: number | undefined;
    try {
      fd = fs.openSync(lock, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (fd !== undefined) {
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      fs.rmSync(dir, { recursive: true, force: true });
      try {
        const sim = await buildAndSaveSim(options, dir);
        fs.writeFileSync(ready, '');
        if (!o.replicas) return sim;
        // The replicas on the built world's own state (as a loaded world starts its own).
        const replicas = await startReplicas({ catalog: sim.catalog, state: sim.state });
        return {
          ...sim,
          replicas,
          replicaUrls: replicas.urls,
          async stop() {
            await replicas.close();
            await sim.stop();
          },
        };
      } finally {
        fs.rmSync(lock, { force: true });
      }
    }
    const owner = lockOwner(lock);
    if (owner > 0 && !alive(owner) && !fs.existsSync(ready)) fs.rmSync(lock, { force: true });
    if (Date.now() > deadline) throw new Error(`no world in ${dir} after ${WAIT_MS} ms (lock ${lock})`);
    await sleep(200);
  }
}
