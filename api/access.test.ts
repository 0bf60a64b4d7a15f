import { describe, expect, it } from 'vitest';
import { type Access, accessFor, PLANS, rateFor, ruleFor } from './access.ts';
import { RESOURCES } from './resources/index.ts';

/** A path's access: its resource's own rule when served, else api/access.ts's (retired, not yet served). */
const accessOf = (url: string): Access => RESOURCES.find((r) => r.path === url)?.access ?? accessFor(url);

describe('access rules (SPEC Limits)', () => {
  it('leaves health, the API description and gone paths public', () => {
    for (const url of [
      '/health',
      '/openapi.json',
      '/docs',
      '/docs/static/index.html',
      '/v2/markets',
      '/v2/outcomes/:canonical_id',
    ]) {
      expect(accessOf(url), url).toEqual({ kind: 'public' });
    }
  });

  it('marks SPEC free-and-unlimited routes as keyed, any tier, not metered', () => {
    for (const url of [
      '/v2/alpha/trades',
      '/v2/alpha/activity',
      '/v2/beta/markets',
      '/v2/gamma/orderbooks',
      '/v2/beta/orderbooks-subcent',
      '/v2/alpha/events/keyset',
      '/v2/alpha/candlesticks/token/:token_id',
      '/v2/alpha/markets/:token_id/volume',
      '/v2/alpha/markets/:condition_id/open_interest',
      '/v2/alpha/wallet/pnl/:wallet',
      '/v2/alpha/uma/market/:condition_id',
      '/v2/alpha/builders/leaderboard',
    ]) {
      expect(accessOf(url), url).toEqual({ kind: 'keyed', minTier: 'free', metered: false });
    }
  });

  it('gates wallet profiles, eta and the cluster at Dev or higher', () => {
    expect(accessOf('/v2/alpha/wallets/profiles')).toEqual({ kind: 'keyed', minTier: 'dev', metered: true });
    expect(accessOf('/v2/eta/anything/here')).toEqual({ kind: 'keyed', minTier: 'dev', metered: true });
    expect(accessOf('/v2/alpha/wallet/:address/cluster')).toEqual({
      kind: 'keyed',
      minTier: 'dev',
      metered: false,
    });
  });

  it('meters every other /v2 route for any tier', () => {
    for (const url of ['/v2/alpha/series', '/v2/alpha/search', '/v2/markets/search', '/v2/data/ticks']) {
      expect(accessOf(url), url).toEqual({ kind: 'keyed', minTier: 'free', metered: true });
    }
  });

  it('carries SPEC plan figures', () => {
    expect([rateFor('free', undefined), rateFor('dev', undefined), rateFor('pro', undefined)]).toEqual([
      1, 20, 100,
    ]);
    expect(rateFor('enterprise', 250)).toBe(250);
    expect(PLANS.free.monthlyQuota).toBe(1_000);
    expect(PLANS.dev).toMatchObject({ monthlyQuota: 1_000_000, overageUsdPer100k: 5 });
    expect(PLANS.pro).toMatchObject({ monthlyQuota: 5_000_000, overageUsdPer100k: 2.5 });
    expect(PLANS.enterprise.monthlyQuota).toBeNull();
  });

  it("states each served path's rule once: on its resource, never also in api/access.ts", () => {
    for (const r of RESOURCES)
      expect(ruleFor(r.path), `${r.path} is also ruled in api/access.ts`).toBeUndefined();
  });
});
