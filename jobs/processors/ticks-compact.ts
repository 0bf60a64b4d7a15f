/**
 * `ticks.compact`: compacts every final day of every tick dataset not compacted yet into Parquet parts
 * (analytics/ticks/compact.ts; docs/ticks.md), every TICKS_COMPACT_INTERVAL_S under one lease (two
 * workers never write a day's files at once). A run with nothing final to do reads two small answers per
 * dataset; a run stopped by a shutdown keeps the days it finished (each committed by its `tick_days` row).
 */
import { compactFinalDays } from '../../analytics/ticks/compact.ts';
import { withLease } from '../../core/lease.ts';
import { ticksSettings } from '../../schemas/ticks.ts';
import { TICK_DATASETS } from '../../schemas/venues/index.ts';
import { defineJob } from '../define.ts';

const LEASE = 'ticks:compact:lease';
const LEASE_MS = 120_000;

export const ticksCompactJob = defineJob<Record<string, never>, unknown>({
  name: 'ticks.compact',
  queue: 'analytics',
  attempts: 3,
  async process({ deps, log, signal }) {
    const settings = ticksSettings(deps.config);
    const run = await withLease(deps.redis, LEASE, LEASE_MS, () =>
      compactFinalDays({ clickhouse: deps.clickhouse, log, settings }, TICK_DATASETS, signal),
    );
    if (run === null) return { ran: false };
    if (run.days.length > 0) log.info({ days: run.days.length }, 'Compacted tick days');
    return { ran: true, days: run.days };
  },
});
