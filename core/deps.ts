/**
 * The one dependency bag that factories take (`createX(deps)`): nothing reaches for globals or
 * `process.env`.
 */
import type { Redis } from 'ioredis';
import type { ClickHouse } from './clickhouse/index.ts';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';

export interface Deps {
  config: Config;
  log: Logger;
  clickhouse: ClickHouse;
  redis: Redis;
}
