/**
 * Recurring work, applied with `upsertJobScheduler` so that every scheduler process (and every
 * restart) converges on one scheduler per id instead of piling up repeats. The core schedules are here;
 * the venues' come from their jobs, the analytics products' from their definitions (jobs/products.ts).
 */
import type { Config } from '../core/config.ts';
import { type Schedule, schedule, type Work, work } from './define.ts';
import { BOOK_SCHEDULES } from './processors/alpha-book.ts';
import { alphaCatalogJob, CATALOG_SCHEDULES } from './processors/alpha-catalog.ts';
import { alphaFollowJob } from './processors/alpha-follow.ts';
import { BETA_SCHEDULES } from './processors/beta.ts';
import { DELTA_SCHEDULES } from './processors/delta.ts';
import { EPSILON_SCHEDULES } from './processors/epsilon.ts';
import { GAMMA_SCHEDULES } from './processors/gamma.ts';
import { maintenanceJob } from './processors/maintenance.ts';
import { PRODUCT_SCHEDULES } from './products.ts';
import type { Queues } from './queues.ts';

const CORE_SCHEDULES: readonly Schedule[] = [
  schedule('maintenance:table-sizes', maintenanceJob, (c) => c.maintenanceIntervalS * 1000, {}),
  // The live follower runs as a job of bounded length that is re-enqueued: a crashed worker's follower
  // is picked up by another within one interval, and a Redis lease keeps it to one at a time.
  schedule('alpha:follow', alphaFollowJob, () => 30_000, { maxRunMs: 300_000 }),
  ...CATALOG_SCHEDULES,
  ...BOOK_SCHEDULES,
];

const VENUE_SCHEDULES: readonly Schedule[] = [
  ...BETA_SCHEDULES,
  ...GAMMA_SCHEDULES,
  ...DELTA_SCHEDULES,
  ...EPSILON_SCHEDULES,
];

export const SCHEDULES: readonly Schedule[] = [...CORE_SCHEDULES, ...PRODUCT_SCHEDULES, ...VENUE_SCHEDULES];

/**
 * Work enqueued once whenever the schedules are applied (each scheduler start): what must not wait a
 * whole interval after a start, such as the full catalog sweep.
 */
export const AT_START: readonly Work[] = [work(alphaCatalogJob, { mode: 'full' })];

export async function applySchedules(
  queues: Queues,
  config: Config,
  schedules: readonly Schedule[] = SCHEDULES,
  atStart: readonly Work[] = schedules === SCHEDULES ? AT_START : [],
): Promise<string[]> {
  for (const w of atStart) await queues.add(w);
  for (const s of schedules) {
    await queues
      .get(s.job.queue)
      .upsertJobScheduler(s.id, { every: s.everyMs(config) }, { name: s.job.name, data: s.payload });
  }
  return schedules.map((s) => s.id);
}
