import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { createClickHouse } from '../core/clickhouse/index.ts';
import { loadConfig } from '../core/config.ts';
import { createLogger } from '../core/logger.ts';
import { loadMigrations } from '../core/migrations.ts';

const root = path.resolve(import.meta.dirname, '..');

function migrate(dataDir: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, 'bin/pmdata.js'), 'migrate'], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'silent', PMDATA_DATA_DIR: dataDir },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += String(d);
    });
    child.stderr.on('data', (d) => {
      err += String(d);
    });
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

describe('pmdata migrate', () => {
  it('two concurrent runs both succeed, a later run changes nothing, and each version is recorded once', async () => {
    const dataDir = path.join(inject('tmpRoot'), `migrate-${process.pid}`);
    const [a, b] = await Promise.all([migrate(dataDir), migrate(dataDir)]);
    expect([a.code, b.code], a.err + b.err).toEqual([0, 0]);
    const outputs = [a.out, b.out].sort();
    expect(outputs[0]).toMatch(/^Applied \d+ migration/);
    expect(outputs[1]).toMatch(/^Nothing to apply/);

    const again = await migrate(dataDir);
    expect(again.code).toBe(0);
    expect(again.out).toMatch(/^Nothing to apply \(\d+ migration\(s\) already applied\)/);

    const config = loadConfig({ PMDATA_DATA_DIR: dataDir });
    const ch = await createClickHouse({ config, log: createLogger({ level: 'silent' }) });
    const rows = await ch.query<{ version: number; n: string }>(
      'test.ledger',
      'SELECT version, count() AS n FROM schema_migrations GROUP BY version ORDER BY version',
    );
    expect(rows.map((r) => Number(r.version))).toEqual(loadMigrations().map((m) => m.version));
    expect(rows.every((r) => r.n === '1')).toBe(true);
  }, 120_000);
});
