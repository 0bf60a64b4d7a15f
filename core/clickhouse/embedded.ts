/**
 * The embedded engine (chDB): its lifecycle, its sessions and the lock on its directory.
 *
 * How chDB 3.4 runs statements, which shapes everything here:
 * - a session (connection) runs one statement at a time; the sessions of one process share the engine
 *   and run side by side;
 * - a statement with parameters ({name:Type} bound by the engine) goes through ONE process-wide chain
 *   shared by every session: such statements run one at a time per process, whatever their session;
 * - each statement in flight holds a thread of libuv's pool (UV_THREADPOOL_SIZE, 4 by default) until it
 *   ends, including while it waits for its busy session: statements therefore wait for a session here,
 *   in JavaScript, never inside the engine;
 * - the settings of a statement are sent as `SET k = v; ...` before it and stay set on its session.
 *
 * So a process opens three kinds of sessions: the main one runs commands (DDL, DELETE, mutations) and
 * JSON inserts, with parameters as given; insert lanes run raw inserts; read lanes run queries, whose
 * values are rendered as literals (literals.ts) so that they stay out of the chain: a read never waits
 * behind a parameterized write (a DELETE, a pending→confirmed UPDATE), and EMBEDDED_READ_LANES reads
 * run at once. The base settings are set once on each session when it opens.
 */
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ClickHouseClient, type ClickHouseSettings, createClient } from '@clickhouse/client';
import { DependencyError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { createInsertFiles, processAlive } from './insert-files.ts';

/** Insert lanes: raw inserts spread over them run in parallel instead of queueing behind each other. */
export const EMBEDDED_INSERT_LANES = 2;

/**
 * Read lanes: queries run on these sessions, up to this many at once (more wait for a free lane).
 * See docs/decisions.md, "Reads of the embedded engine", for what 1, 2 and 4 gave.
 */
export const EMBEDDED_READ_LANES = 2;

/** Formats chDB's raw insert takes (text only). */
type ChdbTextFormat = 'TabSeparated' | 'JSONCompactEachRow' | 'JSONEachRow';

type ChdbRawInsert = (params: {
  table: string;
  values: Uint8Array;
  format: ChdbTextFormat;
  columns: readonly string[];
  settings?: Record<string, number | string>;
}) => Promise<unknown>;

/** One session of the engine, with the clickhouse-js client over it. */
export interface Session {
  client: ClickHouseClient;
  /** chDB's documented raw insert (`connection.chdb.rawInsert`): bytes go to the engine's parser. */
  rawInsert: ChdbRawInsert;
}

/** Sessions that each run one statement at a time; a statement waits for a free one in FIFO order. */
export interface SessionPool<S = Session> {
  use<T>(fn: (session: S) => Promise<T>): Promise<T>;
}

export interface EmbeddedEngine {
  readonly path: string;
  readonly database: string;
  /** The main session's client (commands and JSON inserts go through `main`). */
  readonly client: ClickHouseClient;
  readonly main: SessionPool;
  readonly inserts: SessionPool;
  readonly reads: SessionPool;
  /** Writes a RowBinary body to a file the engine can read; the caller removes it after the insert. */
  insertFile(body: Uint8Array): Promise<string>;
}

/**
 * Opens sessions on demand, up to `size`. A failed open is reported to its caller; a statement that
 * was waiting meanwhile tries to open one in its place.
 */
export function createSessionPool<S>(size: number, open: () => Promise<S>): SessionPool<S> {
  const idle: S[] = [];
  const waiting: { resolve: (s: S) => void; reject: (err: unknown) => void }[] = [];
  let opened = 0;
  async function acquire(): Promise<S> {
    const free = idle.pop();
    if (free) return free;
    if (opened >= size) return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    opened++;
    try {
      return await open();
    } catch (err) {
      opened--;
      const next = waiting.shift();
      if (next) acquire().then(next.resolve, next.reject);
      throw err;
    }
  }
  function release(session: S): void {
    const next = waiting.shift();
    if (next) next.resolve(session);
    else idle.push(session);
  }
  return {
    async use(fn) {
      const session = await acquire();
      try {
        return await fn(session);
      } finally {
        release(session);
      }
    },
  };
}

/** One engine per process (chDB binds one data directory per process). */
let engine: { path: string; database: string; settings: string; opened: Promise<EmbeddedEngine> } | undefined;

/**
 * The process's embedded engine at `enginePath`, serving `database`, every session with `settings`.
 * Opened on first call; later calls get the same engine, and must ask for the same directory,
 * database and settings.
 */
export function openEmbedded(o: {
  enginePath: string;
  database: string;
  settings: ClickHouseSettings;
  log: Logger;
}): Promise<EmbeddedEngine> {
  const settingsKey = JSON.stringify(o.settings);
  if (engine) {
    if (engine.path !== o.enginePath) {
      throw new DependencyError(
        `The embedded ClickHouse engine is already open at ${engine.path}; one process holds one engine`,
      );
    }
    if (engine.database !== o.database) {
      throw new DependencyError(
        `The embedded ClickHouse engine already serves database ${engine.database}; one process uses one database`,
      );
    }
    if (engine.settings !== settingsKey) {
      throw new DependencyError(
        `The embedded ClickHouse engine's sessions already run with settings ${engine.settings}; one process uses one set`,
      );
    }
    return engine.opened;
  }
  const opened = open(o);
  engine = { path: o.enginePath, database: o.database, settings: settingsKey, opened };
  // A failed open (the directory busy, the package missing) leaves nothing behind: a later call tries again.
  opened.catch(() => {
    if (engine?.opened === opened) engine = undefined;
  });
  return opened;
}

/**
 * Settings of the read lanes on top of the engine's: one thread per read. The reads they serve are
 * point lookups of a few granules (API pages, ingestion's probes), for which a second thread costs more
 * than it saves: a wallet page of 1,000,000 fills took 15.6 ms of CPU at max_threads 1 against 20.1 ms
 * at the default (2 on this machine) for the same wall time. Two lanes still read side by side.
 */
const READ_LANE_SETTINGS: ClickHouseSettings = { max_threads: 1 };

async function open(o: {
  enginePath: string;
  database: string;
  settings: ClickHouseSettings;
  log: Logger;
}): Promise<EmbeddedEngine> {
  fs.mkdirSync(o.enginePath, { recursive: true });
  acquireEngineLock(o.enginePath);
  let mod: typeof import('chdb/connection');
  try {
    mod = await import('chdb/connection');
  } catch (err) {
    throw new DependencyError(
      'The embedded ClickHouse engine (npm package chdb) could not be loaded; run `npm install`, or set CLICKHOUSE_URL',
      { cause: err },
    );
  }
  const connect = () => {
    const connection = mod.createChdbConnection({ path: o.enginePath });
    const client = createClient({
      // biome-ignore lint/suspicious/noExplicitAny: chdb's connection implements the client's Connection contract
      connection: connection as any,
    });
    const extension = connection.chdb;
    const rawInsert: ChdbRawInsert = (params) => extension.rawInsert(params as never);
    return { client, rawInsert };
  };
  let main: Session;
  try {
    main = connect();
  } catch (err) {
    // chDB reports only "Failed to create connection" (the reason goes to stderr). The usual reason is the
    // engine's own lock on its directory, which outlives our lock file for a moment while a previous
    // owner exits (its exit hooks run before the engine is torn down): reported as busy, so callers that
    // wait for the engine (waitForEngine) try again.
    if ((err as { code?: string })?.code === 'CHDB_CONNECTION')
      throw new EngineBusyError(o.enginePath, 0, err);
    throw err;
  }
  await main.client.command({ query: `CREATE DATABASE IF NOT EXISTS ${o.database}` });
  // chDB does not honour the client's `database` option: the session selects it. The settings go with
  // this first statement (as SET statements before it) and stay set on the session.
  const prepare = async (session: Session, extra: ClickHouseSettings = {}) => {
    await session.client.command({
      query: `USE ${o.database}`,
      clickhouse_settings: { ...o.settings, ...extra },
    });
    return session;
  };
  await prepare(main);
  const files = createInsertFiles(o.log);
  return {
    path: o.enginePath,
    database: o.database,
    client: main.client,
    main: createSessionPool(1, async () => main),
    inserts: createSessionPool(EMBEDDED_INSERT_LANES, () => prepare(connect())),
    reads: createSessionPool(EMBEDDED_READ_LANES, () => prepare(connect(), READ_LANE_SETTINGS)),
    insertFile: (body) => files.write(body),
  };
}

/**
 * One process per engine directory: two processes opening the same chDB path would corrupt it.
 * The lock file holds the owner's pid; a lock whose owner is gone is taken over.
 */
function acquireEngineLock(enginePath: string): void {
  const lockFile = path.join(enginePath, '.pmdata.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(lockFile, 'wx');
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      process.once('exit', () => {
        try {
          if (fs.readFileSync(lockFile, 'utf8') === String(process.pid)) fs.unlinkSync(lockFile);
        } catch {}
      });
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(fs.readFileSync(lockFile, 'utf8').trim());
      if (owner === process.pid) return;
      if (owner > 0 && processAlive(owner)) {
        throw new EngineBusyError(enginePath, owner);
      }
      fs.rmSync(lockFile, { force: true });
    }
  }
  throw new EngineBusyError(enginePath, 0);
}

export class EngineBusyError extends DependencyError {
  readonly owner: number;
  /** `owner` 0: the engine itself refused the directory (`cause`: its error), e.g. still held by another instance. */
  constructor(enginePath: string, owner: number, cause?: unknown) {
    super(
      `The embedded ClickHouse data at ${enginePath} is in use by ${owner > 0 ? `process ${owner}` : 'another engine instance, or could not be opened'}. ` +
        'Stop that process, use another PMDATA_DATA_DIR, or set CLICKHOUSE_URL to share a server.',
      cause === undefined ? undefined : { cause },
    );
    this.owner = owner;
  }
}

/** Waits for the engine lock instead of failing at once: used by `pmdata migrate` run twice. */
export async function waitForEngine<T>(open: () => Promise<T>, timeoutMs: number, log: Logger): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await open();
    } catch (err) {
      if (!(err instanceof EngineBusyError) || Date.now() > deadline) throw err;
      log.info({ owner: err.owner }, 'Waited for embedded engine lock');
      await sleep(250);
    }
  }
}
