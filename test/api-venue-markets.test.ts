/**
 * What the four venue market lists share outside their data: each is in `/openapi.json` with every
 * parameter of its schema, free and unlimited (api/access.ts), a removed venue's list answers 404 whatever
 * routes exist, and the retired cross-venue endpoints still answer 410. Each list's data is tested in
 * test/api-venue-markets-<venue>.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCES } from '../api/resources/index.ts';
import { RETIRED_PATHS } from '../api/routes/retired.ts';
import { BetaMarketsQuery } from '../schemas/api/beta-markets.ts';
import { DeltaMarketsQuery } from '../schemas/api/delta-markets.ts';
import { EpsilonMarketsQuery } from '../schemas/api/epsilon-markets.ts';
import { GammaMarketsQuery } from '../schemas/api/gamma-markets.ts';
import { type ApiTestContext, createApiTestContext } from './api-helpers.ts';

const LISTS = {
  '/v2/beta/markets': BetaMarketsQuery,
  '/v2/gamma/markets': GammaMarketsQuery,
  '/v2/delta/markets': DeltaMarketsQuery,
  '/v2/epsilon/markets': EpsilonMarketsQuery,
};

let t: ApiTestContext;
// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document as parsed JSON
let doc: any;

beforeAll(async () => {
  t = await createApiTestContext('api_venue_markets', { env: { REMOVED_VENUES: 'delta' } });
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
}, 120_000);
afterAll(async () => t?.close());

describe('venue market lists', () => {
  it.each(Object.entries(LISTS))(
    '/openapi.json lists %s with every parameter and its responses',
    (path, query) => {
      const op = doc.paths[path]?.get;
      expect(op, path).toBeDefined();
      const names = (op.parameters as { name: string; in: string }[]).map((p) => p.name).sort();
      expect(names).toEqual(Object.keys(query.properties).sort());
      expect(Object.keys(op.responses).sort()).toEqual([
        '200',
        '400',
        '401',
        '403',
        '422',
        '429',
        '500',
        '503',
      ]);
      const schema = op.responses['200'].content['application/json'].schema;
      expect(Object.keys(schema.properties).sort()).toEqual(['markets', 'pagination']);
      const canonical = (op.parameters as { name: string; schema: { items: { pattern: string } } }[]).find(
        (p) => p.name === 'canonical_id',
      );
      expect(canonical?.schema.items.pattern).toBe('^pmc_[a-z2-7]{12}$');
    },
  );

  it.each(Object.keys(LISTS))('%s is free and unlimited (any tier, not counted)', (path) => {
    expect(RESOURCES.find((r) => r.path === path)?.access).toEqual({
      kind: 'keyed',
      minTier: 'free',
      metered: false,
    });
  });

  it('a removed venue (REMOVED_VENUES=delta) answers 404 on its list, key or not', async () => {
    const key = await t.key('enterprise', 1000);
    for (const headers of [{}, { 'x-api-key': key }]) {
      const res = await t.app.inject({ method: 'GET', url: '/v2/delta/markets?limit=5', headers });
      expect(res.statusCode, res.body).toBe(404);
      expect(Object.keys(res.json()).sort()).toEqual(['error', 'message']);
    }
  });

  it('the retired cross-venue endpoints still answer 410', async () => {
    for (const p of RETIRED_PATHS) {
      const res = await t.app.inject({ method: 'GET', url: p.replace(':canonical_id', 'pmc_abcdefghijkl') });
      expect(res.statusCode, `${p}: ${res.body}`).toBe(410);
    }
  });
});
