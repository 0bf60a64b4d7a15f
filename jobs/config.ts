/**
 * The configuration sections pmdata composes with core's variables: each venue declares its own
 * (ingest/venues/<code>/config.ts), the analytics theirs (analytics/config.ts). Every entry point loads the configuration with all of them,
 * `loadConfig(env, CONFIG_SECTIONS)`, so one start validates every variable.
 */

import { analyticsConfig } from '../analytics/config.ts';
import type { ConfigSection } from '../core/config.ts';
import { venuesConfig } from '../ingest/rest/config.ts';
import { alphaConfig } from '../ingest/venues/alpha/config.ts';
import { betaConfig } from '../ingest/venues/beta/config.ts';
import { deltaConfig } from '../ingest/venues/delta/config.ts';
import { epsilonConfig } from '../ingest/venues/epsilon/config.ts';
import { gammaConfig } from '../ingest/venues/gamma/config.ts';

export const CONFIG_SECTIONS: readonly ConfigSection[] = [
  alphaConfig,
  venuesConfig,
  betaConfig,
  gammaConfig,
  deltaConfig,
  epsilonConfig,
  analyticsConfig,
];
