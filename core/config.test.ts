import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { alphaConfig } from '../ingest/venues/alpha/config.ts';
import { CONFIG_SECTIONS } from '../jobs/config.ts';
import { defineConfigSection, integer, loadConfig, VARIABLES } from './config.ts';
import { ConfigError } from './errors.ts';

describe('config', () => {
  it('defaults give the embedded mode', () => {
    const c = loadConfig({}, CONFIG_SECTIONS);
    expect(c.embedded).toBe(true);
    expect(c.port).toBe(8080);
    expect(path.isAbsolute(c.dataDir)).toBe(true);
    expect(alphaConfig.of(c).rpcUrls).toEqual(['http://127.0.0.1:8545']);
    expect(alphaConfig.of(c).startBlock).toBe(4023686);
  });

  it('a bad PORT fails naming PORT and the accepted form', () => {
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(/PORT: got "abc", expected an integer 0\.\.65535/);
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/PORT/);
  });

  it("reports every bad variable at once, core's and a venue section's", () => {
    try {
      loadConfig(
        {
          PORT: 'x',
          LOG_LEVEL: 'loud',
          CLICKHOUSE_URL: 'ftp://h',
          REMOVED_VENUES: 'alpha,omega',
          ALPHA_CHAIN_ID: '0',
          ALPHA_RPC_URLS: 'http://a:8545,not a url',
        },
        CONFIG_SECTIONS,
      );
      expect.unreachable();
    } catch (err) {
      expect((err as ConfigError).problems.map((p) => p.variable).sort()).toEqual([
        'ALPHA_CHAIN_ID',
        'ALPHA_RPC_URLS',
        'CLICKHOUSE_URL',
        'LOG_LEVEL',
        'PORT',
        'REMOVED_VENUES',
      ]);
    }
  });

  it("a venue's section is validated at start and read back typed; without it, reading it says so", () => {
    const env = { ALPHA_START_BLOCK: '12', ALPHA_RPC_URLS: 'http://a:1, ws://b:2' };
    const alpha = alphaConfig.of(loadConfig(env, CONFIG_SECTIONS));
    expect(alpha.startBlock).toBe(12);
    expect(alpha.rpcUrls).toEqual(['http://a:1', 'ws://b:2']);
    expect(() => loadConfig({ ALPHA_POSITION_IDS: 'other' }, CONFIG_SECTIONS)).toThrow(
      /ALPHA_POSITION_IDS: got "other", expected ctf\|simplified/,
    );
    expect(() => alphaConfig.of(loadConfig(env))).toThrow(/without the "alpha" section/);
  });

  it('a variable declared twice fails at load, naming it', () => {
    const clash = defineConfigSection('x', {
      port: { env: 'PORT', default: '1', form: 'an integer', parse: integer(0, 9) },
    });
    expect(() => loadConfig({}, [clash])).toThrow(/PORT is declared twice \(section x\)/);
  });

  it('a CLICKHOUSE_URL selects the server mode', () => {
    const c = loadConfig({ CLICKHOUSE_URL: 'http://ch:8123', REMOVED_VENUES: 'zeta, eta' });
    expect(c.embedded).toBe(false);
    expect(c.removedVenues).toEqual(['zeta', 'eta']);
  });

  it("every variable, core's and each venue section's, is documented in docs/configuration.md, and nothing else is", () => {
    const doc = fs.readFileSync(path.resolve(import.meta.dirname, '../docs/configuration.md'), 'utf8');
    const documented = [...doc.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
    const declared = [VARIABLES, ...CONFIG_SECTIONS.map((s) => s.variables)].flatMap((specs) =>
      Object.values(specs).map((v) => v.env),
    );
    expect(declared).toContain('ALPHA_RPC_URLS');
    expect([...documented].sort()).toEqual([...declared].sort());
  });
});
