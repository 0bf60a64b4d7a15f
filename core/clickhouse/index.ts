/**
 * ClickHouse access. One factory for both run modes (a server at CLICKHOUSE_URL, or the embedded
 * chDB engine under the data dir: embedded.ts) and one wrapper through which every statement goes: it
 * adds a label, times the call, retries retryable failures only, and turns failures into typed errors.
 * Values are bound as query parameters ({name:Type}), never spliced into SQL; the embedded engine's
 * reads render them as typed literals through the one audited function, literals.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ClickHouseClient, type ClickHouseSettings, createClient } from '@clickhouse/client';
import { type Config, PLAIN_IDENTIFIER } from '../config.ts';
import { ClickHouseQueryError, isRetryable } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { type EmbeddedEngine, openEmbedded } from './embedded.ts';
import { renderParams, stringLiteral } from './literals.ts';

export {
  EMBEDDED_INSERT_LANES,
  EMBEDDED_READ_LANES,
  EngineBusyError,
  waitForEngine,
} from './embedded.ts';
export { LiteralError, renderParams, stringLiteral } from './literals.ts';

export type QueryParams = Record<string, unknown>;

/** Formats `insertRaw` takes as bytes: text formats, and the binary RowBinary and Parquet. */
export type RawInsertFormat = 'TabSeparated' | 'JSONCompactEachRow' | 'JSONEachRow' | 'RowBinary' | 'Parquet';

/** Binary formats: the embedded engine reads them from a file (chDB's raw insert takes text only). */
const isBinary = (format: RawInsertFormat) => format === 'RowBinary' || format === 'Parquet';

export interface ClickHouse {
  /** The database every unqualified table name refers to. */
  readonly database: string;
  /** True for the in-process engine. */
  readonly embedded: boolean;
  /**
   * Runs a SELECT and returns its rows (JSONEachRow). 64-bit integers come back as strings.
   * Embedded: on a read lane, never behind a write (embedded.ts).
   */
  query<T = Record<string, unknown>>(label: string, sql: string, params?: QueryParams): Promise<T[]>;
  /**
   * Runs a read-only SELECT for the API's read path and returns its rows as arrays in the SELECT's
   * column order (JSONCompactEachRow: no key strings per row). 64-bit integers come back as strings.
   * Embedded: on a read lane, as `query`.
   */
  read<T extends unknown[] = unknown[]>(label: string, sql: string, params?: QueryParams): Promise<T[]>;
  /**
   * Runs a SELECT that names its own output format (`... FORMAT Parquet`) and returns the answer's bytes
   * as a stream for the caller to write (a file); settings of the statement go in its SETTINGS clause.
   * Embedded: on a read lane, the engine's answer held in memory first (chDB materializes it); server:
   * streamed, sent only once the statement ended (`wait_end_of_query`), so a failure is an error status and
   * never bytes appended to a partial answer. Retried until the answer starts.
   */
  queryBytes(label: string, sql: string, params?: QueryParams): Promise<Readable>;
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
  /** Settings of every statement in addition to the base ones (a benchmark's what-if). */
  settings?: ClickHouseSettings;
}

/**
 * Settings of every statement, in both modes (embedded: set once on each session). The embedded
 * engine's default for output_format_json_quote_64bit_integers is 0 (a server's is 1): without it,
 * UInt64 values above 2^53 silently lose precision in JSON. The embedded engine receives bound values
 * spliced into the statement (literals.ts), so a statement binding a long list (the current-price
 * function asks about 2,000 token ids of 78 digits, twice) outgrows the default 256 KiB max_query_size;
 * 16 MiB holds any list the code binds.
 */
