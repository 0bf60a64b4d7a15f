/**
 * A benchmark's private world: a temporary data dir, its own `redis-server` on a free port, the
 * configuration (response cache off, so every API request runs its queries), the embedded ClickHouse
 * migrated, and a Redis client. `close()` stops and removes everything; SIGINT or SIGTERM meanwhile
 * removes the dir and stops Redis, then exits 130.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ClickHouse, createClickHouse } from '../../core/clickhouse/index.ts';
import { type Config, loadConfig } from '../../core/config.ts';
import { createLogger, type Logger } from '../../core/logger.ts';
import { migrate } from '../../core/migrations.ts';
import { freePort } from '../../core/net.ts';
import { createRedis } from '../../core/redis.ts';
import { startRedisServer } from '../../core/redis-server.ts';
import { CONFIG_SECTIONS } from '../../jobs/config.ts';

export interface BenchWorld {
  dir: string;
  log: Logger;
  config: Config;
  clickhouse: ClickHouse;
  redis: ReturnType<typeof createRedis>;
  close(): Promise<void>;
}

/** The world of benchmark `name` (database `bench_<name>`). */
export async function openBenchWorld(name: string): Promise<BenchWorld> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `pmdata-bench-${name}-`));
  const log = createLogger({ level: 'warn', name: `bench-${name}` });
  const redisServer = await startRedisServer({
    port: await freePort(),
    dir: path.join(dir, 'redis'),
    log,
    persistent: false,
  });
  const config = loadConfig(
    {
      PMDATA_DATA_DIR: dir,
      CLICKHOUSE_DATABASE: `bench_${name.replace(/[^a-z0-9]/g, '_')}`,
      REDIS_URL: redisServer.url,
      LOG_LEVEL: 'warn',
      // Every API request runs its queries: no response cache.
      API_CACHE_BYTES: '0',
    },
    CONFIG_SECTIONS,
  );
  const interrupted = async () => {
    await redisServer.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  const clickhouse = await createClickHouse({ config, log });
  const redis = createRedis(config.redisUrl);
  await migrate({ clickhouse, log });
  return {
    dir,
    log,
    config,
    clickhouse,
    redis,
    async close() {
      process.removeListener('SIGINT', interrupted);
      process.removeListener('SIGTERM', interrupted);
      redis.disconnect();
      await clickhouse.close();
      await redisServer.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
