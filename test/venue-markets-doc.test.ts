/**
 * The `doc` column of each REST venue's market table against the list's `columns` (its contract's,
 * schemas/venues/<venue>.ts `listColumns`), from which both the named row and the `doc` expression are
 * generated: the expression the migrations give `doc` (the last one that sets it: 040 today) is the
 * generated one, text for text; and over every row the venue syncs from a small world's replicas, the
 * document parses to exactly the values the columns read. A list's columns changed without a migration of
 * `doc` fails here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../core/migrations.ts';
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

/** `doc`'s MATERIALIZED expression of `table` as the migrations, in order, last set it. */
function migratedDoc(table: string): string | undefined {
  const set = new RegExp(
    `ALTER TABLE ${table} (?:ADD COLUMN IF NOT EXISTS|MODIFY COLUMN) doc String MATERIALIZED (toJSONString\\(tuple\\([\\s\\S]*?\\n\\)\\));`,
    'g',
  );
  let doc: string | undefined;
  for (const file of fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort()) {
    for (const m of fs.readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8').matchAll(set)) doc = m[1];
  }
  return doc;
}

describe('venue market documents', () => {
  for (const { market, list } of LIST_CONTRACTS) {
    it(`${market.table}.doc is migrated as the expression generated from the list's columns`, () => {
      expect(migratedDoc(market.table)).toBe(list.columns.doc);
    });
  }

  for (const { market, list } of LIST_CONTRACTS) {
    it(`${market.table}.doc holds the list's columns, in order, as they read`, async () => {
      const rows = await deps.clickhouse.read<unknown[]>(
        'test.venue_doc',
        `SELECT doc, ${list.columns.sql} FROM ${market.table} FINAL ORDER BY ${market.key.column}`,
      );
      expect(rows.length).toBeGreaterThan(0);
      for (const [doc, ...values] of rows) expect(JSON.parse(String(doc))).toEqual(values);
    });
  }
});
