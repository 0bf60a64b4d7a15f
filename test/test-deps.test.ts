/**
 * `npm test`'s first step (bin/test-deps.js, test/support/test-deps.ts): which programs are missing, and
 * what it does about them — apt on Debian as root (prometheus without its recommends), a message saying
 * how to get them elsewhere. Programs are looked up for real; apt itself is not run here.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findCommand, planInstall, type SystemProgram, TEST_PROGRAMS } from '../core/system-packages.ts';
import { ensureTestPrograms } from './support/test-deps.ts';

const root = path.resolve(import.meta.dirname, '..');
const absent: SystemProgram = {
  command: 'pmdata-no-such-program',
  package: 'pmdata-no-such-package',
  elsewhere: 'build it yourself',
};
const present: SystemProgram = { command: 'sh', package: 'dash', elsewhere: 'any shell' };

describe("npm test's programs", () => {
  it('are redis-server, chromium and promtool (from prometheus, without recommends)', () => {
    expect(TEST_PROGRAMS.map((p) => [p.command, p.package, p.noRecommends === true])).toEqual([
      ['redis-server', 'redis-server', false],
      ['chromium', 'chromium', false],
      ['promtool', 'prometheus', true],
    ]);
  });

  it('finds a program on PATH and not one that is nowhere', () => {
    expect(findCommand('sh')).toMatch(/\/sh$/);
    expect(findCommand(absent.command)).toBeUndefined();
  });

  it('plans nothing when none is missing, apt on Debian as root, a message otherwise', () => {
    expect(planInstall([], { debian: false, root: false })).toEqual({ action: 'none' });
    expect(planInstall(TEST_PROGRAMS, { debian: true, root: true })).toEqual({
      action: 'apt',
      packages: ['redis-server', 'chromium'],
      noRecommends: ['prometheus'],
    });
    const notRoot = planInstall(TEST_PROGRAMS, { debian: true, root: false });
    expect(notRoot.action).toBe('refuse');
    const message = (notRoot as { message: string }).message;
    expect(message).toContain('Missing: redis-server, chromium, promtool');
    expect(message).toContain('(here: not running as root)');
    expect(message).toContain(
      'promtool: Debian `apt-get install -y prometheus`; macOS: brew install prometheus',
    );
    const notDebian = planInstall([absent], { debian: false, root: true });
    expect((notDebian as { message: string }).message).toContain('(here: not a Debian system)');
  });

  it('says nothing and passes when all are there; says how to get a missing one and fails where apt is not used', () => {
    const lines: string[] = [];
    const out = (l: string) => lines.push(...l.split('\n'));
    expect(ensureTestPrograms({ programs: [present], host: { debian: false, root: false }, out })).toBe(0);
    expect(lines).toEqual([]);
    expect(
      ensureTestPrograms({ programs: [present, absent], host: { debian: true, root: false }, out }),
    ).toBe(1);
    expect(lines[0]).toBe(
      'npm test: Missing: pmdata-no-such-program. They are installed with apt only on Debian as root (here: not running as root). Install them:',
    );
    expect(lines[1]).toBe(
      '  pmdata-no-such-program: Debian `apt-get install -y pmdata-no-such-package`; build it yourself',
    );
  });

  it('is the first step of the test script, and CI runs the same command', () => {
    const pkg = JSON.parse(spawnSync('cat', [path.join(root, 'package.json')], { encoding: 'utf8' }).stdout);
    expect(pkg.scripts.test).toBe('node bin/test-deps.js && vitest run');
    const ci = spawnSync('cat', [path.join(root, '.ci/run')], { encoding: 'utf8' }).stdout;
    expect(ci).toContain('node bin/test-deps.js');
    expect(ci).not.toMatch(/apt-get install/);
  });
});
