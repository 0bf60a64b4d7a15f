/**
 * The process roles: `up` (everything in one process, the embedded default), and the cluster mode's
 * `api`, `worker`, `scheduler` and `stream`; `migrate` applies the ClickHouse migrations and exits. Each runs
 * until SIGINT/SIGTERM and closes in order (jobs/runtime.ts).
 */

import type { TokenConditions } from '../../api/queries/alpha/tokens.ts';
import { resolveAdminKey } from '../../core/admin-key.ts';
import { openRole, startOpsSampler } from '../ops-role.ts';
import { closeOnSignals, openRuntime, type Runtime } from '../runtime.ts';
import { printLines } from './io.ts';

// Heavy modules (BullMQ, the processors and what they import, Fastify) load only when a role needs them.
async function startWorkers(runtime: Runtime) {
  const { createWorkers } = await import('../worker.ts');
  const { ALL_JOBS } = await import('../registry.ts');
  const workers = createWorkers({ deps: runtime.deps, jobs: ALL_JOBS });
  runtime.onClose(() => workers.close());
  return workers;
}

async function startScheduler(runtime: Runtime) {
  const { createBullConnection, createQueues } = await import('../queues.ts');
  const { applySchedules } = await import('../schedules.ts');
  const connection = createBullConnection(runtime.deps.config.redisUrl);
  const queues = createQueues({ connection });
  runtime.onClose(async () => {
    await queues.close();
    connection.disconnect();
  });
  const ids = await applySchedules(queues, runtime.deps.config);
  runtime.deps.log.info({ schedules: ids }, 'Applied schedules');
  startOpsSampler(runtime, queues);
  return queues;
}

async function startApi(runtime: Runtime, tokens?: TokenConditions) {
  const { startServer } = await import('../../api/server.ts');
  const server = await startServer({ ...runtime.deps, tokens });
  runtime.onClose(() => server.close());
  return server;
}

/** `/metrics` and `/health` on METRICS_PORT (worker and scheduler roles; `up` has the API's /metrics). */
async function startMetrics(runtime: Runtime, role: string): Promise<string[]> {
  const { startMetricsServer } = await import('../../core/metrics-server.ts');
  const metrics = await startMetricsServer(runtime.deps, { role });
  if (!metrics) return [];
  runtime.onClose(() => metrics.close());
  return [`Metrics on ${metrics.url}/metrics, health on ${metrics.url}/health`];
}

/** The streaming service: on the API's server under `up`, else on its own (STREAM_PORT). */
async function startStream(runtime: Runtime, server?: import('node:http').Server, tokens?: TokenConditions) {
  const { startStream } = await import('../../api/stream/run.ts');
  const stream = await startStream(runtime.deps, { server, tokens });
  // Registered after the API: closes first (connections get 1012 before the server stops).
  runtime.onClose(() => stream.close());
  return stream;
}

/**
 * The token map (token → market) the API and the stream of one process share: loaded now, refreshed in
 * the background, stopped when the process closes (after both, which were registered later).
 */
export async function startSharedTokens(runtime: Runtime): Promise<TokenConditions> {
  const { createTokenConditions } = await import('../../api/queries/alpha/tokens.ts');
  const tokens = createTokenConditions({ clickhouse: runtime.deps.clickhouse, log: runtime.deps.log });
  await tokens.start();
  runtime.onClose(() => tokens.stop());
  return tokens;
}

/** Where the admin pages are and where their key is (core/admin-key.ts; the key itself is not printed). */
function adminLine(config: Runtime['deps']['config'], url: string): string {
  const admin = resolveAdminKey(config);
  if (!admin) return '  admin    not mounted (cluster mode without PMDATA_ADMIN_KEY)';
  const where = admin.file ? `the key is in ${admin.file}` : 'the key is PMDATA_ADMIN_KEY';
  return `  admin    ${url}/admin/status, ${url}/admin/queues, ${url}/metrics (${where})`;
}

/** Whose the Redis is: the data dir's own (a unix socket in it, or a port recorded in it) or REDIS_URL's. */
export function redisNote(runtime: Runtime): string {
  const own = runtime.deps.config.redisOwn;
  if (runtime.redisServer) return own ? ' (started by pmdata for this data dir)' : ' (started by pmdata)';
  return own ? " (this data dir's own, already running)" : '';
}

/** `pmdata up`: migrate, Redis, workers, schedulers, the API and the stream in one process. */
export async function runUp(): Promise<number> {
  const runtime = await openRole('up');
  const { config } = runtime.deps;
  await startWorkers(runtime);
  await startScheduler(runtime);
  // One token map for the API's trades and the stream's (registered first: closed after both).
  const tokens = await startSharedTokens(runtime);
  const server = await startApi(runtime, tokens);
  const stream = await startStream(runtime, server.httpServer, tokens);
  printLines([
    `pmdata is up (${config.embedded ? 'embedded ClickHouse (chDB)' : config.clickhouseUrl}, data in ${config.dataDir})`,
    `  API      ${server.url}`,
    `  health   ${server.url}/health`,
    `  docs     ${server.url}/docs`,
    `  stream   ${stream.url}/v1/<API key>`,
    `  redis    ${config.redisUrl}${redisNote(runtime)}`,
    adminLine(config, server.url),
    'Press Ctrl+C to stop.',
  ]);
  await closeOnSignals(runtime);
  return 0;
}

/** `pmdata api`: the HTTP API role. */
export async function runApiRole(): Promise<number> {
  const runtime = await openRole('api');
  const server = await startApi(runtime);
  printLines([`API listening on ${server.url}`]);
  await closeOnSignals(runtime);
  return 0;
}

/** `pmdata stream`: the streaming service role on STREAM_PORT (run several behind a load balancer). */
export async function runStreamRole(): Promise<number> {
  const runtime = await openRole('stream');
  const stream = await startStream(runtime);
  printLines([`Stream listening on ${stream.url}/v1/<API key>`]);
  await closeOnSignals(runtime);
  return 0;
}

/** `pmdata worker`: the job worker role, every queue. */
export async function runWorkerRole(): Promise<number> {
  const runtime = await openRole('worker');
  const workers = await startWorkers(runtime);
  const metrics = await startMetrics(runtime, 'worker');
  printLines([`Worker processing queues: ${workers.queues.join(', ')}`, ...metrics]);
  await closeOnSignals(runtime);
  return 0;
}

/** `pmdata scheduler`: applies the recurring job schedules. */
export async function runSchedulerRole(): Promise<number> {
  const runtime = await openRole('scheduler');
  await startScheduler(runtime);
  const metrics = await startMetrics(runtime, 'scheduler');
  printLines(['Scheduler running', ...metrics]);
  await closeOnSignals(runtime);
  return 0;
}

/** `pmdata migrate`: applies the migrations (safe to run twice, or twice at once) and exits. */
export async function runMigrate(): Promise<number> {
  const runtime = await openRuntime({ name: 'migrate', redis: false, engineWaitMs: 60_000 });
  const m = runtime.migrations!;
  printLines([
    m.applied.length > 0
      ? `Applied ${m.applied.length} migration(s): ${m.applied.join(', ')}`
      : `Nothing to apply (${m.skipped.length} migration(s) already applied)`,
  ]);
  await runtime.close();
  return 0;
}
