/**
 * Epsilon's table descriptions (schemas/tables/epsilon.ts) equal DESCRIBE TABLE of the migrated database
 * (migration 038), column by column, so the ingestor's rows and the API's reads cannot drift from them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeColumns } from '../core/clickhouse/table.ts';
import { EPSILON_TABLES } from '../schemas/tables/epsilon.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

let deps: TestDeps;

beforeAll(async () => {
  deps = await createTestDeps('epsilon_tables');
});
afterAll(async () => deps?.close());

describe('epsilon table descriptions', () => {
  for (const table of Object.values(EPSILON_TABLES)) {
    it(`${table.name} equals DESCRIBE TABLE of the migrated database`, async () => {
      const rows = await deps.clickhouse.query<{ name: string; type: string }>(
        'test.describe',
        `DESCRIBE TABLE ${table.name}`,
      );
      expect(rows.map((r) => ({ name: r.name, type: r.type }))).toEqual(describeColumns(table));
    });
  }
});
