import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { freePort } from '../core/net.ts';

const root = path.resolve(import.meta.dirname, '..');

function pmdata(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [path.join(root, 'bin/pmdata.js'), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('pmdata doctor and CLI usage', () => {
  it('doctor prints versions, flags an unreachable RPC as a warning, and passes when required checks pass', async () => {
    const rpcPort = await freePort();
    const r = pmdata(['doctor'], {
      PMDATA_DATA_DIR: path.join(inject('tmpRoot'), `doctor-${process.pid}`),
      REDIS_URL: inject('redisUrl'),
      ALPHA_RPC_URLS: `http://127.0.0.1:${rpcPort}`,
    });
    expect(r.out).toMatch(/^ok\s+clickhouse\s+embedded chDB .* version \d+\.\d+/m);
    expect(r.out).toMatch(/^ok\s+redis\s+redis:\/\/127\.0\.0\.1:\d+, version \d+\.\d+/m);
    expect(r.out).toMatch(new RegExp(`^WARN\\s+rpc http://127\\.0\\.0\\.1:${rpcPort}\\s+not reachable`, 'm'));
    expect(r.code).toBe(0);
  });

  it('a bad config value fails at start naming the variable', () => {
    const up = pmdata(['up'], { PORT: 'abc' });
    expect(up.code).toBe(1);
    expect(up.err).toMatch(/PORT: got "abc", expected an integer 0\.\.65535/);
    const doctor = pmdata(['doctor'], { PORT: 'abc', ALPHA_CHAIN_ID: '0' });
    expect(doctor.code).toBe(1);
    expect(doctor.out).toMatch(/^FAIL\s+config\s+PORT: got "abc"/m);
    // A venue's own variables (declared in its config section) are validated at the same start.
    expect(doctor.out).toMatch(/^FAIL\s+config\s.*ALPHA_CHAIN_ID: got "0", expected an integer 1\.\./m);
    const venue = pmdata(['up'], { ALPHA_START_BLOCK: 'soon' });
    expect(venue.code).toBe(1);
    expect(venue.err).toMatch(/ALPHA_START_BLOCK: got "soon", expected an integer >= 0/);
  });

  it('every command answers --help, and an unknown command exits 2 with the command list', () => {
    for (const cmd of ['up', 'api', 'worker', 'scheduler', 'migrate', 'doctor']) {
      const r = pmdata([cmd, '--help'], {});
      expect(r.code, cmd).toBe(0);
      expect(r.out).toMatch(new RegExp(`^pmdata ${cmd} — `));
    }
    // Commands that parse their own arguments answer --help without opening any service.
    const dataDir = path.join(inject('tmpRoot'), `help-${process.pid}`);
    for (const cmd of ['backfill', 'follow', 'keys', 'sim']) {
      const r = pmdata([cmd, '--help'], { PMDATA_DATA_DIR: dataDir });
      expect(r.code, cmd).toBe(0);
      expect(r.out).toMatch(new RegExp(`pmdata ${cmd}`));
    }
    expect(fs.existsSync(dataDir)).toBe(false);
    const bad = pmdata(['nope'], {});
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/unknown command "nope"[\s\S]*Commands:/);
  });
});
