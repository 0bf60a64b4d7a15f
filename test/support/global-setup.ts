/**
 * Vitest global setup: one private `redis-server` on a free port for the whole run (no persistence),
 * stopped at the end. Test files reach it with `inject('redisUrl')` and isolate themselves with their
 * own key prefix or queue names (see test/support/redis.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { createLogger } from '../../core/logger.ts';
import { freePort } from '../../core/net.ts';
import { startRedisServer } from '../../core/redis-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    tmpRoot: string;
  }
}

export default async function setup(project: TestProject) {
  const log = createLogger({ level: 'warn', name: 'test-setup' });
  const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'pmdata-test-'));
  const redis = await startRedisServer({
    port: await freePort(),
    dir: path.join(tmpRoot, 'redis'),
    log,
    persistent: false,
  });
  project.provide('redisUrl', redis.url);
  project.provide('tmpRoot', tmpRoot);
  return async () => {
    await redis.stop();
    fs.rmSync(tmpRoot, { recursive: true, force: true });
  };
}
