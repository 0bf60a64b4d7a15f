/**
 * `pmdata status` against a running status page (test/support/ops-status.ts, listening on loopback): it
 * prints what /admin/status.json says as aligned tables (or the JSON itself with --json) and exits 0 when
 * all is ok, 1 with a stalled source or a refused key, 75 when the API cannot be reached (also as the real
 * command line). The page is mounted in the admin scope: the command sends the configured key.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusDocument } from '../api/routes/admin/status.ts';
import { writeCheckpoint } from '../ingest/rest/store.ts';
import { runStatus } from '../jobs/commands/status.ts';
import { useChain } from './support/chain.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { type StatusWorld, statusWorld } from './support/ops-status.ts';

const ADMIN_KEY = 'cli-status-admin-key-0123456789abcdef';

describe('pmdata status', () => {
  const chain = useChain();
  let deps: TestDeps;
  let world: StatusWorld;
  let url: string;

  beforeAll(async () => {
    deps = await createTestDeps('cli_status', { env: { PMDATA_ADMIN_KEY: ADMIN_KEY } });
    world = await statusWorld(deps, chain.current, {
      sources: ['alpha-chain', 'beta', 'gamma'],
      polled: ['beta'],
      behind: 2,
      quarantine: true,
      admin: true,
    });
    url = await world.app.listen({ host: '127.0.0.1', port: 0 });
  }, 60_000);
  afterAll(async () => {
    await world?.close();
    await deps?.close();
  });

  async function status(args: { json?: boolean; url?: string } = {}) {
    const lines: string[] = [];
    const code = await runStatus({
      config: deps.config,
      io: { out: (l) => lines.push(l), isTTY: false },
      url: args.url ?? url,
      json: args.json,
      timeoutMs: 3000,
    });
    return { code, lines };
  }
  const statusJson = async () =>
    (await (
      await fetch(`${url}/admin/status.json`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })
    ).json()) as StatusDocument;

  it('prints status.json as aligned tables and exits 1 with a stalled source', async () => {
    const { code, lines } = await status();
    const doc = await statusJson();
    expect(code).toBe(1);
    expect(lines.at(-1)).toBe('Needs attention: gamma stalled');
    expect(lines[0]).toBe(`Snapshot of ${doc.generated_at}`);
    for (const s of doc.sources) {
      const line = lines.find((l) => l.startsWith(`${s.source} `));
      expect(line, s.source).toBeDefined();
      const cells = line!.split(/\s{2,}/);
      expect(cells.slice(0, 3)).toEqual([s.source, s.kind, s.state]);
      expect(cells.slice(3)).toEqual(
        [s.head, s.checkpoint, s.lag_blocks, s.lag_seconds].map((v) => (v === null ? '-' : String(v))),
      );
    }
    const header = lines.find((l) => l.startsWith('source '))!;
    const row = lines.find((l) => l.startsWith('alpha-chain '))!;
    // Aligned: each column's values end where its header ends (numbers right-aligned).
    expect(row.indexOf(String(doc.sources[0]!.head)) + String(doc.sources[0]!.head).length).toBe(
      header.indexOf('head') + 'head'.length,
    );
    for (const q of doc.quarantine) {
      expect(lines.some((l) => l.split(/\s+/).join(' ') === `${q.source} ${q.kind} ${q.records}`)).toBe(true);
    }
    for (const p of doc.products) expect(lines.some((l) => l.startsWith(`${p.product} `))).toBe(true);
    expect(lines.some((l) => l.startsWith('worker ') && l.includes(String(process.pid)))).toBe(true);
  });

  it('exits 0 once every source is ok, and --json prints status.json', async () => {
    await writeCheckpoint(deps.clickhouse, 'gamma', 'markets', 1);
    await world.resample();
    const { code, lines } = await status();
    expect(lines.at(-1)).toBe('All ok');
    expect(code).toBe(0);
    const json = await status({ json: true });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.lines.join('\n'))).toEqual(await statusJson());
  });

  it('--watch prints again every interval until stopped, and exits with the last look', async () => {
    const lines: string[] = [];
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 450);
    const code = await runStatus({
      config: deps.config,
      io: { out: (l) => lines.push(l), isTTY: false },
      url,
      watch: true,
      watchMs: 200,
      signal: ac.signal,
    });
    expect(code).toBe(0);
    expect(lines.filter((l) => l.startsWith('Snapshot of ')).length).toBeGreaterThanOrEqual(2);
    expect(lines.filter((l) => l === 'All ok').length).toBe(
      lines.filter((l) => l.startsWith('Snapshot of ')).length,
    );
  });

  it('exits 1 when the API refuses the admin key', async () => {
    const lines: string[] = [];
    const code = await runStatus({
      config: { ...deps.config, adminKey: 'a-wrong-admin-key-0123456789abcdefgh' },
      io: { out: (l) => lines.push(l), isTTY: false },
      url,
    });
    expect(code).toBe(1);
    expect(lines).toEqual([
      `The API at ${url} refused the admin key (401): set PMDATA_ADMIN_KEY to the API's key`,
    ]);
  });

  it('exits 75 when the API cannot be reached, also from the command line', async () => {
    const down = 'http://127.0.0.1:9';
    const { code, lines } = await status({ url: down });
    expect(code).toBe(75);
    expect(lines.join('\n')).toContain(`Cannot reach the API at ${down}`);
    const r = spawnSync(
      process.execPath,
      [path.resolve(import.meta.dirname, '../bin/pmdata.js'), 'status', '--url', down],
      {
        env: { ...process.env, PMDATA_DATA_DIR: deps.config.dataDir, LOG_LEVEL: 'silent' },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(r.status, r.stderr).toBe(75);
    expect(r.stdout).toContain('Cannot reach the API');
  }, 90_000);
});
