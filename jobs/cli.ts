/**
 * The `pmdata` command line: the dispatcher. Each command has `--help` and lives in jobs/commands/:
 *   up, api, worker, scheduler, stream,   the process roles (commands/roles.ts)
 *   migrate
 *   backfill, follow                      alpha's chain ingestion (commands/backfill.ts, follow.ts)
 *   analytics                             recompute market analytics (commands/analytics.ts)
 *   recompute <product|all>               recompute analytics products (commands/recompute.ts)
 *   demo, keys, doctor                    commands/demo.ts, keys.ts, doctor.ts
 *   tail                                  a stream client printing a channel's events (commands/tail.ts)
 *   sim                                   the simulated world (sim/cli.ts)
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { Deps } from '../core/deps.ts';
import { PermanentError } from '../core/errors.ts';
import {
  attachToLauncher,
  INGESTION_NODE_FLAGS,
  ingestionEnv,
  needsRelaunch,
  relaunch,
} from '../core/launch.ts';
import { LOG_FORMATS } from '../core/logger.ts';
import { printLines } from './commands/io.ts';

type OptionSpec = NonNullable<ParseArgsConfig['options']>[string] & { description?: string };

interface Command {
  summary: string;
  usage: string;
  options?: Record<string, OptionSpec>;
  /** The command parses its own arguments; its `--help` text is `help()`'s. */
  passthrough?: boolean;
  /** A passthrough command's option help (usage and options), loaded without opening services. */
  help?: () => Promise<string>;
  /**
   * The command's process ingests: it is started again with the ingestion memory settings
   * (core/launch.ts) unless the process already has its own V8 heap flags.
   */
  ingests?: boolean;
  run(args: {
    values: Record<string, unknown>;
    positionals: string[];
    argv: string[];
  }): Promise<number | undefined>;
}

// Each command's module loads only when the command runs, so `--help` and one-shot commands start fast;
// so does the runtime (jobs/runtime.ts), whose configuration sections come from the list of venues and
// with it every venue's definition and jobs.

/** Ends the process for an error of a command (loads the runtime's error rules on the way out). */
async function exitWithError(err: unknown): Promise<never> {
  return (await import('./runtime.ts')).exitWithError(err);
}

/** Runs an ingestion command on a runtime of its own (services opened, migrations applied). */
async function withRuntime(name: string, run: (deps: Deps) => Promise<number>): Promise<number> {
  const { openRuntime } = await import('./runtime.ts');
  const runtime = await openRuntime({ name });
  try {
    return await run(runtime.deps);
  } finally {
    await runtime.close();
  }
}

