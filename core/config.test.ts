import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, VARIABLES } from './config.ts';
import { ConfigError } from './errors.ts';

describe('config', () => {
  it('defaults give the embedded mode', () => {
    const c = loadConfig({});
    expect(c.embedded).toBe(true);
    expect(c.port).toBe(8080);
    expect(path.isAbsolute(c.dataDir)).toBe(true);
    expect(c.alphaRpcUrls).toEqual(['http://127.0.0.1:8545']);
  });

  it('a bad PORT fails naming PORT and the accepted form', () => {
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(/PORT: got "abc", expected an integer 0\.\.65535/);
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/PORT/);
  });

  it('reports every bad variable at once', () => {
    try {
      loadConfig({ PORT: 'x', LOG_LEVEL: 'loud', CLICKHOUSE_URL: 'ftp://h', REMOVED_VENUES: 'alpha,omega' });
      expect.unreachable();
    } catch (err) {
      expect((err as ConfigError).problems.map((p) => p.variable).sort()).toEqual([
        'CLICKHOUSE_URL',
        'LOG_LEVEL',
        'PORT',
        'REMOVED_VENUES',
      ]);
    }
  });

  it('a CLICKHOUSE_URL selects the server mode', () => {
    const c = loadConfig({ CLICKHOUSE_URL: 'http://ch:8123', REMOVED_VENUES: 'zeta, eta' });
    expect(c.embedded).toBe(false);
    expect(c.removedVenues).toEqual(['zeta', 'eta']);
  });

  it('every variable is documented in docs/configuration.md, and nothing else is', () => {
    const doc = fs.readFileSync(path.resolve(import.meta.dirname, '../docs/configuration.md'), 'utf8');
    const documented = [...doc.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
    const declared = Object.values(VARIABLES).map((v) => v.env);
    expect([...documented].sort()).toEqual([...declared].sort());
  });
});
