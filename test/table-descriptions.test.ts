/**
 * Every table description (each export of schemas/tables/*.ts, a description or a record of them: a new
 * venue's or product's file is read without a line here) against the migrated database: a fresh database is migrated and `DESCRIBE TABLE` of each described
 * table must list exactly the described columns, in order, with the described types. A column added by
 * a migration but not to its description (or the reverse) fails here, so the row types, insert encoders
 * and read column lists that derive from descriptions cannot drift from the tables.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ByteWriter } from '../core/clickhouse/row-binary.ts';
import {
  c,
  defineTable,
  describeColumns,
  insertColumns,
  rowBinaryEncoder,
  type TableDescription,
} from '../core/clickhouse/table.ts';
import { ALPHA_CHAIN_TABLES } from '../schemas/tables/alpha-chain.ts';
import { VENUE_CONTRACTS } from '../schemas/venues/index.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

const isTable = (v: unknown): v is TableDescription =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as TableDescription).name === 'string' &&
  typeof (v as TableDescription).columns === 'object';

/** Every table described in schemas/tables/, by name. */
async function describedTables(): Promise<TableDescription[]> {
  const dir = path.resolve(import.meta.dirname, '../schemas/tables');
  const byName = new Map<string, TableDescription>();
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort()) {
    const mod: Record<string, unknown> = await import(path.join(dir, file));
    for (const v of Object.values(mod)) {
      const found = isTable(v)
        ? [v]
        : typeof v === 'object' && v !== null
          ? Object.values(v).filter(isTable)
          : [];
      for (const t of found) byName.set(t.name, t);
    }
  }
  return [...byName.values()];
}
const TABLES = await describedTables();

let deps: TestDeps;

beforeAll(async () => {
  deps = await createTestDeps('table_descriptions');
});
afterAll(async () => deps?.close());

describe('table descriptions', () => {
  it('reads every schemas/tables/ file', () => {
    expect(TABLES.length).toBeGreaterThan(40);
    expect(TABLES.map((t) => t.name)).toEqual(
      expect.arrayContaining(VENUE_CONTRACTS.flatMap((v) => Object.values(v.tables).map((t) => t.name))),
    );
  });

  for (const table of TABLES) {
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
