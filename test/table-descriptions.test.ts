/**
 * Every table description (schemas/tables/) against the migrated database: a fresh database is migrated
 * and `DESCRIBE TABLE` of each described table must list exactly the described columns, in order, with
 * the described types. A column added by a migration but not to its description (or the reverse) fails
 * here, so the row types, insert encoders and read column lists that derive from descriptions cannot
 * drift from the tables.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ByteWriter } from '../core/clickhouse/row-binary.ts';
import {
  c,
  defineTable,
  describeColumns,
  insertColumns,
  rowBinaryEncoder,
} from '../core/clickhouse/table.ts';
import { ALPHA_ANALYTICS_TABLES } from '../schemas/tables/alpha-analytics.ts';
import { ALPHA_BOOK_TABLES } from '../schemas/tables/alpha-book.ts';
import { ALPHA_CATALOG_TABLES } from '../schemas/tables/alpha-catalog.ts';
import { ALPHA_CATALOG_LIST_TABLES } from '../schemas/tables/alpha-catalog-lists.ts';
import { ALPHA_CHAIN_TABLES } from '../schemas/tables/alpha-chain.ts';
import { ALPHA_POSITION_TABLES } from '../schemas/tables/alpha-positions.ts';
import { ALPHA_PROFILE_TABLES } from '../schemas/tables/alpha-profiles.ts';
import { BETA_TABLES } from '../schemas/tables/beta.ts';
import { DELTA_TABLES } from '../schemas/tables/delta.ts';
import { EPSILON_TABLES } from '../schemas/tables/epsilon.ts';
import { GAMMA_TABLES } from '../schemas/tables/gamma.ts';
import { VENUE_TABLES } from '../schemas/tables/venues.ts';
import { WATERMARK_TABLES } from '../schemas/tables/watermarks.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

let deps: TestDeps;

beforeAll(async () => {
  deps = await createTestDeps('table_descriptions');
});
afterAll(async () => deps?.close());

describe('table descriptions', () => {
  for (const table of [
    ...Object.values(ALPHA_CHAIN_TABLES),
    ...Object.values(ALPHA_ANALYTICS_TABLES),
    ...Object.values(ALPHA_BOOK_TABLES),
    ...Object.values(ALPHA_CATALOG_TABLES),
    ...Object.values(ALPHA_CATALOG_LIST_TABLES),
    ...Object.values(ALPHA_POSITION_TABLES),
    ...Object.values(VENUE_TABLES),
    ...Object.values(BETA_TABLES),
    ...Object.values(GAMMA_TABLES),
    ...Object.values(DELTA_TABLES),
    ...Object.values(EPSILON_TABLES),
    ...Object.values(ALPHA_PROFILE_TABLES),
    ...Object.values(WATERMARK_TABLES),
  ]) {
    it(`${table.name} equals DESCRIBE TABLE of the migrated database`, async () => {
      const rows = await deps.clickhouse.query<{ name: string; type: string; default_type: string }>(
        'test.describe',
        `DESCRIBE TABLE ${table.name}`,
      );
      // MATERIALIZED columns are computed by the engine, never inserted (the venue lists' `doc`,
      // test/venue-markets-doc.test.ts): not part of a description.
      expect(
        rows.filter((r) => r.default_type !== 'MATERIALIZED').map((r) => ({ name: r.name, type: r.type })),
      ).toEqual(describeColumns(table));
    });
  }

  it('leaves computed columns out of inserts', () => {
    expect(insertColumns(ALPHA_CHAIN_TABLES.alpha_fills)).not.toContain('price');
    expect(insertColumns(ALPHA_CHAIN_TABLES.quarantine)).not.toContain('quarantined_at');
  });

  it('compiles a RowBinary encoder that writes each column in order as its kind says', () => {
    const t = defineTable('t', {
      a: c.u32,
      b: c.hex(),
      d: c.computed(c.f64),
      e: c.enum8({ x: 1, y: 2 }),
      f: c.u64,
    });
    const w = new ByteWriter(64);
    rowBinaryEncoder(t)(w, { a: 7, b: '0xab', e: 'y', f: '18446744073709551615' });
    const expected = new ByteWriter(64);
    expected.u32(7);
    expected.ascii('0xab');
    expected.i8(2);
    expected.u64('18446744073709551615');
    expect(w.take()).toEqual(expected.take());
  });

  it('refuses a column name that is not a plain identifier', () => {
    expect(() => rowBinaryEncoder(defineTable('t', { 'a; b': c.u32 }))).toThrow(/plain column name/);
  });
});
