/**
 * A stream process for the benchmark (a child of bench/stream.ts): one stream service on its own port,
 * reporting its port, stats, RSS and CPU time over IPC.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { noMarketMetadata } from '../../api/markets.ts';
import { streamSettings } from '../../api/stream/config.ts';
import { createStreamService } from '../../api/stream/service.ts';
import { loadConfig } from '../../core/config.ts';
import { createLogger } from '../../core/logger.ts';
import { createRedis } from '../../core/redis.ts';

const redisUrl = process.env.BENCH_REDIS_URL!;
const config = loadConfig({ REDIS_URL: redisUrl, LOG_LEVEL: 'warn', STREAM_MAX_CONNECTIONS: '100000' });
const log = createLogger({ level: 'warn' });
const redis = createRedis(redisUrl);
const service = createStreamService({
  redis,
  redisUrl,
  log,
  settings: streamSettings(config),
  markets: noMarketMetadata,
});
const server = createServer((_q, r) => r.writeHead(404).end());
server.listen(0, '127.0.0.1', async () => {
  service.attach(server);
  await service.ready();
  process.send!({ type: 'ready', port: (server.address() as AddressInfo).port });
});
process.on('message', async (m: { type: string }) => {
  if (m.type === 'settle') {
    // Collect the garbage of setup (parsed subscribe messages, handshakes) before measuring what
    // connections hold: the process is started with --expose-gc.
    for (let i = 0; i < 3; i++) {
      (globalThis as { gc?: () => void }).gc?.();
      await new Promise((r) => setTimeout(r, 100));
    }
    const mem = process.memoryUsage();
    process.send!({ type: 'settle', rss: mem.rss, heap: mem.heapUsed + mem.external });
  }
  if (m.type === 'stats') {
    process.send!({
      type: 'stats',
      stats: service.stats(),
      rss: process.memoryUsage().rss,
      cpu: process.cpuUsage(),
    });
  }
  if (m.type === 'stop') {
    await service.close();
    redis.disconnect();
    process.exit(0);
  }
});
