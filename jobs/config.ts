/**
 * The configuration sections pmdata composes with core's variables: each venue declares its own
 * (ingest/venues/<code>/config.ts; the list of venues, jobs/venues.ts, gives them), the analytics theirs
 * (analytics/config.ts), the tick datasets theirs (schemas/ticks.ts: the compaction job and the API read it). Every entry point loads the configuration with all of them,
 * `loadConfig(env, CONFIG_SECTIONS)`, so one start validates every variable.
 */

import { analyticsConfig } from '../analytics/config.ts';
import type { ConfigSection } from '../core/config.ts';
import { ticksConfig } from '../schemas/ticks.ts';
import { VENUE_CONFIG_SECTIONS } from './venues.ts';

export const CONFIG_SECTIONS: readonly ConfigSection[] = [
  ...VENUE_CONFIG_SECTIONS,
  analyticsConfig,
  ticksConfig,
];
