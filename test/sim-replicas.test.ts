import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReplicaUrls, startReplicas } from '../sim/venues/index.ts';
import { generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState } from '../sim/world/state.ts';
import {
  call,
  endpointCases,
  hasRecords,
  loadValidators,
  START,
  startWorld,
  type World,
} from './sim-replicas-support.ts';

let w1: World;
let w2: World;

beforeAll(async () => {
  w1 = await startWorld('replica-seed');
  w2 = await startWorld('replica-seed');
});

afterAll(async () => {
  await w1?.replicas.close();
  await w2?.replicas.close();
});

describe('venue replicas', () => {
  it('a small world (catalog, state, six servers) is up in well under 10 s', async () => {
    const t0 = performance.now();
    const catalog = generateCatalog({ seed: 'startup', size: 'small', startTime: START });
    const state = createWorldState(catalog);
    const r = await startReplicas({ catalog, state });
    const elapsed = performance.now() - t0;
    try {
      for (const url of Object.values(r.urls)) expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${r.urls.alpha_metadata}/status`);
      expect(await res.text()).toBe('OK');
    } finally {
      await r.close();
    }
    expect(elapsed).toBeLessThan(2_000);
  });

  it('the same seed twice gives identical responses on every endpoint', async () => {
    const c1 = endpointCases(w1);
    const c2 = endpointCases(w2);
    expect(c1.length).toBe(c2.length);
    const digest = async (cases: typeof c1, base: ReplicaUrls) => {
      const h = createHash('sha256');
      for (const c of cases) {
        const r = await call(c);
        expect(r.status, c.url).toBe(200);
        // Ports differ between the two worlds; everything else must be byte-identical.
        h.update(c.url.replace(base[c.server], ''));
        h.update(r.text);
      }
      return h.digest('hex');
    };
    const d1 = await digest(c1, w1.replicas.urls);
    const d2 = await digest(c2, w2.replicas.urls);
    expect(d1).toBe(d2);
    // A different seed gives a different world.
    const other = await startWorld('replica-seed-2');
    try {
      const d3 = await digest(endpointCases(other), other.replicas.urls);
      expect(d3).not.toBe(d1);
    } finally {
      await other.replicas.close();
    }
  });

  it('every endpoint answers in its upstream OpenAPI response schema', async () => {
    const validators = loadValidators();
    const failures: string[] = [];
    const withoutSchema: string[] = [];
    const cases = endpointCases(w1);
    // This seed's world has a gamma group and a delta categorical market, so every endpoint is covered.
    expect(cases.some((c) => c.url.includes('/market/categorical/'))).toBe(true);
    expect(cases.filter((c) => c.template === '/markets/{addressOrSlug}')).toHaveLength(3);
    for (const c of cases) {
      const r = await call(c);
      expect(r.status, c.url).toBe(200);
      const body = r.headers.get('content-type')?.includes('json') ? JSON.parse(r.text) : r.text;
      if (c.nonEmpty) expect(hasRecords(body, c.nonEmpty), `${c.url} returned no records`).toBe(true);
      const errors = validators[c.server].validate(c.template, c.method, 200, body);
      if (errors === null) {
        withoutSchema.push(`${c.method} ${c.template}`);
        continue;
      }
      if (errors.length > 0) failures.push(`${c.method} ${c.url}: ${JSON.stringify(errors.slice(0, 3))}`);
    }
    expect(failures).toEqual([]);
    // The only responses the upstream files leave without a schema (epsilon's order-book data and tags).
    expect(withoutSchema.sort()).toEqual(
      [
        'GET /public/api/v1/events/{id}/tags',
        'GET /public/api/v1/midpoint',
        'GET /public/api/v1/price',
        'GET /public/api/v1/prices-history',
        'GET /public/api/v1/tags/',
        'POST /public/api/v1/prices',
      ].sort(),
    );
  });

  it('the schema validators reject a record of the wrong type (they are not vacuous)', () => {
    const v = loadValidators();
    expect(
      v.beta.validate('/markets/trades', 'get', 200, { trades: [{ ticker: 1 }], cursor: '' }),
    ).not.toEqual([]);
    expect(v.alpha_metadata.validate('/markets', 'get', 200, [{ id: 5 }])).not.toEqual([]);
    expect(v.alpha_book.validate('/book', 'get', 200, { market: 'x' })).not.toEqual([]);
  });
});
