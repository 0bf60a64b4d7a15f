/**
 * The metrics server of the roles without an HTTP server of their own (`pmdata worker`, `pmdata
 * scheduler`): plain node:http on METRICS_PORT (0 = none) with
 * - `GET /metrics`: the process's metrics (core/metrics.ts) behind the admin key (core/admin-auth.ts);
 *   in cluster mode without PMDATA_ADMIN_KEY it is not served (404);
 * - `GET /health`: `{status, role}`, 200 when Redis and ClickHouse answer a ping within a short time,
 *   else 503 with the unreachable ones listed.
 * `metricsEndpoint` is the `/metrics` part alone, for the stream role's own server (api/stream/run.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AdminAuth, createAdminAuth } from './admin-auth.ts';
import { resolveAdminKey } from './admin-key.ts';
import type { Deps } from './deps.ts';
import { registry } from './metrics.ts';

/** How long /health waits for each ping. */
export const HEALTH_TIMEOUT_MS = 1000;

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

const notFound = (res: ServerResponse, message: string) => json(res, 404, { error: 'Not Found', message });

/** The path of a request, without its query. */
export const pathOf = (req: IncomingMessage) => (req.url ?? '/').split('?')[0]!;

/**
 * Answers `GET /metrics` (true) or leaves the request to the caller (false). `auth` null: the admin
 * routes are not mounted (cluster mode without the key), so /metrics answers 404.
 */
export type MetricsEndpoint = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

export function metricsEndpoint(auth: AdminAuth | null): MetricsEndpoint {
  return async (req, res) => {
    if (pathOf(req) !== '/metrics') return false;
    if (!auth) {
      notFound(res, 'No route /metrics: PMDATA_ADMIN_KEY is not set');
      return true;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      json(res, 405, { error: 'Method Not Allowed', message: 'GET /metrics' }, { allow: 'GET, HEAD' });
      return true;
    }
    const refusal = await auth.check({
      authorization: req.headers.authorization,
      ip: req.socket.remoteAddress ?? '',
    });
    if (refusal) {
      json(res, refusal.status, refusal.body, refusal.headers);
      return true;
    }
    const text = await registry.metrics();
    res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : text);
    return true;
  };
}

/** The admin auth of this deployment, or null when no key is configured (cluster mode without one). */
export function adminAuthOf(deps: Pick<Deps, 'config' | 'redis'>): AdminAuth | null {
  const resolved = resolveAdminKey(deps.config);
  return resolved ? createAdminAuth({ key: resolved.key, redis: deps.redis }) : null;
}

function within<T>(p: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/** Which of Redis and ClickHouse do not answer a ping within `timeoutMs`. */
export async function unreachable(
  deps: Pick<Deps, 'redis' | 'clickhouse'>,
  timeoutMs = HEALTH_TIMEOUT_MS,
): Promise<string[]> {
  const redisOk = async () =>
    // A client that is reconnecting would queue the ping until it gives up: not ready is down.
    deps.redis.status === 'ready' &&
    (await within(
      deps.redis.ping().catch(() => 'error'),
      timeoutMs,
    )) === 'PONG';
  const clickhouseOk = async () => {
    const r = await within(
      deps.clickhouse.ping().catch(() => ({ ok: false })),
      timeoutMs,
    );
    return r !== 'timeout' && r.ok;
  };
  const [redis, clickhouse] = await Promise.all([redisOk(), clickhouseOk()]);
  return [...(redis ? [] : ['redis']), ...(clickhouse ? [] : ['clickhouse'])];
}

export interface MetricsServer {
  server: Server;
  /** http://host:port */
  url: string;
  close(): Promise<void>;
}

/**
 * Listens on METRICS_PORT (HOST) for `role`; null when METRICS_PORT is 0. `port` overrides the
 * configuration (tests: 0 = any free port).
 */
export async function startMetricsServer(
  deps: Deps,
  opts: { role: string; port?: number },
): Promise<MetricsServer | null> {
  const { config, log } = deps;
  const port = opts.port ?? config.metricsPort;
  if (opts.port === undefined && port === 0) return null;
  const metrics = metricsEndpoint(adminAuthOf(deps));
  const server = createServer((req, res) => {
    const handle = async () => {
      if (await metrics(req, res)) return;
      if (pathOf(req) === '/health' && (req.method === 'GET' || req.method === 'HEAD')) {
        const down = await unreachable(deps);
        if (down.length === 0) json(res, 200, { status: 'ok', role: opts.role });
        else json(res, 503, { status: 'unavailable', role: opts.role, unreachable: down });
        return;
      }
      notFound(res, `The ${opts.role} serves GET /metrics and GET /health here`);
    };
    handle().catch((err) => {
      log.error({ err }, 'Failed a metrics server request');
      if (!res.headersSent) json(res, 500, { error: 'Internal Server Error', message: 'Failed' });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const a = server.address() as AddressInfo;
  const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${a.port}`;
  log.info({ url, role: opts.role }, 'Started metrics server');
  return {
    server,
    url,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
