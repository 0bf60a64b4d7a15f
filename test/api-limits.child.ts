/**
 * A second API process for test/api-limits.test.ts: its own embedded engine (data dir from the
 * environment), the test run's Redis with the test file's key prefix, listening on a free loopback port.
 * Prints `LISTENING <url>` and serves until SIGTERM.
 */
import { startServer } from '../api/server.ts';
import { createClickHouse } from '../core/clickhouse/index.ts';
import { loadConfig } from '../core/config.ts';
import { createLogger } from '../core/logger.ts';
import { migrate } from '../core/migrations.ts';
import { createRedis } from '../core/redis.ts';

const config = loadConfig({
  PMDATA_DATA_DIR: process.env.CHILD_DATA_DIR!,
  REDIS_URL: process.env.CHILD_REDIS_URL!,
  PMDATA_SECRET: process.env.CHILD_SECRET!,
  CLICKHOUSE_DATABASE: 'child',
  PORT: '0',
  LOG_LEVEL: 'silent',
});
const log = createLogger({ level: config.logLevel });
const clickhouse = await createClickHouse({ config, log });
await migrate({ clickhouse, log });
const redis = createRedis(config.redisUrl, { keyPrefix: process.env.CHILD_REDIS_PREFIX! });
const server = await startServer({ config, log, clickhouse, redis });
process.stdout.write(`LISTENING ${server.url}\n`);
process.once('SIGTERM', async () => {
  await server.close();
  redis.disconnect();
  process.exit(0);
});
