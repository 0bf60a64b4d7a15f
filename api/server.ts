/**
 * The runner: builds the app, listens on HOST:PORT with socket timeouts, and closes gracefully
 * (stops accepting, lets in-flight requests finish within SHUTDOWN_TIMEOUT_MS, then drops the rest).
 */
import type { Server } from 'node:http';
import type { Deps } from '../core/deps.ts';
import { type AppOptions, buildApp } from './app.ts';

export interface RunningServer {
  url: string;
  /** The HTTP server (the streaming service attaches its WebSocket upgrades to it under `up`). */
  httpServer: Server;
  close(): Promise<void>;
}

export async function startServer(deps: Deps & AppOptions): Promise<RunningServer> {
  const { config, log } = deps;
  const app = await buildApp(deps);
  // Node's own socket limits: slow headers and idle keep-alive connections are cut; the request
  // timeout is also enforced per route by the app (handlerTimeout → 503).
  app.server.headersTimeout = Math.min(config.headersTimeoutMs, config.requestTimeoutMs);
  app.server.requestTimeout = config.requestTimeoutMs;
  app.server.keepAliveTimeout = config.keepAliveTimeoutMs;
  const address = await app.listen({ host: config.host, port: config.port });
  const url = address.replace('://[::1]', '://localhost');
  log.info({ url }, 'Started API');

  let closing: Promise<void> | undefined;
  return {
    url,
    httpServer: app.server,
    close() {
      closing ??= (async () => {
        const force = setTimeout(() => app.server.closeAllConnections(), config.shutdownTimeoutMs);
        force.unref();
        // app.close stops accepting, answers 503 to requests arriving meanwhile, and waits for the
        // in-flight ones; idle keep-alive sockets are closed at once.
        app.server.closeIdleConnections();
        await app.close();
        clearTimeout(force);
        log.info('Stopped API');
      })();
      return closing;
    },
  };
}
