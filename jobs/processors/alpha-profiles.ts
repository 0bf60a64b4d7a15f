/**
 * `alpha.profiles` (queue `analytics`, every ALPHA_PROFILES_INTERVAL_S): venue alpha's wallet profiles
 * (analytics/profiles/; docs/profiles.md), every wallet with a position, rewritten whole at the newest
 * block's time. A Redis lease of its own keeps runs to one at a time across processes: a run that finds it
 * taken completes at once (the next one comes within an interval).
 */
import { analyticsConfig } from '../../analytics/config.ts';
import { type ProfilesRun, runProfiles } from '../../analytics/profiles/run.ts';
import { withLease } from '../../core/lease.ts';
import { defineJob } from '../define.ts';
import type { Schedule } from '../schedules.ts';
import { analyticsDeps } from './analytics-alpha.ts';

export const ALPHA_PROFILES_LEASE = 'analytics:alpha-profiles:lease';

export const alphaProfilesJob = defineJob<Record<string, never>, ProfilesRun | { ran: false }>({
  name: 'alpha.profiles',
  queue: 'analytics',
  attempts: 3,
  async process({ deps, log }) {
    const run = await withLease(deps.redis, ALPHA_PROFILES_LEASE, 60_000, () =>
      runProfiles(analyticsDeps(deps, log)),
    );
    return run ?? { ran: false };
  },
});

export const PROFILES_SCHEDULES: readonly Schedule[] = [
  {
    id: 'alpha:profiles',
    job: alphaProfilesJob as never,
    everyMs: (c) => analyticsConfig.of(c).profilesIntervalS * 1000,
    payload: {},
  },
];
