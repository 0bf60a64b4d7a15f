/**
 * Recurring work (the venues' from the list of venues, jobs/venues.ts), applied with `upsertJobScheduler` so that every scheduler process (and every
 * restart) converges on one scheduler per id instead of piling up repeats.
 */
import type { Config } from '../core/config.ts';
import type { JobDefinition } from './define.ts';
import { POSITIONS_SCHEDULES } from './processors/alpha-positions.ts';
import { PROFILES_SCHEDULES } from './processors/alpha-profiles.ts';
import { ANALYTICS_SCHEDULES } from './processors/analytics-alpha.ts';
import { CATALOG_ROLLUP_SCHEDULES } from './processors/analytics-catalog.ts';
import { maintenanceJob } from './processors/maintenance.ts';
import type { Queues } from './queues.ts';
import { VENUE_AT_START, VENUE_SCHEDULES } from './venues.ts';

export interface Schedule {
  id: string;
  job: JobDefinition<never, unknown>;
  everyMs(config: Config): number;
  payload: unknown;
}

export const SCHEDULES: readonly Schedule[] = [
  {
    id: 'maintenance:table-sizes',
    job: maintenanceJob as JobDefinition<never, unknown>,
    everyMs: (c) => c.maintenanceIntervalS * 1000,
    payload: {},
  },
  ...VENUE_SCHEDULES,
  ...ANALYTICS_SCHEDULES,
  ...CATALOG_ROLLUP_SCHEDULES,
  ...POSITIONS_SCHEDULES,
  ...PROFILES_SCHEDULES,
];

/**
 * Work enqueued once whenever the schedules are applied (each scheduler start): what must not wait a
 * whole interval after a start, such as the full catalog sweep.
 */
export const AT_START: readonly { job: JobDefinition<never, unknown>; payload: unknown }[] = [
  ...VENUE_AT_START,
];

export async function applySchedules(
  queues: Queues,
  config: Config,
  schedules: readonly Schedule[] = SCHEDULES,
  atStart: typeof AT_START = schedules === SCHEDULES ? AT_START : [],
): Promise<string[]> {
  for (const w of atStart) await queues.enqueue(w.job, w.payload as never);
  for (const s of schedules) {
    await queues
      .get(s.job.queue)
      .upsertJobScheduler(s.id, { every: s.everyMs(config) }, { name: s.job.name, data: s.payload });
  }
  return schedules.map((s) => s.id);
}
