/**
 * Recurring work, applied with `upsertJobScheduler` so that every scheduler process (and every
 * restart) converges on one scheduler per id instead of piling up repeats. The core schedules are here;
 * the venues' come from the list of venues (jobs/venues.ts), the analytics products' from their
 * definitions (jobs/products.ts).
 */
import type { Config } from '../core/config.ts';
import { ticksSettings } from '../schemas/ticks.ts';
import { type Schedule, schedule, type Work } from './define.ts';
import { maintenanceJob } from './processors/maintenance.ts';
import { ticksCompactJob } from './processors/ticks-compact.ts';
import { PRODUCT_SCHEDULES } from './products.ts';
import type { Queues } from './queues.ts';
import { VENUE_AT_START, VENUE_SCHEDULES } from './venues.ts';

export const SCHEDULES: readonly Schedule[] = [
  schedule('maintenance:table-sizes', maintenanceJob, (c) => c.maintenanceIntervalS * 1000, {}),
  ...VENUE_SCHEDULES,
  ...PRODUCT_SCHEDULES,
  schedule('ticks:compact', ticksCompactJob, (c) => ticksSettings(c).compactIntervalS * 1000, {}),
];

/**
 * Work enqueued once whenever the schedules are applied (each scheduler start): what must not wait a
 * whole interval after a start, such as the full catalog sweep.
 */
export const AT_START: readonly Work[] = VENUE_AT_START;

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
