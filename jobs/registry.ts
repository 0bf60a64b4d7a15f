/**
 * Every job pmdata runs. Workers take their processors from here: the core jobs (their processors in
 * jobs/processors/<name>.ts), the venues' and the analytics products' (derived from analytics/products.ts
 * by jobs/products.ts).
 */
import type { AnyJob } from './define.ts';
import { alphaBackfillJob } from './processors/alpha-backfill.ts';
import { alphaBookJob } from './processors/alpha-book.ts';
import { alphaCatalogJob } from './processors/alpha-catalog.ts';
import { alphaFollowJob } from './processors/alpha-follow.ts';
import { BETA_JOBS } from './processors/beta.ts';
import { CANONICAL_JOBS } from './processors/canonical.ts';
import { DELTA_JOBS } from './processors/delta.ts';
import { EPSILON_JOBS } from './processors/epsilon.ts';
import { GAMMA_JOBS } from './processors/gamma.ts';
import { maintenanceJob } from './processors/maintenance.ts';
import { PRODUCT_JOBS } from './products.ts';

const CORE_JOBS: readonly AnyJob[] = [
  maintenanceJob,
  alphaBackfillJob,
  alphaFollowJob,
  alphaCatalogJob,
  alphaBookJob,
];

const VENUE_JOBS: readonly AnyJob[] = [
  ...BETA_JOBS,
  ...GAMMA_JOBS,
  ...DELTA_JOBS,
  ...EPSILON_JOBS,
  ...CANONICAL_JOBS,
];

export const ALL_JOBS: readonly AnyJob[] = [...CORE_JOBS, ...PRODUCT_JOBS, ...VENUE_JOBS];
