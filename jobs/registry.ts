/**
 * Every job pmdata runs. Workers take their processors from here: the venues' jobs come from the list
 * of venues (jobs/venues.ts); add any other job's definition to this list (its processor lives in
 * jobs/processors/<name>.ts).
 */
import type { JobDefinition } from './define.ts';
import { alphaPositionsJob } from './processors/alpha-positions.ts';
import { alphaProfilesJob } from './processors/alpha-profiles.ts';
import { alphaMarketDataJob, alphaRollingJob } from './processors/analytics-alpha.ts';
import { alphaCatalogRollupsJob } from './processors/analytics-catalog.ts';
import { CANONICAL_JOBS } from './processors/canonical.ts';
import { maintenanceJob } from './processors/maintenance.ts';
import { VENUE_JOBS } from './venues.ts';

export const ALL_JOBS: readonly JobDefinition<never, unknown>[] = [
  maintenanceJob as JobDefinition<never, unknown>,
  ...VENUE_JOBS,
  alphaMarketDataJob as JobDefinition<never, unknown>,
  alphaRollingJob as JobDefinition<never, unknown>,
  alphaCatalogRollupsJob as JobDefinition<never, unknown>,
  alphaPositionsJob as JobDefinition<never, unknown>,
  alphaProfilesJob as JobDefinition<never, unknown>,
  ...CANONICAL_JOBS,
];
