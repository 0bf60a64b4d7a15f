/**
 * Real services for a test file: a chDB engine of its own (one per test process) with a database
 * named after the file, or the server at CLICKHOUSE_URL when set; a Redis client on the run's private
 * redis-server with a key prefix of its own. Migrations applied.
 */
import path from 'node:path';
import { inject } from 'vitest';
import { type ClickHouse, createClickHouse } from '../../core/clickhouse/index.ts';
import { type Config, loadConfig } from '../../core/config.ts';
import type { Deps } from '../../core/deps.ts';
import { createLogger } from '../../core/logger.ts';
import { migrate } from '../../core/migrations.ts';
import { createRedis } from '../../core/redis.ts';
import { CONFIG_SECTIONS } from '../../jobs/config.ts';

export interface TestDeps extends Deps {
  /** A prefix unique to this file, for Redis keys and BullMQ queue prefixes. */
  prefix: string;
  close(): Promise<void>;
}

export function testConfig(name: string, env: Record<string, string> = {}): Config {
  const tmpRoot = inject('tmpRoot');
  return loadConfig(
    {
      PMDATA_DATA_DIR: path.join(tmpRoot, `data-${name}-${process.pid}`),
      CLICKHOUSE_DATABASE: `test_${name.replace(/[^A-Za-z0-9_]/g, '_')}_${process.pid}`,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      REDIS_URL: inject('redisUrl'),
      ...(process.env.CLICKHOUSE_URL ? { CLICKHOUSE_URL: process.env.CLICKHOUSE_URL } : {}),
      ...env,
    },
    CONFIG_SECTIONS,
  );
}

/** ClickHouse for this test process: the embedded engine lives under the run's temp root. */
export async function testClickHouse(config: Config): Promise<ClickHouse> {
  const log = createLogger({ level: config.logLevel });
  const ch = await createClickHouse({
    config,
    log,
    enginePath: path.join(inject('tmpRoot'), `chdb-${process.pid}`),
  });
  if (!ch.embedded) {
    await ch.command('test.db', `CREATE DATABASE IF NOT EXISTS ${config.clickhouseDatabase}`);
  }
  return ch;
}

export async function createTestDeps(
  name: string,
  options: { env?: Record<string, string>; migrate?: boolean } = {},
): Promise<TestDeps> {
  const config = testConfig(name, options.env);
  const log = createLogger({ level: config.logLevel, name: `test:${name}` });
  const clickhouse = await testClickHouse(config);
  if (options.migrate !== false) await migrate({ clickhouse, log });
  const prefix = `t:${name}:${process.pid}`;
  const redis = createRedis(config.redisUrl, { keyPrefix: `${prefix}:` });
  return {
    config,
    log,
    clickhouse,
    redis,
    prefix,
    async close() {
      redis.disconnect();
      if (!clickhouse.embedded) {
        await clickhouse.command('test.drop', `DROP DATABASE IF EXISTS ${config.clickhouseDatabase}`);
      }
      await clickhouse.close();
    },
  };
}
