/**
 * `maintenance`: records the size of every pmdata table (rows, bytes on disk, active parts) into
 * `table_sizes`, one row per table per run. The run time is the job's scheduled time, so a retried
 * run writes the same rows (ReplacingMergeTree on (table, recorded_at)).
 */
import { defineJob } from '../define.ts';

export interface TableSize {
  table: string;
  rows: string;
  bytes_on_disk: string;
  parts: number;
}

export const maintenanceJob = defineJob<{ at?: number }, { tables: number }>({
  name: 'maintenance.table-sizes',
  queue: 'maintenance',
  async process({ deps, job, log }) {
    const ch = deps.clickhouse;
    const at = job.data.at ?? job.timestamp;
    const sizes = await ch.query<TableSize>(
      'maintenance.sizes',
      `SELECT t.name AS table,
              toUInt64(sum(p.rows)) AS rows,
              toUInt64(sum(p.bytes_on_disk)) AS bytes_on_disk,
              toUInt32(count(p.name)) AS parts
       FROM system.tables AS t
       LEFT JOIN (SELECT table, name, rows, bytes_on_disk FROM system.parts
                  WHERE database = {db:String} AND active) AS p ON p.table = t.name
       WHERE t.database = {db:String} AND t.engine LIKE '%MergeTree%'
       GROUP BY t.name ORDER BY t.name`,
      { db: ch.database },
    );
    const recordedAt = new Date(at).toISOString().replace('T', ' ').replace('Z', '');
    await ch.insert(
      'maintenance.record',
      'table_sizes',
      sizes.map((s) => ({ ...s, recorded_at: recordedAt })),
    );
    log.info({ tables: sizes.length }, 'Recorded table sizes');
    return { tables: sizes.length };
  },
});
