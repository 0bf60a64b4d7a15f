/**
 * Every job pmdata runs. Workers take their processors from here: the core jobs (their processors in
 * jobs/processors/<name>.ts), the venues' (derived from the list of venues, jobs/venues.ts) and the
 * analytics products' (derived from analytics/products.ts by jobs/products.ts).
 */
import type { AnyJob } from './define.ts';
import { CANONICAL_JOBS } from './processors/canonical.ts';
import { maintenanceJob } from './processors/maintenance.ts';
import { ticksCompactJob } from './processors/ticks-compact.ts';
import { PRODUCT_JOBS } from './products.ts';
import { VENUE_JOBS } from './venues.ts';

export const ALL_JOBS: readonly AnyJob[] = [
  maintenanceJob,
  ...VENUE_JOBS,
  ...PRODUCT_JOBS,
  ...CANONICAL_JOBS,
  ticksCompactJob,
];
