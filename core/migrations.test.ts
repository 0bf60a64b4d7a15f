import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDeps, type TestDeps } from '../test/support/deps.ts';
import { isIdempotent, loadMigrations, migrate, renderDdl, splitStatements } from './migrations.ts';

let deps: TestDeps;
beforeAll(async () => {
  deps = await createTestDeps('migrations', { migrate: false });
});
afterAll(async () => deps?.close());

describe('migrations', () => {
  it('second run applies nothing and leaves the ledger unchanged', async () => {
    const first = await migrate(deps);
    expect(first.applied.length).toBe(loadMigrations().length);
    const ledger = async () =>
      deps.clickhouse.query(
        'ledger',
        'SELECT version, checksum FROM schema_migrations FINAL ORDER BY version',
      );
    const before = await ledger();
    const second = await migrate(deps);
    expect(second.applied).toEqual([]);
    expect(second.skipped.length).toBe(first.applied.length);
    expect(await ledger()).toEqual(before);
  });

  it('concurrent runs converge on one schema with one record per version', async () => {
    await deps.clickhouse.command('reset', 'DROP TABLE IF EXISTS schema_migrations');
    await Promise.all([migrate(deps), migrate(deps), migrate(deps)]);
    const rows = await deps.clickhouse.query<{ version: number; n: string }>(
      'count',
      'SELECT version, count() AS n FROM schema_migrations FINAL GROUP BY version ORDER BY version',
    );
    expect(rows.map((r) => Number(r.version))).toEqual(loadMigrations().map((m) => m.version));
    expect(rows.every((r) => Number(r.n) === 1)).toBe(true);
  });

  it('refuses a recorded migration whose text changed', async () => {
    const migrations = loadMigrations();
    const changed = migrations.map((m, i) => (i === 0 ? { ...m, checksum: 'deadbeef' } : m));
    await expect(migrate({ ...deps, migrations: changed })).rejects.toThrow(/must not change/);
  });

  it('every statement in every migration file is idempotent', () => {
    for (const m of loadMigrations()) for (const s of m.statements) expect(isIdempotent(s), s).toBe(true);
    expect(isIdempotent('INSERT INTO x VALUES (1)')).toBe(false);
    expect(isIdempotent('CREATE TABLE x (a UInt8) ENGINE = Memory')).toBe(false);
  });

  it('renders replicated engines and ON CLUSTER from config, leaving the file as written', () => {
    const [stmt] = splitStatements(
      'CREATE TABLE IF NOT EXISTS fills (a UInt8, v UInt64) ENGINE = ReplacingMergeTree(v) ORDER BY a;\n',
    );
    expect(renderDdl(stmt!, {})).toBe(stmt);
    expect(renderDdl(stmt!, { cluster: 'main', replicated: true })).toBe(
      "CREATE TABLE IF NOT EXISTS fills ON CLUSTER main (a UInt8, v UInt64) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}', v) ORDER BY a",
    );
    expect(
      renderDdl('CREATE TABLE IF NOT EXISTS t (a UInt8) ENGINE = MergeTree ORDER BY a', { replicated: true }),
    ).toBe(
      "CREATE TABLE IF NOT EXISTS t (a UInt8) ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}') ORDER BY a",
    );
  });
});
