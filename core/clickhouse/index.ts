/**
 * ClickHouse access. One factory for both run modes (a server at CLICKHOUSE_URL, or the embedded
 * chDB engine under the data dir) and one wrapper through which every statement goes: it adds a
 * label, times the call, retries retryable failures only, and turns failures into typed errors.
 * Values are always bound as query parameters ({name:Type}), never spliced into SQL.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { type ClickHouseClient, type ClickHouseSettings, createClient } from '@clickhouse/client';
import { type Config, PLAIN_IDENTIFIER } from '../config.ts';
import { ClickHouseQueryError, DependencyError, isRetryable } from '../errors.ts';
import type { Logger } from '../logger.ts';

export type QueryParams = Record<string, unknown>;

/** Formats `insertRaw` takes as bytes: text formats, and RowBinary. */
export type RawInsertFormat = 'TabSeparated' | 'JSONCompactEachRow' | 'JSONEachRow' | 'RowBinary';

type ChdbRawInsert = (params: {
  table: string;
  values: Uint8Array;
  format: Exclude<RawInsertFormat, 'RowBinary'>;
  columns: readonly string[];
  settings?: Record<string, number | string>;
}) => Promise<unknown>;

export interface ClickHouse {
  /** The database every unqualified table name refers to. */
  readonly database: string;
  /** True for the in-process engine. */
  readonly embedded: boolean;
  /** Runs a SELECT and returns its rows (JSONEachRow). 64-bit integers come back as strings. */
  query<T = Record<string, unknown>>(label: string, sql: string, params?: QueryParams): Promise<T[]>;
  /**
   * Runs a read-only SELECT for the API's read path and returns its rows as arrays in the SELECT's
   * column order (JSONCompactEachRow: no key strings per row). 64-bit integers come back as strings.
   */
  read<T extends unknown[] = unknown[]>(label: string, sql: string, params?: QueryParams): Promise<T[]>;
  /** Runs a statement that returns no rows (DDL, DELETE, OPTIMIZE, ...). */
  command(label: string, sql: string, params?: QueryParams): Promise<void>;
  /** Inserts rows as JSONEachRow. `dedupToken` makes a retried insert of the same block harmless. */
  insert(label: string, table: string, rows: readonly object[], dedupToken?: string): Promise<void>;
  /**
   * Inserts bytes already in `format` (RowBinary, TabSeparated, JSONCompactEachRow, ...) for `columns`:
   * the engine parses them, no JS object is built. Embedded: chDB's raw insert for text, a file the
   * engine reads for RowBinary (chDB's raw insert takes text formats only); server: the bytes are the
   * body of the INSERT. `settings` are the insert's query settings.
   */
  insertRaw(
    label: string,
    table: string,
    format: RawInsertFormat,
    columns: readonly string[],
    body: Uint8Array,
    settings?: Record<string, number | string>,
  ): Promise<void>;
  /** Liveness and version. */
  ping(): Promise<{ ok: boolean; version?: string; error?: string }>;
  close(): Promise<void>;
  /** The underlying client, for the rare caller that needs streaming. Prefer the wrapper. */
  readonly client: ClickHouseClient;
}

export interface ClickHouseOptions {
  config: Pick<
    Config,
    | 'clickhouseUrl'
    | 'clickhouseUser'
    | 'clickhousePassword'
    | 'clickhouseDatabase'
    | 'clickhouseMaxExecutionTime'
    | 'dataDir'
  >;
  log: Logger;
  /** Embedded engine directory; defaults to `<dataDir>/clickhouse`. */
  enginePath?: string;
  /** Attempts for retryable failures (default 4). */
  maxAttempts?: number;
}

/**
 * Settings sent with every statement, in both modes. The embedded engine's default for
 * output_format_json_quote_64bit_integers is 0 (a server's is 1): without it, UInt64 values above
 * 2^53 silently lose precision in JSON.
 */
function baseSettings(maxExecutionTime: number): ClickHouseSettings {
  return {
    output_format_json_quote_64bit_integers: 1,
    output_format_json_quote_64bit_floats: 0,
    date_time_output_format: 'iso',
    max_execution_time: maxExecutionTime,
  };
}

