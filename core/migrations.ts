/**
 * Migration runner for `schemas/clickhouse/NNN_name.sql`.
 *
 * Invariants:
 * - Every statement is idempotent (`CREATE ... IF NOT EXISTS`, `ALTER ... ADD COLUMN IF NOT EXISTS`,
 *   `INSERT INTO t (...) SELECT` into a ReplacingMergeTree that copies its version column, ...), so
 *   running a file twice, or from two processes at once, converges on the same schema and rows.
 * - A version is recorded in `schema_migrations` only after all its statements succeeded; the record
 *   holds the file's checksum, and a recorded file whose text changed is refused (write a new file).
 * - Table engines and `ON CLUSTER` come from configuration, not from the files: with
 *   CLICKHOUSE_REPLICATED the MergeTree family becomes Replicated*, with CLICKHOUSE_CLUSTER every
 *   DDL statement gets `ON CLUSTER`. The files stay plain, single-node SQL.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClickHouse } from './clickhouse/index.ts';
import { PermanentError } from './errors.ts';
import type { Logger } from './logger.ts';

export const MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../schemas/clickhouse',
);

/** Lowest ClickHouse server version the migrations are written for (see docs/operations.md). */
export const MIN_CLICKHOUSE_VERSION = '24.8';

export interface DdlOptions {
  cluster?: string | undefined;
  replicated?: boolean;
}

export interface Migration {
  version: number;
  name: string;
  checksum: string;
  statements: string[];
}

export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const files = fs
    .readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort();
  const seen = new Set<number>();
  return files.map((file) => {
    const version = Number(file.slice(0, 3));
    if (seen.has(version)) throw new PermanentError(`Two migrations share version ${version}`);
    seen.add(version);
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    return {
      version,
      name: file.replace(/\.sql$/, ''),
      checksum: createHash('sha256').update(text).digest('hex').slice(0, 16),
      statements: splitStatements(text),
    };
  });
}

/** Splits a SQL file on `;` at the end of a line, dropping `--` comment lines. */
export function splitStatements(text: string): string[] {
  const withoutComments = text
    .split('\n')
    .filter((line) => !line.trim().startsWith('--'))
    .join('\n');
  return withoutComments
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

const IDEMPOTENT = [
  /^CREATE\s+(TABLE|DATABASE|VIEW|MATERIALIZED\s+VIEW|DICTIONARY|FUNCTION)\s+IF\s+NOT\s+EXISTS\b/i,
  /^CREATE\s+OR\s+REPLACE\s+(VIEW|FUNCTION|DICTIONARY)\b/i,
  /^ALTER\s+TABLE\s+\S+\s+(ADD|DROP|MODIFY|CLEAR|RENAME)\s+(COLUMN|INDEX|PROJECTION|CONSTRAINT)\s+IF\s+(NOT\s+)?EXISTS\b/i,
  /^ALTER\s+TABLE\s+\S+\s+MODIFY\s+(TTL|SETTING|COMMENT)\b/i,
  /^DROP\s+(TABLE|VIEW|DICTIONARY|FUNCTION)\s+IF\s+EXISTS\b/i,
  // A copy into a ReplacingMergeTree whose version column is copied too: a repeat inserts rows that
  // collapse with the first copy's (042_watermarks.sql). Not rendered ON CLUSTER: it runs on the node
  // the migration talks to (a Replicated table carries it to the other replicas).
  /^INSERT\s+INTO\s+\w+\s*\([^)]*\)\s*SELECT\b/i,
];

export function isIdempotent(statement: string): boolean {
  return IDEMPOTENT.some((re) => re.test(statement));
}

/**
 * Applies cluster settings to one single-node DDL statement:
 * `ON CLUSTER` after the object name, and Replicated* engines with the conventional
 * Keeper path and replica macros.
 */
export function renderDdl(statement: string, opts: DdlOptions): string {
  let sql = statement;
  if (opts.cluster) {
    sql = sql.replace(
      /^((?:CREATE(?:\s+OR\s+REPLACE)?\s+(?:TABLE|VIEW|MATERIALIZED\s+VIEW|DICTIONARY|FUNCTION)(?:\s+IF\s+NOT\s+EXISTS)?|DROP\s+(?:TABLE|VIEW|DICTIONARY|FUNCTION)(?:\s+IF\s+EXISTS)?|ALTER\s+TABLE)\s+[`"\w.]+)/i,
      `$1 ON CLUSTER ${opts.cluster}`,
    );
  }
  if (opts.replicated) {
    sql = sql.replace(
      /ENGINE\s*=\s*((?:Replacing|Summing|Aggregating|Collapsing|VersionedCollapsing)?MergeTree)(?:\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\))?/i,
      (_m, engine: string, args: string | undefined) => {
        const zk = `'/clickhouse/tables/{shard}/{database}/{table}', '{replica}'`;
        const rest = args?.trim() ? `, ${args.trim()}` : '';
        return `ENGINE = Replicated${engine}(${zk}${rest})`;
      },
    );
  }
  return sql;
}

export interface MigrateResult {
  applied: string[];
  skipped: string[];
}

const LEDGER_DDL = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version UInt32,
  name String,
  checksum String,
  applied_at DateTime64(3, 'UTC') DEFAULT now64(3)
) ENGINE = ReplacingMergeTree(applied_at) ORDER BY version`;

export async function migrate(deps: {
  clickhouse: ClickHouse;
  log: Logger;
  ddl?: DdlOptions;
  migrations?: Migration[];
}): Promise<MigrateResult> {
  const { clickhouse: ch, log } = deps;
  const ddl = deps.ddl ?? {};
  const migrations = deps.migrations ?? loadMigrations();
  await ch.command('migrations.ledger', renderDdl(LEDGER_DDL, ddl));

  const recorded = new Map(
    (
      await ch.query<{ version: number; checksum: string }>(
        'migrations.recorded',
        'SELECT version, argMax(checksum, applied_at) AS checksum FROM schema_migrations GROUP BY version',
      )
    ).map((r) => [Number(r.version), r.checksum]),
  );

  const result: MigrateResult = { applied: [], skipped: [] };
  for (const m of migrations) {
    const done = recorded.get(m.version);
    if (done !== undefined) {
      if (done !== m.checksum) {
        throw new PermanentError(
          `Migration ${m.name} was applied with checksum ${done} but the file now has ${m.checksum}: ` +
            'applied migrations must not change; add a new file instead',
        );
      }
      result.skipped.push(m.name);
      continue;
    }
    for (const [i, statement] of m.statements.entries()) {
      if (!isIdempotent(statement)) {
        throw new PermanentError(
          `Migration ${m.name} statement ${i + 1} is not idempotent (use IF NOT EXISTS / IF EXISTS): ${statement.slice(0, 80)}`,
        );
      }
      await ch.command(`migrations.${m.name}.${i + 1}`, renderDdl(statement, ddl));
    }
    await ch.insert('migrations.record', 'schema_migrations', [
      { version: m.version, name: m.name, checksum: m.checksum },
    ]);
    log.info({ migration: m.name }, 'Applied migration');
    result.applied.push(m.name);
  }
  return result;
}
