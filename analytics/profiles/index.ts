/**
 * Product `alpha-profiles` (docs/profiles.md): venue alpha's wallet profiles, every wallet with a
 * position, rewritten whole at the newest block's time (run.ts). Job `alpha.profiles`, every
 * ALPHA_PROFILES_INTERVAL_S (no move of its inputs enqueues it); a Redis lease of its own keeps runs to
 * one at a time across processes: a run that finds it taken completes at once.
 */
import { fmtCount as fmt } from '../../core/progress.ts';
import { analyticsConfig } from '../config.ts';
import { defineProduct, secs } from '../shared/product.ts';
import { PROFILES_PRODUCT, PROFILES_SOURCE, runProfiles } from './run.ts';

export const profiles = defineProduct({
  name: PROFILES_PRODUCT,
  inputs: ['alpha-positions'],
  tables: ['alpha_wallet_profiles'],
  source: PROFILES_SOURCE,
  mode: 'whole',
  every: (c) => analyticsConfig.of(c).profilesIntervalS * 1000,
  job: {
    name: 'alpha.profiles',
    attempts: 3,
    lease: 'analytics:alpha-profiles:lease',
    schedule: { id: 'alpha:profiles', payload: {} },
  },
  async run(ctx) {
    return { value: await runProfiles(ctx), moved: { stream: 'run', kind: 'head' } };
  },
  async recompute(ctx) {
    const run = await runProfiles(ctx);
    return {
      line: `${fmt(run.wallets)} wallets (${fmt(run.removed)} removed), ${secs(run.ms)}`,
      fields: { wallets: run.wallets, removed: run.removed },
    };
  },
});
