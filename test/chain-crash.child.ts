/**
 * Child process of test/chain-crash.test.ts: one pmdata process with its own embedded engine. Modes:
 *   backfill <from> <to> [times]   runs `pmdata backfill alpha` `times` times (progress on stderr), and
 *                                  after each run prints every alpha table as one `DUMP <json>` line
 * Configuration comes from the environment like the real CLI.
 */
import { createClickHouse } from '../core/clickhouse/index.ts';
import { loadConfig } from '../core/config.ts';
import { createLogger } from '../core/logger.ts';
import { migrate } from '../core/migrations.ts';
import { createRedis } from '../core/redis.ts';
import { EVENT_TABLES, NATURAL_ORDER } from '../ingest/venues/alpha/chain/rows.ts';
import { runBackfillCommand } from '../jobs/commands/backfill.ts';
import { CONFIG_SECTIONS } from '../jobs/config.ts';

const [mode, from, to, times] = process.argv.slice(2);
const config = loadConfig(process.env, CONFIG_SECTIONS);
const log = createLogger({ level: config.logLevel });
const clickhouse = await createClickHouse({ config, log });
await migrate({ clickhouse, log });
const redis = createRedis(config.redisUrl);
const deps = { config, log, clickhouse, redis };

async function dump(): Promise<string> {
  const out: Record<string, unknown[]> = {};
  for (const t of [...EVENT_TABLES, 'alpha_blocks']) {
    const order = NATURAL_ORDER[t as keyof typeof NATURAL_ORDER];
    out[t] = await clickhouse.query(`dump.${t}`, `SELECT * FROM ${t} ORDER BY ${order}`);
  }
  // A resumed range re-quarantines the malformed logs its killed attempt had already written above the
  // checkpoint (quarantine rows carry no block number to delete by); the table's key (source, kind,
  // record_id) collapses them, so readers count with FINAL.
  out.quarantine = await clickhouse.query(
    'dump.quarantine',
    'SELECT source, kind, record_id, reason, payload FROM quarantine FINAL ORDER BY record_id',
  );
  return JSON.stringify(out);
}

if (mode === 'backfill') {
  let code = 0;
  for (let i = 0; i < Number(times ?? 1) && code === 0; i++) {
    code = await runBackfillCommand(['alpha', '--from-block', from!, '--to-block', to!], deps, {
      queuePrefix: process.env.TEST_QUEUE_PREFIX,
      progressEveryMs: 20,
      lockDurationMs: 1500,
      io: {
        out: (l) => process.stdout.write(`${l}\n`),
        progress: (l) => process.stderr.write(`${l}\n`),
        isTTY: false,
      },
    });
    // Wait for the pipe to take the whole dump: process.exit does not flush piped stdout.
    const line = `DUMP ${await dump()}\n`;
    if (code === 0) await new Promise((resolve) => process.stdout.write(line, resolve));
  }
  redis.disconnect();
  process.exit(code);
}
