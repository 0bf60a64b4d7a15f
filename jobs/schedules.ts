/**
 * Recurring work, applied with `upsertJobScheduler` so that every scheduler process (and every
 * restart) converges on one scheduler per id instead of piling up repeats.
 */
import type { Config } from '../core/config.ts';
import type { JobDefinition } from './define.ts';
import { BOOK_SCHEDULES } from './processors/alpha-book.ts';
import { alphaCatalogJob, CATALOG_SCHEDULES } from './processors/alpha-catalog.ts';
import { alphaFollowJob } from './processors/alpha-follow.ts';
import { POSITIONS_SCHEDULES } from './processors/alpha-positions.ts';
import { PROFILES_SCHEDULES } from './processors/alpha-profiles.ts';
import { ANALYTICS_SCHEDULES } from './processors/analytics-alpha.ts';
import { CATALOG_ROLLUP_SCHEDULES } from './processors/analytics-catalog.ts';
import { BETA_SCHEDULES } from './processors/beta.ts';
import { DELTA_SCHEDULES } from './processors/delta.ts';
import { EPSILON_SCHEDULES } from './processors/epsilon.ts';
import { GAMMA_SCHEDULES } from './processors/gamma.ts';
import { maintenanceJob } from './processors/maintenance.ts';
import type { Queues } from './queues.ts';

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
  {
    // The live follower runs as a job of bounded length that is re-enqueued: a crashed worker's follower
    // is picked up by another within one interval, and a Redis lease keeps it to one at a time.
    id: 'alpha:follow',
    job: alphaFollowJob as JobDefinition<never, unknown>,
    everyMs: () => 30_000,
    payload: { maxRunMs: 300_000 },
  },
  ...CATALOG_SCHEDULES,
  ...BOOK_SCHEDULES,
  ...ANALYTICS_SCHEDULES,
  ...CATALOG_ROLLUP_SCHEDULES,
  ...POSITIONS_SCHEDULES,
  ...PROFILES_SCHEDULES,
  ...BETA_SCHEDULES,
  ...GAMMA_SCHEDULES,
  ...DELTA_SCHEDULES,
  ...EPSILON_SCHEDULES,
];

/**
 * Work enqueued once whenever the schedules are applied (each scheduler start): what must not wait a
 * whole interval after a start, such as the full catalog sweep.
 */
export const AT_START: readonly { job: JobDefinition<never, unknown>; payload: unknown }[] = [
  { job: alphaCatalogJob as JobDefinition<never, unknown>, payload: { mode: 'full' } },
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