export const COMMANDS: Record<string, Command> = {
  up: {
    summary:
      'Run everything in one process on the embedded default (migrate, Redis, workers, schedulers, API)',
    usage: 'pmdata up',
    async run() {
      return (await import('./commands/roles.ts')).runUp();
    },
  },
  api: {
    summary: 'Run the HTTP API role',
    usage: 'pmdata api',
    async run() {
      return (await import('./commands/roles.ts')).runApiRole();
    },
  },
  stream: {
    summary: 'Run the streaming service role (WebSocket /v1/<key> on STREAM_PORT)',
    usage: 'pmdata stream',
    async run() {
      return (await import('./commands/roles.ts')).runStreamRole();
    },
  },
  worker: {
    summary: 'Run the job worker role (processes every queue)',
    usage: 'pmdata worker',
    async run() {
      return (await import('./commands/roles.ts')).runWorkerRole();
    },
  },
  scheduler: {
    summary: 'Run the scheduler role (applies recurring job schedules)',
    usage: 'pmdata scheduler',
    async run() {
      return (await import('./commands/roles.ts')).runSchedulerRole();
    },
  },
  migrate: {
    summary: 'Apply ClickHouse migrations (safe to run twice, or twice at once)',
    usage: 'pmdata migrate',
    async run() {
      return (await import('./commands/roles.ts')).runMigrate();
    },
  },
  demo: {
    summary: 'The simulated world plus the full stack reading from it, with example requests',
    usage: 'pmdata demo [--seed S] [--size small|medium|large] [--rate N]',
    options: {
      seed: { type: 'string', default: 'demo', description: 'world seed (same seed, same world)' },
      size: { type: 'string', default: 'small', description: 'world size: small, medium or large' },
      rate: { type: 'string', default: '2', description: 'live trading rate, matches per second' },
    },
    async run({ values }) {
      const size = String(values.size);
      if (!['small', 'medium', 'large'].includes(size)) {
        throw new PermanentError(`--size: got "${size}", expected small, medium or large`);
      }
      const rate = Number(values.rate);
      if (!Number.isFinite(rate) || rate < 0)
        throw new PermanentError(`--rate: got "${values.rate}", expected a number ≥ 0`);
      const { runDemo } = await import('./commands/demo.ts');
      return runDemo({ seed: String(values.seed), size: size as 'small', rate });
    },
  },
  sim: {
    summary: "Start the simulated world: a local chain with alpha's contracts and every venue's API replica",
    usage: 'pmdata sim [--seed S] [--size small|medium|large] [--live] [--rate N]',
    passthrough: true,
    help: async () => (await import('../sim/cli.ts')).SIM_HELP,
    async run({ argv }) {
      const { runSimCommand } = await import('../sim/cli.ts');
      return runSimCommand(argv);
    },
  },
  backfill: {
    summary:
      'Backfill a source over a block or date range (pmdata backfill alpha --from-block N --to-block M)',
    usage:
      'pmdata backfill alpha --from-block <N|YYYY-MM-DD> --to-block <M|YYYY-MM-DD> [--quiet | --json] [--progress-interval S]',
    passthrough: true,
    ingests: true,
    help: async () => (await import('./commands/backfill.ts')).BACKFILL_USAGE,
    async run({ argv }) {
      const { runBackfillCommand } = await import('./commands/backfill.ts');
      return withRuntime('backfill', (deps) => runBackfillCommand(argv, deps));
    },
  },
  follow: {
    summary: 'Follow a source live, handling reorgs, until stopped (pmdata follow alpha)',
    usage: 'pmdata follow alpha',
    passthrough: true,
    ingests: true,
    help: async () => (await import('./commands/follow.ts')).FOLLOW_USAGE,
    async run({ argv }) {
      const { runFollowCommand } = await import('./commands/follow.ts');
      return withRuntime('follow', (deps) => runFollowCommand(argv, deps));
    },
  },
  analytics: {
    summary:
      'Recompute market analytics from the chain tables (pmdata analytics recompute alpha [--from-block N])',
    usage: 'pmdata analytics recompute alpha [--from-block N]',
    passthrough: true,
    help: async () => (await import('./commands/analytics.ts')).ANALYTICS_USAGE,
    async run({ argv }) {
      const { runAnalyticsCommand } = await import('./commands/analytics.ts');
      return withRuntime('analytics', (deps) => runAnalyticsCommand(argv, deps));
    },
  },
  recompute: {
    summary:
      'Recompute analytics products to now, with progress (pmdata recompute <product|all> [--from DATE|BLOCK])',
    usage: 'pmdata recompute <product|all> [--from DATE|BLOCK] [--quiet | --json] [--progress-interval S]',
    passthrough: true,
    help: async () => (await import('./commands/recompute.ts')).RECOMPUTE_USAGE,
    async run({ argv }) {
      const { runRecomputeCommand } = await import('./commands/recompute.ts');
      return withRuntime('recompute', (deps) => runRecomputeCommand(argv, deps));
    },
  },
  keys: {
    summary: 'Manage API keys: create, list, revoke, usage',
    usage: 'pmdata keys <create|list|revoke|usage> ...',
    passthrough: true,
    help: async () => (await import('./commands/keys.ts')).KEYS_USAGE,
    async run({ argv }) {
      const { runKeys } = await import('./commands/keys.ts');
      return runKeys(argv);
    },
  },
  tail: {
    summary: 'Print the events of a stream channel (a small WebSocket client)',
    usage:
      'pmdata tail <channel> --key <API key> [--filters JSON] [--url ws://127.0.0.1:8080] [--platform P] [--count N]',
    options: {
      key: { type: 'string', description: 'API key, Dev tier or higher (required)' },
      filters: { type: 'string', description: 'filters as JSON (default: the wildcard of the first key)' },
      url: { type: 'string', default: 'ws://127.0.0.1:8080', description: 'stream URL without /v1/<key>' },
      platform: {
        type: 'string',
        description: 'crypto_prices: the price-feed provider (default: chainlink)',
      },
      count: {
        type: 'string',
        description: 'stop after this many events (default: none, until interrupted)',
      },
    },
    async run({ values, positionals }) {
      const { runTail, TAIL_USAGE } = await import('./commands/tail.ts');
      const channel = positionals[0];
      if (!channel || typeof values.key !== 'string') throw new PermanentError(TAIL_USAGE);
      const count = values.count === undefined ? undefined : Number(values.count);
      if (count !== undefined && !(Number.isInteger(count) && count > 0)) {
        throw new PermanentError(`--count: got "${values.count}", expected a positive integer`);
      }
      return runTail({
        channel,
        key: values.key,
        url: String(values.url),
        filters: values.filters as string | undefined,
        platform: values.platform as string | undefined,
        count,
      });
    },
  },
  doctor: {
    summary: 'Check ClickHouse, Redis, RPC and upstream reachability; print versions and what is wrong',
    usage: 'pmdata doctor',
    async run() {
      const { runDoctor } = await import('./commands/doctor.ts');
      return runDoctor();
    },
  },
  status: {
    summary: 'Print the status page of a running API: sources, products, quarantine, queues, roles',
    usage: 'pmdata status [--url URL] [--json] [--watch]',
    options: {
      url: { type: 'string', description: 'API base URL (default: http://127.0.0.1:<PORT>)' },
      json: {
        type: 'boolean',
        default: false,
        description: 'print /admin/status.json as it came instead of tables',
      },
      watch: { type: 'boolean', default: false, description: 'print again every 10 s until interrupted' },
    },
    async run({ values }) {
      const { runStatus } = await import('./commands/status.ts');
      const { bootConfig } = await import('./runtime.ts');
      const { config } = bootConfig();
      const io = { out: (l: string) => process.stdout.write(`${l}\n`), isTTY: Boolean(process.stdout.isTTY) };
      return runStatus({
        config,
        io,
        url: values.url as string | undefined,
        json: values.json === true,
        watch: values.watch === true,
      });
    },
  },
};

