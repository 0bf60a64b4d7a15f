/**
 * Files of the embedded engine's RowBinary inserts. chDB's raw insert refuses binary formats (and its
 * inline data path alters payloads holding two consecutive newline bytes), so each RowBinary body goes
 * to a file the engine reads with `file()`, in a directory of this process, and is removed after its
 * insert.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '../logger.ts';

/** Temporary directories of embedded RowBinary inserts: `<tmp>/pmdata-insert-<pid>-XXXXXX`. */
const INSERT_DIR_PREFIX = 'pmdata-insert-';

/** The callback API's writeFile: one write call for the whole body (looped only on a partial write). */
const writeWhole = promisify(fs.writeFile);

/**
 * Where embedded inserts put their files, in order of preference: a memory file system (`/dev/shm`
 * on Linux) when it is a writable directory, then the OS temp dir. Each file lives for one insert, so
 * a disk adds nothing but the cost of creating, writing and unlinking it: a backfill writes ~2.5 GB
 * through ~500 such files, and on an ext4 without a journal every file created scans the inodes
 * unlinked in the last minute (`recently_deleted`), which the engine's own part files already crowd.
 */
function insertDirCandidates(): string[] {
  const out: string[] = [];
  const shm = '/dev/shm';
  try {
    if (process.platform === 'linux' && fs.statSync(shm).isDirectory()) {
      fs.accessSync(shm, fs.constants.W_OK);
      out.push(shm);
    }
  } catch {
    // No memory file system: the OS temp dir only.
  }
  if (!out.includes(os.tmpdir())) out.push(os.tmpdir());
  return out;
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes insert directories left by processes that died before their exit hook ran. */
function removeDeadInsertDirs(): void {
  for (const parent of insertDirCandidates()) {
    try {
      for (const name of fs.readdirSync(parent)) {
        if (!name.startsWith(INSERT_DIR_PREFIX)) continue;
        const owner = Number(name.slice(INSERT_DIR_PREFIX.length).split('-')[0]);
        if (owner > 0 && owner !== process.pid && !processAlive(owner))
          fs.rmSync(path.join(parent, name), { recursive: true, force: true });
      }
    } catch {
      // Best effort: a leftover directory holds at most the batch its process was inserting.
    }
  }
}

interface InsertDir {
  /** Candidates not tried yet. */
  dirs: string[];
  dir: string;
  next: number;
}

function openInsertDir(parents: string[]): InsertDir {
  for (let k = 0; ; k++) {
    try {
      const dir = fs.mkdtempSync(path.join(parents[k]!, `${INSERT_DIR_PREFIX}${process.pid}-`));
      process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
      return { dirs: parents.slice(k + 1), dir, next: 0 };
    } catch (err) {
      if (k + 1 >= parents.length) throw err;
    }
  }
}

/**
 * The process's insert files. `write` puts a body in a new file (in memory when it can:
 * insertDirCandidates) and returns its path; the caller removes it after the insert. A memory file
 * system that is full (a small container /dev/shm) moves this and later writes to the next candidate.
 */
export function createInsertFiles(log: Logger): { write(body: Uint8Array): Promise<string> } {
  let current: InsertDir | undefined;
  return {
    async write(body) {
      if (!current) {
        removeDeadInsertDirs();
        current = openInsertDir(insertDirCandidates());
      }
      for (;;) {
        const at: InsertDir = current;
        const file = path.join(at.dir, `${at.next++}.bin`);
        try {
          // One write call on the thread pool (fs.promises.writeFile writes 512 KiB chunks, each a round
          // trip through this thread: a busy mapper delayed every insert by its chunks' waits).
          await writeWhole(file, body);
          return file;
        } catch (err) {
          fs.rmSync(file, { force: true });
          const code = (err as NodeJS.ErrnoException).code;
          if (code !== 'ENOSPC' && code !== 'EDQUOT') throw err;
          // Another insert may have moved on meanwhile: then this one follows it.
          if (current === at) {
            if (at.dirs.length === 0) throw err;
            log.warn({ dir: at.dir, code }, 'Insert files move to the next temp directory');
            current = openInsertDir(at.dirs);
          }
        }
      }
    },
  };
}
