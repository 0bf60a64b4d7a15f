/**
 * The `doc` column of each REST venue's market table (migration 040) against the list's `columns`
 * (its contract's, schemas/venues/<venue>.ts `list`): over every row the venue syncs from a small world's replicas, the
 * document parses to exactly the values the columns read. A list's columns changed without a migration of
 * `doc` fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStream } from '../ingest/rest/runner.ts';
import { beta } from '../ingest/venues/beta/index.ts';
import { delta } from '../ingest/venues/delta/index.ts';
import { epsilon } from '../ingest/venues/epsilon/index.ts';
import { gamma } from '../ingest/venues/gamma/index.ts';
import { LIST_CONTRACTS } from '../schemas/venues/index.ts';
import { startWorld, type World } from './sim-replicas-support.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

let world: World;
let deps: TestDeps;

beforeAll(async () => {
  world = await startWorld('venue-markets-doc');
  const u = world.replicas.urls;
  deps = await createTestDeps('venue_markets_doc', {
    env: { BETA_API_URL: u.beta, GAMMA_API_URL: u.gamma, DELTA_API_URL: u.delta, EPSILON_API_URL: u.epsilon },
  });
  await runStream(beta, 'markets', deps, { mode: 'reconcile' });
  await runStream(gamma, 'markets', deps, { mode: 'reconcile' });
  await runStream(delta, 'markets', deps, { mode: 'reconcile' });
  await runStream(epsilon, 'markets', deps, { mode: 'reconcile' });
}, 120_000);
afterAll(async () => {
  await deps?.close();
  await world?.replicas.close();
});

describe('venue market documents', () => {
  for (const { market, list } of LIST_CONTRACTS) {
    it(`${market.table}.doc holds the list's columns, in order, as they read`, async () => {
      const rows = await deps.clickhouse.read<unknown[]>(
        'test.venue_doc',
        `SELECT doc, ${list.columns.join(', ')} FROM ${market.table} FINAL ORDER BY ${market.key.column}`,
      );
      expect(rows.length).toBeGreaterThan(0);
      for (const [doc, ...values] of rows) expect(JSON.parse(String(doc))).toEqual(values);
    });
  }
});
