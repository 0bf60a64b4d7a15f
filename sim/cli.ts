/**
 * `pmdata sim`: starts the simulated world (anvil chain with its history + every venue replica), prints
 * the RPC and replica URLs, keeps trading live when asked, and runs until SIGINT/SIGTERM, then stops
 * everything it started. The CLI entry (jobs/cli.ts) calls `runSimCommand(argv)` with the arguments after
 * `sim`; it resolves with the process exit code.
 */
import { parseArgs } from 'node:util';
import { createLogger } from '../core/logger.ts';
import { startSim } from './index.ts';
import type { CatalogSize } from './world/catalog.ts';

export const SIM_HELP = `Usage: pmdata sim [options]

Starts the simulated world: a local chain (anvil, chain id 137) with alpha's contracts at their Polygon
addresses and the world's history, plus HTTP replicas of every venue's upstream API. Prints their URLs
and runs until interrupted (Ctrl-C).

Options:
  --seed <text>        world seed; the same seed gives the same world (default: demo)
  --size <size>        small | medium | large (default: small)
  --live               keep trading after the history, one block per --block-time (default: off, the
                       history only)
  --rate <n>           live matches per second (default: 5)
  --block-time <s>     live block interval in seconds (default: 1)
  --port <n>           chain RPC port (default: 8545, the default of ALPHA_RPC_URLS; 0 = any free port)
  -h, --help           show this help
`;

const SIZES: CatalogSize[] = ['small', 'medium', 'large'];

export async function runSimCommand(argv: string[]): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        seed: { type: 'string', default: 'demo' },
        size: { type: 'string', default: 'small' },
        live: { type: 'boolean', default: false },
        rate: { type: 'string', default: '5' },
        'block-time': { type: 'string', default: '1' },
        port: { type: 'string', default: '8545' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${SIM_HELP}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(SIM_HELP);
    return 0;
  }
  const size = values.size as CatalogSize;
  const rate = Number(values.rate);
  const blockTime = Number(values['block-time']);
  const port = Number(values.port);
  const problems: string[] = [];
  if (!SIZES.includes(size)) problems.push(`--size must be one of ${SIZES.join(', ')}, got ${values.size}`);
  if (!(rate > 0)) problems.push(`--rate must be a positive number, got ${values.rate}`);
  if (!(blockTime >= 1) || !Number.isInteger(blockTime)) {
    problems.push(`--block-time must be a whole number of seconds >= 1, got ${values['block-time']}`);
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    problems.push(`--port must be 0..65535, got ${values.port}`);
  if (problems.length > 0) {
    process.stderr.write(`${problems.join('\n')}\n\n${SIM_HELP}`);
    return 2;
  }

  const log = createLogger({ level: 'info', name: 'sim' });
  const t0 = performance.now();
  const sim = await startSim({
    seed: String(values.seed),
    size,
    live: Boolean(values.live),
    ratePerSecond: rate,
    blockTime,
    anvil: port === 0 ? {} : { port },
    log,
  });
  const seconds = ((performance.now() - t0) / 1000).toFixed(1);
  const lines = [
    `Simulated world "${values.seed}" (${size}) is up in ${seconds} s`,
    `  chain RPC (chain id ${sim.chainId}): ${sim.rpcUrl}`,
    `  blocks 0..${sim.historyHead}, ${sim.stats.matches} matches, ${sim.stats.fills} fills in the history`,
    `  V1 -> V2 cutover at ${new Date(sim.cutoverTime * 1000).toISOString()}`,
  ];
  for (const [name, url] of Object.entries(sim.replicaUrls ?? {})) lines.push(`  ${name.padEnd(15)} ${url}`);
  lines.push(values.live ? `Trading live at ${rate} matches/s. Ctrl-C stops.` : 'Ctrl-C stops.');
  process.stdout.write(`${lines.join('\n')}\n`);

  await new Promise<void>((resolve) => {
    const onSignal = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  await sim.stop();
  process.stdout.write('Stopped the simulated world.\n');
  return 0;
}
