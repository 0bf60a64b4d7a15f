/**
 * Every job pmdata runs. Workers take their processors from here; add a new job's definition to
 * this list (its processor lives in jobs/processors/<name>.ts).
 */
import type { JobDefinition } from './define.ts';
import { alphaBackfillJob } from './processors/alpha-backfill.ts';
import { alphaBookJob } from './processors/alpha-book.ts';
import { alphaCatalogJob } from './processors/alpha-catalog.ts';
import { alphaFollowJob } from './processors/alpha-follow.ts';
import { alphaPositionsJob } from './processors/alpha-positions.ts';
import { alphaProfilesJob } from './processors/alpha-profiles.ts';
import { alphaMarketDataJob, alphaRollingJob } from './processors/analytics-alpha.ts';
import { alphaCatalogRollupsJob } from './processors/analytics-catalog.ts';
import { BETA_JOBS } from './processors/beta.ts';
import { CANONICAL_JOBS } from './processors/canonical.ts';
import { DELTA_JOBS } from './processors/delta.ts';
import { EPSILON_JOBS } from './processors/epsilon.ts';
import { GAMMA_JOBS } from './processors/gamma.ts';
import { maintenanceJob } from './processors/maintenance.ts';

export const ALL_JOBS: readonly JobDefinition<never, unknown>[] = [
  maintenanceJob as JobDefinition<never, unknown>,
  alphaBackfillJob as JobDefinition<never, unknown>,
  alphaFollowJob as JobDefinition<never, unknown>,
  alphaCatalogJob as JobDefinition<never, unknown>,
  alphaBookJob as JobDefinition<never, unknown>,
  alphaMarketDataJob as JobDefinition<never, unknown>,
  alphaRollingJob as JobDefinition<never, unknown>,
  alphaCatalogRollupsJob as JobDefinition<never, unknown>,
  alphaPositionsJob as JobDefinition<never, unknown>,
  alphaProfilesJob as JobDefinition<never, unknown>,
  ...BETA_JOBS,
  ...GAMMA_JOBS,
  ...DELTA_JOBS,
  ...EPSILON_JOBS,
  ...CANONICAL_JOBS,
];
