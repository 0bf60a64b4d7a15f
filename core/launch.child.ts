/**
 * Processes of core/launch.test.ts:
 *   launcher <exit code>   relaunches this file as `child` with a heap flag and an allocator setting
 *   child <exit code>      prints `READY <json>` (pid, process group, V8 heap limit, flags, environment), records
 *                          the SIGINT/SIGTERM it receives, prints `SIGNALS <json>` 300 ms after the
 *                          first and exits with <exit code>
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { attachToLauncher, relaunch } from './launch.ts';

const [role, code = '0'] = process.argv.slice(2);
if (role === 'launcher') {
  await relaunch(fileURLToPath(import.meta.url), ['child', code], {
    flags: ['--max-old-space-size=200'],
    env: { ...process.env, JE_MALLOC_CONF: 'dirty_decay_ms:1234' },
  });
} else {
  attachToLauncher();
  const received: string[] = [];
  const onSignal = (signal: NodeJS.Signals) => {
    received.push(signal);
    if (received.length === 1) {
      setTimeout(() => {
        process.stdout.write(`SIGNALS ${JSON.stringify(received)}\n`, () => process.exit(Number(code)));
      }, 300);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  setInterval(() => {}, 1000);
  process.stdout.write(
    `READY ${JSON.stringify({
      pid: process.pid,
      // Process group (field 5 of /proc/self/stat, after the parenthesised command name).
      pgid: Number(fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')[2]),
      heapLimitMb: v8.getHeapStatistics().heap_size_limit / 2 ** 20,
      execArgv: process.execArgv,
      je: process.env.JE_MALLOC_CONF,
      launched: process.env.PMDATA_LAUNCHED,
    })}\n`,
  );
}
