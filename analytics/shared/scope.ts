/**
 * What one analytics run recomputes: a time window of whole buckets, the chain rows it may read (up to a
 * block), and optionally only some keys. Every derived table is replaced within such a scope
 * (`replaceScope`): the run inserts the recomputed rows with its version, then a deleted row for every
 * row of the scope it did not recompute (a bucket whose trades a reorg removed), so the table holds
 * exactly what the chain rows say and a rerun changes nothing.
 */
import type { ClickHouse, QueryParams } from '../../core/clickhouse/index.ts';
import { insertColumns, type TableDescription } from '../../core/clickhouse/table.ts';

export const MINUTE = 60;
export const HOUR = 3600;
export const DAY = 86_400;

export interface Scope {
  /** Run version: every row written by this run carries it (newest wins). */
  version: number;
  chainId: number;
  /** First bucket start of the window, Unix s, aligned to the minute. */
  from: number;
  /** End of the window (exclusive), Unix s aligned to the minute; null: open-ended. */
  to: number | null;
  /** Chain rows above this block are not read (the chain's contiguous progress). */
  maxBlock: number;
  /** Only these tokens (candles) / conditions (condition candles, open interest); null: all keys. */
  tokens: readonly string[] | null;
  conditions: readonly string[] | null;
  oiConditions: readonly string[] | null;
  /**
   * Only rows were added since the scope's keys were last computed (an incremental step: every row it
   * reads below the checkpoint is unchanged): no bucket can have lost its trades, so no deleted rows are
   * looked for.
   */
  additive: boolean;
}

export const floorTo = (t: number, step: number) => Math.floor(t / step) * step;
export const ceilTo = (t: number, step: number) => Math.ceil(t / step) * step;

/** The scope's window widened to whole buckets of `step` seconds: [from, to) or [from, ∞). */
export function bucketsOf(scope: Scope, step: number): { from: number; to: number | null } {
  return { from: floorTo(scope.from, step), to: scope.to === null ? null : ceilTo(scope.to, step) };
}

/**
 * A time-window condition on `column` (a DateTime or DateTime64) for [from, to), with its parameters
 * named after `name` (so several windows can share one statement).
 */
export function timeWindow(
  column: string,
  window: { from: number; to: number | null },
  name: string,
): { sql: string; params: QueryParams } {
  const lower = `${column} >= toDateTime({${name}_from:UInt32}, 'UTC')`;
  if (window.to === null) return { sql: lower, params: { [`${name}_from`]: window.from } };
  return {
    sql: `${lower} AND ${column} < toDateTime({${name}_to:UInt32}, 'UTC')`,
    params: { [`${name}_from`]: window.from, [`${name}_to`]: window.to },
  };
}

/** `column IN {name:Array(String)}` when the scope names keys, else no condition. */
export function keyFilter(
  column: string,
  keys: readonly string[] | null,
  name: string,
): { sql: string; params: QueryParams } {
  if (keys === null) return { sql: '1', params: {} };
  return { sql: `${column} IN {${name}:Array(String)}`, params: { [name]: keys } };
}

/** A derived table's computed columns, in its order (its description's, without `version` and `deleted`). */
export function computedColumns(table: TableDescription): readonly string[] {
  return insertColumns(table).filter((c) => c !== 'version' && c !== 'deleted');
}

export interface ReplaceSpec {
  label: string;
  table: string;
  /** The table's key columns (a recomputed row replaces the row of equal key). */
  key: readonly string[];
  /** Every column the SELECT returns, in order (not version or deleted). */
  columns: readonly string[];
  /** A SELECT of the recomputed rows of the scope. */
  select: string;
  /** Which rows of the table the scope covers (a condition on the table's own columns). */
  covers: string;
  params: QueryParams;
  /** Skip the deleted rows (the scope only gained rows: `Scope.additive`). */
  additive?: boolean;
}

/**
 * Replaces the rows a scope covers: inserts the recomputed rows at `version`, then a deleted row for each
 * covered row still older than `version` (one the recomputation no longer produces), unless the scope is
 * additive. Returns nothing:
 * readers see the new state once both inserts landed (FINAL), the second adds only deletions.
 */
export async function replaceScope(ch: ClickHouse, version: number, spec: ReplaceSpec): Promise<void> {
  const params = { ...spec.params, run_version: version };
  await ch.command(
    `${spec.label}.insert`,
    `INSERT INTO ${spec.table} (${spec.columns.join(', ')}, version, deleted)
     SELECT *, {run_version:UInt64}, 0 FROM (${spec.select})`,
    params,
  );
  if (spec.additive) return;
  const key = spec.key.join(', ');
  await ch.command(
    `${spec.label}.delete`,
    `INSERT INTO ${spec.table} (${key}, version, deleted)
     SELECT ${key}, {run_version:UInt64}, 1 FROM ${spec.table} FINAL
     WHERE (${spec.covers}) AND version < {run_version:UInt64}`,
    params,
  );
}

/**
 * Token → condition and outcome (`alpha_tokens`; a token may be taught by several events), for the
 * tokens matching `where` (a condition on alpha_tokens' columns); `chain` param.
 */
export function tokenMapSql(where = '1'): string {
  return `(SELECT token_id, any(condition_id) AS condition_id, any(outcome_index) AS outcome
    FROM (SELECT token_id, condition_id, outcome_index FROM alpha_tokens
          WHERE chain_id = {chain:UInt32} AND condition_id != '' AND ${where})
    GROUP BY token_id)`;
}
