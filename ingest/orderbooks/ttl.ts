/**
 * ORDERBOOK_TTL_DAYS on the order book history: `orderbook_snapshots` expires on `ts` (the book's time),
 * `alpha_book_quotes` on `book_time`, that many days after; 0 keeps them (no TTL). Applied where the
 * migrations run (`pmdata migrate`, and every role's start: jobs/runtime.ts), after them. Idempotent: a
 * table whose TTL already is the configured one is not altered (an ALTER … MODIFY TTL rewrites the
 * table's parts), a table without TTL is not told to remove one.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { Logger } from '../../core/logger.ts';
import type { DdlOptions } from '../../core/migrations.ts';

/** The tables of the order book history and the time column each expires on. */
export const ORDERBOOK_TTL_TABLES = [
  { table: 'orderbook_snapshots', column: 'ts' },
  { table: 'alpha_book_quotes', column: 'book_time' },
] as const;

/** The TTL clause of `column` after `days` (as ClickHouse prints it back in `engine_full`). */
export function ttlExpression(column: string, days: number): string {
  return `toDateTime(${column}) + toIntervalDay(${days})`;
}

export interface TtlChange {
  table: string;
  /** What was done: `set` (MODIFY TTL), `removed` (REMOVE TTL), or nothing (already as configured). */
  change: 'set' | 'removed' | 'none';
}

/** Sets (days > 0) or removes (0) the TTL of the order book tables; returns what changed per table. */
export async function applyOrderbookTtl(deps: {
  clickhouse: ClickHouse;
  log: Logger;
  days: number;
  ddl?: DdlOptions;
}): Promise<TtlChange[]> {
  const { clickhouse: ch, days } = deps;
  if (!Number.isSafeInteger(days) || days < 0) throw new RangeError(`ORDERBOOK_TTL_DAYS: ${days}`);
  const onCluster = deps.ddl?.cluster ? ` ON CLUSTER ${deps.ddl.cluster}` : '';
  const out: TtlChange[] = [];
  for (const { table, column } of ORDERBOOK_TTL_TABLES) {
    const [row] = await ch.query<{ engine_full: string }>(
      'orderbooks.ttl.current',
      'SELECT engine_full FROM system.tables WHERE database = currentDatabase() AND name = {table:String}',
      { table },
    );
    if (!row) continue;
    const current = /\bTTL\s+(.+?)(?:\s+SETTINGS\b|$)/s.exec(row.engine_full)?.[1]?.trim() ?? null;
    const wanted = days === 0 ? null : ttlExpression(column, days);
    if (current === wanted) {
      out.push({ table, change: 'none' });
      continue;
    }
    // `days` is a validated integer: the DDL takes no query parameters.
    const sql =
      wanted === null
        ? `ALTER TABLE ${table}${onCluster} REMOVE TTL`
        : `ALTER TABLE ${table}${onCluster} MODIFY TTL ${wanted}`;
    await ch.command(`orderbooks.ttl.${table}`, sql);
    deps.log.info({ table, ttl_days: days }, wanted === null ? 'Removed the TTL' : 'Set the TTL');
    out.push({ table, change: wanted === null ? 'removed' : 'set' });
  }
  return out;
}
