/** The analytics' configuration section (docs/configuration.md): how often the scheduled runs go. */
import { defineConfigSection, integer } from '../core/config.ts';

export const analyticsConfig = defineConfigSection('analytics', {
  /** Seconds between incremental market-data runs (candles, open interest, totals). */
  intervalS: {
    env: 'ANALYTICS_INTERVAL_S',
    default: '30',
    form: 'an integer 5..86400 (seconds)',
    parse: integer(5, 86_400),
  },
  /** Seconds between rolling-metrics runs (also run after the market data caught up). */
  rollingIntervalS: {
    env: 'ANALYTICS_ROLLING_INTERVAL_S',
    default: '3600',
    form: 'an integer 60..86400 (seconds)',
    parse: integer(60, 86_400),
  },
  /** Seconds between safety rebuilds of the catalog lists (also rebuilt after each sync and run). */
  catalogIntervalS: {
    env: 'ANALYTICS_CATALOG_INTERVAL_S',
    default: '300',
    form: 'an integer 10..86400 (seconds)',
    parse: integer(10, 86_400),
  },
  /**
   * Triggered rebuilds of the catalog lists within one slot of this many seconds coalesce into one: at
   * most one triggered build per slot (raise it for a catalog whose build takes tens of seconds).
   */
  catalogCoalesceS: {
    env: 'ANALYTICS_CATALOG_COALESCE_S',
    default: '10',
    form: 'an integer 1..3600 (seconds)',
    parse: integer(1, 3_600),
  },
  /** Seconds between incremental runs of the positions job (venue alpha, analytics/positions/). */
  positionsIntervalS: {
    env: 'ALPHA_POSITIONS_INTERVAL_S',
    default: '10',
    form: 'an integer 1..86400 (seconds)',
    parse: integer(1, 86_400),
  },
  /** Seconds between wallet-profile runs (venue alpha, analytics/profiles/). */
  profilesIntervalS: {
    env: 'ALPHA_PROFILES_INTERVAL_S',
    default: '300',
    form: 'an integer 5..86400 (seconds)',
    parse: integer(5, 86_400),
  },
});