function baseSettings(maxExecutionTime: number): ClickHouseSettings {
  return {
    max_query_size: String(16 * 1024 * 1024),
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

/** Where the wrapper's statements run: a server over HTTP, or the embedded engine's sessions. */
interface Backend {
  client: ClickHouseClient;
  select(
    sql: string,
    params: QueryParams | undefined,
    format: 'JSONEachRow' | 'JSONCompactEachRow',
  ): Promise<unknown[]>;
  bytes(sql: string, params: QueryParams | undefined): Promise<Readable>;
  command(sql: string, params: QueryParams | undefined): Promise<void>;
  insertJson(table: string, rows: object[], settings: ClickHouseSettings): Promise<void>;
  insertRaw(
    table: string,
    format: RawInsertFormat,
    columns: readonly string[],
    body: Uint8Array,
    settings: Record<string, number | string> | undefined,
  ): Promise<void>;
}

/** The bytes of `body` as one stream chunk, for the client's inserts. */
const streamOf = (body: Uint8Array) =>
  Readable.from([Buffer.from(body.buffer, body.byteOffset, body.length)]);

function embeddedBackend(engine: EmbeddedEngine): Backend {
  return {
    client: engine.client,
    // Values rendered as literals: without parameters, the statement stays out of chDB's chain.
    select: (sql, params, format) =>
      engine.reads.use(async ({ client }) => {
        const rs = await client.query({ query: renderParams(sql, params), format });
        return (await rs.json()) as unknown[];
      }),
    bytes: (sql, params) =>
      engine.reads.use(async ({ client }) => {
        const result = await client.exec({ query: renderParams(sql, params) });
        return result.stream;
      }),
    command: (sql, params) =>
      engine.main.use(async ({ client }) => {
        await client.command({ query: sql, query_params: params });
      }),
    insertJson: (table, rows, settings) =>
      engine.main.use(async ({ client }) => {
        await client.insert({ table, values: rows, format: 'JSONEachRow', clickhouse_settings: settings });
      }),
    async insertRaw(table, format, columns, body, settings) {
      if (!isBinary(format)) {
        const text = format as 'TabSeparated' | 'JSONCompactEachRow' | 'JSONEachRow';
        await engine.inserts.use((s) =>
          s.rawInsert({ table, values: body, format: text, columns, settings }),
        );
        return;
      }
      // The engine reads the bytes from a file, with the target table's own column types.
      const file = await engine.insertFile(body);
      try {
        await engine.inserts.use((s) =>
          s.client.command({
            // The path is inlined as a literal: a parameter would put every insert in chDB's chain.
            query: `INSERT INTO ${identifier(table)} (${columns.map(identifier).join(', ')}) SELECT * FROM file(${stringLiteral(file)}, '${format}')`,
            clickhouse_settings: { ...settings, use_structure_from_insertion_table_in_table_functions: '1' },
          }),
        );
      } finally {
        // A synchronous unlink (microseconds) frees the insert's slot without another round trip.
        fs.rmSync(file, { force: true });
      }
    },
  };
}

function serverBackend(client: ClickHouseClient): Backend {
  return {
    client,
    async select(sql, params, format) {
      const rs = await client.query({ query: sql, query_params: params, format });
      return (await rs.json()) as unknown[];
    },
    async bytes(sql, params) {
      const result = await client.exec({
        query: sql,
        query_params: params,
        clickhouse_settings: { wait_end_of_query: 1 },
      });
      return result.stream;
    },
    async command(sql, params) {
      await client.command({ query: sql, query_params: params });
    },
    async insertJson(table, rows, settings) {
      await client.insert({ table, values: rows, format: 'JSONEachRow', clickhouse_settings: settings });
    },
    async insertRaw(table, format, columns, body, settings) {
      if (!isBinary(format)) {
        await client.insert({
          table,
          values: streamOf(body),
          format,
          columns: columns as [string, ...string[]],
          clickhouse_settings: settings,
        });
        return;
      }
      // The client's insert takes text formats only; exec sends the bytes as the body.
      const result = await client.exec({
        query: `INSERT INTO ${identifier(table)} (${columns.map(identifier).join(', ')}) FORMAT ${format}`,
        values: streamOf(body),
        clickhouse_settings: settings,
      });
      result.stream.resume();
      await new Promise((resolve, reject) => result.stream.on('end', resolve).on('error', reject));
    },
  };
}

async function openServer(
  config: ClickHouseOptions['config'] & { clickhouseUrl: string },
  settings: ClickHouseSettings,
): Promise<ClickHouseClient> {
  const database = config.clickhouseDatabase;
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
  return createClient({
    url: config.clickhouseUrl,
    username: config.clickhouseUser,
    password: config.clickhousePassword,
    database,
    clickhouse_settings: settings,
    request_timeout: (config.clickhouseMaxExecutionTime + 30) * 1000,
  });
}

export async function createClickHouse(options: ClickHouseOptions): Promise<ClickHouse> {
  const { config, log } = options;
  const database = config.clickhouseDatabase;
  const maxAttempts = options.maxAttempts ?? 4;
  const settings = { ...baseSettings(config.clickhouseMaxExecutionTime), ...options.settings };
  const url = config.clickhouseUrl;
  const embedded = url === undefined;
  const backend = embedded
    ? embeddedBackend(
        await openEmbedded({
          enginePath: options.enginePath ?? path.join(config.dataDir, 'clickhouse'),
          database,
          settings,
          log,
        }),
      )
    : serverBackend(await openServer({ ...config, clickhouseUrl: url }, settings));

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
    client: backend.client,
    query<T>(label: string, sql: string, params?: QueryParams) {
      return run(label, () => backend.select(sql, params, 'JSONEachRow') as Promise<T[]>);
    },
    read<T extends unknown[]>(label: string, sql: string, params?: QueryParams) {
      return run(label, () => backend.select(sql, params, 'JSONCompactEachRow') as Promise<T[]>);
    },
    queryBytes(label, sql, params) {
      return run(label, () => backend.bytes(sql, params));
    },
    command(label, sql, params) {
      return run(label, () => backend.command(sql, params));
    },
    insert(label, table, rows, dedupToken) {
      if (rows.length === 0) return Promise.resolve();
      // Always sent, empty when none: on the embedded engine a setting stays set on its session, and a
      // token left from an earlier insert would make the next one look like its retry.
      return run(label, () =>
        backend.insertJson(table, rows as object[], { insert_deduplication_token: dedupToken ?? '' }),
      );
    },
    insertRaw(label, table, format, columns, body, settings) {
      if (body.length === 0) return Promise.resolve();
      return run(label, () => backend.insertRaw(table, format, columns, body, settings));
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
      if (!embedded) await backend.client.close();
    },
  };
  return ch;
}
