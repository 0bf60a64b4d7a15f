/**
 * `npm test`'s first step (bin/test-deps.js): the programs the tests run besides npm's packages
 * (core/system-packages.ts TEST_PROGRAMS), installed with apt on Debian as root when missing. Returns the
 * exit code: 0 when all are there, 1 (with a message saying how to get them) otherwise.
 */
import os from 'node:os';
import path from 'node:path';
import {
  aptInstall,
  findCommand,
  type Host,
  planInstall,
  type SystemProgram,
  TEST_PROGRAMS,
  thisHost,
} from '../../core/system-packages.ts';

export function ensureTestPrograms(
  opts: {
    programs?: readonly SystemProgram[];
    host?: Host;
    env?: NodeJS.ProcessEnv;
    out?: (line: string) => void;
    installLog?: string;
  } = {},
): number {
  const env = opts.env ?? process.env;
  const out = opts.out ?? ((l: string) => process.stderr.write(`${l}\n`));
  const programs = opts.programs ?? TEST_PROGRAMS;
  const found = (p: SystemProgram) =>
    p.command === 'chromium' && env.CHROMIUM_PATH ? env.CHROMIUM_PATH : findCommand(p.command, env);
  const missing = programs.filter((p) => !found(p));
  const plan = planInstall(missing, opts.host ?? thisHost());
  if (plan.action === 'none') return 0;
  if (plan.action === 'refuse') {
    out(`npm test: ${plan.message}`);
    out('(`npx vitest run <files>` runs the tests that need none of them.)');
    return 1;
  }
  const installLog = opts.installLog ?? path.join(os.tmpdir(), 'pmdata-test-deps-install.log');
  const all = [...plan.packages, ...plan.noRecommends];
  out(`npm test: installing ${all.join(', ')} with apt (the tests need them; output in ${installLog})...`);
  const failed = aptInstall(plan, installLog);
  const still = missing.filter((p) => !found(p)).map((p) => p.command);
  if (failed || still.length > 0) {
    out(`npm test: could not install ${all.join(', ')}: ${failed || `still missing: ${still.join(', ')}`}`);
    return 1;
  }
  out(`npm test: installed ${all.join(', ')}`);
  return 0;
}