/** A table or column name as an SQL identifier (names come from code, never from input). */
function identifier(name: string): string {
  if (!PLAIN_IDENTIFIER.test(name)) throw new Error(`Not a plain identifier: ${name}`);
  return name;
}

/** The callback API's writeFile: one write call for the whole body (looped only on a partial write). */
const writeWhole = promisify(fs.writeFile);

/** A ClickHouse string literal: quotes and backslashes escaped. */
export function stringLiteral(value: string): string {
  return `'${value.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

/** Temporary directories of embedded RowBinary inserts: `<tmp>/pmdata-insert-<pid>-XXXXXX`. */
const INSERT_DIR_PREFIX = 'pmdata-insert-';

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

let embeddedEngine:
  | { path: string; connection: unknown; database?: string; lanes: unknown[]; connect: () => unknown }
  | undefined;

/**
 * Insert lanes of the embedded engine: further connections to the same directory. A chDB connection
 * runs one statement at a time (a second one waits for the first), while connections of one process
 * share the engine and run side by side: inserts spread over these lanes run in parallel instead of
 * queueing behind each other and behind the main connection's reads.
 */
export const EMBEDDED_INSERT_LANES = 2;

/** The process's `index`-th insert lane, opened on first use. */
function embeddedLane(index: number): unknown {
  const engine = embeddedEngine;
  if (!engine) throw new Error('The embedded engine is not open');
  while (engine.lanes.length <= index) engine.lanes.push(engine.connect());
  return engine.lanes[index];
}

async function embeddedConnection(enginePath: string, database: string): Promise<unknown> {
  if (embeddedEngine) {
    if (embeddedEngine.path !== enginePath) {
      throw new DependencyError(
        `The embedded ClickHouse engine is already open at ${embeddedEngine.path}; one process holds one engine`,
      );
    }
    if (embeddedEngine.database !== undefined && embeddedEngine.database !== database) {
      throw new DependencyError(
        `The embedded ClickHouse engine already serves database ${embeddedEngine.database}; one process uses one database`,
      );
    }
    embeddedEngine.database = database;
    return embeddedEngine.connection;
  }
  fs.mkdirSync(enginePath, { recursive: true });
  acquireEngineLock(enginePath);
  let mod: typeof import('chdb/connection');
  try {
    mod = await import('chdb/connection');
  } catch (err) {
    throw new DependencyError(
      'The embedded ClickHouse engine (npm package chdb) could not be loaded; run `npm install`, or set CLICKHOUSE_URL',
      { cause: err },
    );
  }
  let connection: unknown;
  try {
    connection = mod.createChdbConnection({ path: enginePath });
  } catch (err) {
    // chDB reports only "Failed to create connection" (the reason goes to stderr). The usual reason is the
    // engine's own lock on its directory, which outlives our lock file for a moment while a previous
    // owner exits (its exit hooks run before the engine is torn down): reported as busy, so callers that
    // wait for the engine (waitForEngine) try again.
    if ((err as { code?: string })?.code === 'CHDB_CONNECTION') throw new EngineBusyError(enginePath, 0, err);
    throw err;
  }
  embeddedEngine = {
    path: enginePath,
    connection,
    database,
    lanes: [],
    connect: () => mod.createChdbConnection({ path: enginePath }),
  };
  return connection;
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

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
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

export async function createClickHouse(options: ClickHouseOptions): Promise<ClickHouse> {
  const { config, log } = options;
  const database = config.clickhouseDatabase;
  const maxAttempts = options.maxAttempts ?? 4;
  const embedded = config.clickhouseUrl === undefined;
  let client: ClickHouseClient;
  const settings = baseSettings(config.clickhouseMaxExecutionTime);

  if (embedded) {
    const enginePath = options.enginePath ?? path.join(config.dataDir, 'clickhouse');
    const connection = await embeddedConnection(enginePath, database);
    client = createClient({
      // biome-ignore lint/suspicious/noExplicitAny: chdb's connection implements the client's Connection contract
      connection: connection as any,
      clickhouse_settings: settings,
    });
    // chDB does not honour the client's `database` option: select it on the session once.
    await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
    await client.command({ query: `USE ${database}` });
  } else {
    // The HTTP interface rejects every statement sent with an unknown database: create it first.
    const bootstrap = createClient({
      url: config.clickhouseUrl,
      username: config.clickhouseUser,
      password: config.clickhousePassword,
    });
    try {
      await bootstrap.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
    } catch (err) {
      throw new ClickHouseQueryError('bootstrap.database', err);
    } finally {
      await bootstrap.close();
    }
    client = createClient({
      url: config.clickhouseUrl,
      username: config.clickhouseUser,
      password: config.clickhousePassword,
      database,
      clickhouse_settings: settings,
      request_timeout: (config.clickhouseMaxExecutionTime + 30) * 1000,
    });
  }

  // chDB's documented raw insert (`connection.chdb.rawInsert`): bytes go to the engine's parser.
  const chdbRawInsertOf = (c: ClickHouseClient) =>
    (c as unknown as { connection?: { chdb?: { rawInsert?: ChdbRawInsert } } }).connection?.chdb?.rawInsert;

  /**
   * Embedded RowBinary: chDB's raw insert refuses binary formats (and its inline data path alters
   * payloads holding two consecutive newline bytes), so the bytes go to a file the engine reads, with
   * the target table's own column types (use_structure_from_insertion_table_in_table_functions).
   * The file lives in a directory of this process (in memory when it can: insertDirCandidates) and is
   * removed after the insert. A memory file system that is full (a small container /dev/shm) moves
   * this and later inserts to the next candidate.
   */
  let insertFiles: { dirs: string[]; dir: string; next: number } | undefined;
  function openInsertDir(parents: string[]): { dirs: string[]; dir: string; next: number } {
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
  async function writeInsertFile(body: Uint8Array): Promise<string> {
    if (!insertFiles) {
      removeDeadInsertDirs();
      insertFiles = openInsertDir(insertDirCandidates());
    }
    for (;;) {
      const current: { dirs: string[]; dir: string; next: number } = insertFiles;
      const file = path.join(current.dir, `${current.next++}.bin`);
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
        if (insertFiles === current) {
          if (current.dirs.length === 0) throw err;
          log.warn({ dir: current.dir, code }, 'Insert files move to the next temp directory');
          insertFiles = openInsertDir(current.dirs);
        }
      }
    }
  }

  /** Embedded inserts go to the least busy lane (EMBEDDED_INSERT_LANES), each with its own client. */
  interface Lane {
    client: ClickHouseClient;
    busy: number;
    rawInsert?: ChdbRawInsert;
  }
  const lanes: Lane[] = [];
  let lanesReady: Promise<void> | undefined;
  async function openLanes(): Promise<void> {
    for (let i = lanes.length; i < EMBEDDED_INSERT_LANES; i++) {
      const laneClient = createClient({
        // biome-ignore lint/suspicious/noExplicitAny: as for the main connection
        connection: embeddedLane(i) as any,
        clickhouse_settings: settings,
      });
      await laneClient.command({ query: `USE ${database}` });
      lanes.push({ client: laneClient, busy: 0, rawInsert: chdbRawInsertOf(laneClient) });
    }
  }
  async function onLane<T>(fn: (lane: Lane) => Promise<T>): Promise<T> {
    lanesReady ??= openLanes().catch((err) => {
      lanesReady = undefined;
      throw err;
    });
    await lanesReady;
    let lane = lanes[0]!;
    for (const l of lanes) if (l.busy < lane.busy) lane = l;
    lane.busy++;
    try {
      return await fn(lane);
    } finally {
      lane.busy--;
    }
  }
  async function embeddedBinaryInsert(
    table: string,
    columns: readonly string[],
    body: Uint8Array,
    settings: Record<string, number | string> | undefined,
  ): Promise<void> {
    const file = await writeInsertFile(body);
    try {
      await onLane((lane) =>
        lane.client.command({
          // The path is inlined as a literal: chdb runs parameterized queries one at a time (a global
          // chain), which would serialize every insert of the process.
          query: `INSERT INTO ${identifier(table)} (${columns.map(identifier).join(', ')}) SELECT * FROM file(${stringLiteral(file)}, 'RowBinary')`,
          clickhouse_settings: { ...settings, use_structure_from_insertion_table_in_table_functions: '1' },
        }),
      );
    } finally {
      // A synchronous unlink (microseconds) frees the insert's slot without another round trip.
      fs.rmSync(file, { force: true });
    }
  }

  /** Server RowBinary: the client's insert takes text formats only; exec sends the bytes as the body. */
  async function serverBinaryInsert(
    table: string,
    columns: readonly string[],
    body: Uint8Array,
    settings: Record<string, number | string> | undefined,
  ): Promise<void> {
    const result = await client.exec({
      query: `INSERT INTO ${identifier(table)} (${columns.map(identifier).join(', ')}) FORMAT RowBinary`,
      values: Readable.from([Buffer.from(body.buffer, body.byteOffset, body.length)]),
      clickhouse_settings: settings,
    });
    result.stream.resume();
    await new Promise((resolve, reject) => result.stream.on('end', resolve).on('error', reject));
  }

  async function run<T>(label: string, fn: () => Promise<T>): Promise<T> {
    const started = performance.now();
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await fn();
        log.debug({ query: label, ms: Math.round(performance.now() - started) }, 'Ran query');
        return result;
      } catch (err) {
        const typed = new ClickHouseQueryError(label, err);
        if (!isRetryable(err) || attempt >= maxAttempts) {
          log.debug({ query: label, err: typed.message, attempt }, 'Failed query');
          throw typed;
        }
        const delay = Math.min(4000, 100 * 2 ** attempt) * (0.5 + Math.random());
        log.warn({ query: label, attempt, delay_ms: Math.round(delay), code: typed.code }, 'Retrying query');
        await sleep(delay);
      }
    }
  }

  const ch: ClickHouse = {
    database,
    embedded,
    client,
    query<T>(label: string, sql: string, params?: QueryParams) {
      return run(label, async () => {
        const rs = await client.query({ query: sql, query_params: params, format: 'JSONEachRow' });
        return (await rs.json()) as T[];
      });
    },
    read<T extends unknown[]>(label: string, sql: string, params?: QueryParams) {
      return run(label, async () => {
        const rs = await client.query({ query: sql, query_params: params, format: 'JSONCompactEachRow' });
        return (await rs.json()) as T[];
      });
    },
    command(label, sql, params) {
      return run(label, async () => {
        await client.command({ query: sql, query_params: params });
      });
    },
    insert(label, table, rows, dedupToken) {
      if (rows.length === 0) return Promise.resolve();
      return run(label, async () => {
        await client.insert({
          table,
          values: rows as object[],
          format: 'JSONEachRow',
          clickhouse_settings: dedupToken ? { insert_deduplication_token: dedupToken } : undefined,
        });
      });
    },
    insertRaw(label, table, format, columns, body, settings) {
      if (body.length === 0) return Promise.resolve();
      return run(label, async () => {
        if (format === 'RowBinary') {
          if (embedded) await embeddedBinaryInsert(table, columns, body, settings);
          else await serverBinaryInsert(table, columns, body, settings);
          return;
        }
        const text = (c: ClickHouseClient, rawInsert?: ChdbRawInsert) =>
          rawInsert
            ? rawInsert({ table, values: body, format, columns, settings })
            : c.insert({
                table,
                values: Readable.from([Buffer.from(body.buffer, body.byteOffset, body.length)]),
                format,
                columns: columns as [string, ...string[]],
                clickhouse_settings: settings,
              });
        if (embedded) await onLane((lane) => text(lane.client, lane.rawInsert));
        else await text(client);
      });
    },
    async ping() {
      try {
        const rows = await ch.query<{ v: string }>('ping', 'SELECT version() AS v');
        return { ok: true, version: rows[0]?.v };
      } catch (err) {
        return { ok: false, error: (err as Error).message };
      }
    },
    async close() {
      // The embedded engine stays open for the life of the process (it cannot be reopened).
      if (!embedded) await client.close();
    },
  };
  return ch;
}
