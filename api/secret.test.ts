import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';
import { resolveApiSecret } from './secret.ts';

describe('resolveApiSecret', () => {
  it('generates the embedded secret once and keeps it under the data dir', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pmdata-secret-'));
    try {
      const config = loadConfig({ PMDATA_DATA_DIR: dir });
      const first = resolveApiSecret(config);
      expect(first.length).toBeGreaterThanOrEqual(32);
      expect(resolveApiSecret(config)).toBe(first);
      expect(fs.statSync(path.join(dir, 'api-secret')).mode & 0o777).toBe(0o600);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('uses PMDATA_SECRET when set, in any mode', () => {
    const secret = 's'.repeat(40);
    expect(resolveApiSecret(loadConfig({ PMDATA_SECRET: secret, CLICKHOUSE_URL: 'http://ch:8123' }))).toBe(
      secret,
    );
  });

  it('refuses to start a cluster-mode API without PMDATA_SECRET, naming the variable', () => {
    expect(() => resolveApiSecret(loadConfig({ CLICKHOUSE_URL: 'http://ch:8123' }))).toThrow(ConfigError);
    expect(() => resolveApiSecret(loadConfig({ CLICKHOUSE_URL: 'http://ch:8123' }))).toThrow(/PMDATA_SECRET/);
  });

  it('rejects a PMDATA_SECRET shorter than 32 characters at config load', () => {
    expect(() => loadConfig({ PMDATA_SECRET: 'short' })).toThrow(/PMDATA_SECRET/);
  });
});