function helpText(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((k) => k.length));
  return [
    'pmdata — prediction-market data platform',
    '',
    'Usage: pmdata <command> [options]',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    ...GLOBAL_OPTIONS_HELP,
    '',
    'Run `pmdata <command> --help` for a command. Configuration: environment variables, see docs/configuration.md.',
  ].join('\n');
}

/** The options every command takes, read before the command's own (jobs/cli.ts `main`). */
export const GLOBAL_OPTIONS_HELP = [
  'Options of every command:',
  `  --log-format <${LOG_FORMATS.join('|')}>  log lines on stderr: human lines, or one JSON object a line ` +
    '(default: auto = pretty on a terminal, JSON otherwise; env LOG_FORMAT)',
  '  --help, -h  this help (the help of a command: pmdata <command> --help)',
];

/** A default as help shows it: a flag's false is "off", true "on". */
const shownDefault = (v: unknown) => (v === false ? 'off' : v === true ? 'on' : String(v));

/**
 * What `pmdata <name> --help` prints: a command's own options (each with its default, or `required`),
 * then the options of every command. Loads the command's module only for its text (no service opened).
 */
export async function commandHelp(name: string): Promise<string> {
  const c = COMMANDS[name];
  if (!c) throw new Error(`no command ${name}`);
  if (c.help) return [(await c.help()).trimEnd(), '', ...GLOBAL_OPTIONS_HELP].join('\n');
  const entries = Object.entries(c.options ?? {}).map(([k, o]) => {
    const flag = `--${k}${o.type === 'string' ? ' <value>' : ''}`;
    const d = (o as { description?: string }).description ?? '';
    return [flag, o.default === undefined ? d : `${d} (default: ${shownDefault(o.default)})`] as const;
  });
  const width = Math.max(0, ...entries.map(([f]) => f.length));
  const opts = entries.map(([f, d]) => `  ${f.padEnd(width)}  ${d}`);
  return [
    `pmdata ${name} — ${c.summary}`,
    '',
    `Usage: ${c.usage}`,
    ...(opts.length ? ['', 'Options:', ...opts] : []),
    '',
    ...GLOBAL_OPTIONS_HELP,
  ].join('\n');
}

/**
 * Takes `--log-format <v>` (or `--log-format=<v>`) out of the arguments, wherever it stands, into
 * LOG_FORMAT for the configuration to read; a value outside auto|pretty|json is a usage error.
 */
export function takeLogFormat(argv: string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a !== '--log-format' && !a.startsWith('--log-format=')) {
      out.push(a);
      continue;
    }
    const v = a === '--log-format' ? argv[++i] : a.slice('--log-format='.length);
    if (!v || !(LOG_FORMATS as readonly string[]).includes(v)) {
      throw new PermanentError(
        `--log-format: got ${v === undefined ? 'no value' : `"${v}"`}, expected one of ${LOG_FORMATS.join(', ')}`,
      );
    }
    env.LOG_FORMAT = v;
  }
  return out;
}

export async function main(args: string[]): Promise<void> {
  attachToLauncher();
  let argv: string[];
  try {
    argv = takeLogFormat(args);
  } catch (err) {
    process.stderr.write(`pmdata: ${(err as Error).message}\n`);
    process.exit(2);
  }
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    printLines([helpText()]);
    return;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`pmdata: unknown command "${name}"\n\n${helpText()}\n`);
    process.exit(2);
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    // Help needs no services: it is the command's text.
    printLines([await commandHelp(name)]);
    return;
  }
  if (command.passthrough) {
    try {
      if (command.ingests && needsRelaunch() && process.argv[1]) {
        await relaunch(process.argv[1], argv, {
          flags: INGESTION_NODE_FLAGS,
          env: ingestionEnv(process.env),
        });
      }
      process.exit((await command.run({ values: {}, positionals: [], argv: rest })) ?? 0);
    } catch (err) {
      await exitWithError(err);
    }
  }
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: rest, options: command.options ?? {}, allowPositionals: true, strict: true });
  } catch (err) {
    process.stderr.write(`pmdata ${name}: ${(err as Error).message}\n\n${await commandHelp(name)}\n`);
    process.exit(2);
  }
  try {
    const code = await command.run({ ...parsed, argv: rest });
    process.exit(code ?? 0);
  } catch (err) {
    await exitWithError(err);
  }
}
