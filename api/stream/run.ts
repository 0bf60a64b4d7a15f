/**
 * Starting the streaming service: on an existing HTTP server (the API's, under `pmdata up`) or on its own
 * (`pmdata stream`, STREAM_PORT, with `GET /health` and `GET /metrics` behind the admin key). Either
 * way it closes before the server does.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Deps } from '../../core/deps.ts';
import { adminAuthOf, metricsEndpoint } from '../../core/metrics-server.ts';
import { createAlphaMarketSlugs } from '../queries/alpha/market-slugs.ts';
import { createTokenConditions, type TokenConditions } from '../queries/alpha/tokens.ts';
import { type StreamSettings, streamSettings } from './config.ts';
import { createStreamService, MISSING_STREAM_KEY, type StreamService, streamPathKey } from './service.ts';

export interface RunningStream {
  service: StreamService;
  /** ws:// URL clients connect to (followed by /v1/<key>). */
  url: string;
  close(): Promise<void>;
}

function wsUrl(server: Server, host: string): string {
  const a = server.address() as AddressInfo;
  const h = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `ws://${h}:${a.port}`;
}

/** The service on `server` (already listening), or on a server of its own on STREAM_PORT. */
export async function startStream(
  deps: Deps,
  opts: {
    server?: Server;
    settings?: StreamSettings;
    /** The token map the process shares with its API (its owner starts and stops it). */
    tokens?: TokenConditions;
  } = {},
): Promise<RunningStream> {
  const { config, log } = deps;
  const settings = opts.settings ?? streamSettings(config);
  const markets = createAlphaMarketSlugs(deps);
  // The trades channel's token map: the process's shared one (`pmdata up`, the demo: the API's too), else
  // one of its own, loaded now and refreshed in the background (a look at alpha_tokens' parts every
  // second, a read only when they changed).
  const ownTokens = opts.tokens ? undefined : createTokenConditions({ clickhouse: deps.clickhouse, log });
  await ownTokens?.start();
  const tokens = opts.tokens ?? ownTokens!;
  const service = createStreamService({
    redis: deps.redis,
    redisUrl: config.redisUrl,
    log,
    settings,
    markets,
    tokens,
  });
  let own: Server | undefined;
  let server = opts.server;
  if (!server) {
    const metrics = metricsEndpoint(adminAuthOf(deps));
    own = createServer((req, res) => {
      metrics(req, res)
        .then((handled) => {
          if (!handled) answer(req, res);
        })
        .catch((err) => {
          log.error({ err }, 'Failed to serve /metrics');
          res.destroy();
        });
    });
    const answer = (req: IncomingMessage, res: ServerResponse) => {
      const ok = req.url === '/health';
      // The stream's path without a key is a missing key, as on a handshake.
      const noKey = !ok && streamPathKey(req.url ?? '') === '';
      res.writeHead(ok ? 200 : noKey ? 401 : 404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          ok
            ? { status: 'ok', ...service.stats() }
            : noKey
              ? { error: 'Unauthorized', message: MISSING_STREAM_KEY }
              : { error: 'Not Found', message: 'The stream is served over WebSocket at /v1/<API key>' },
        ),
      );
    };
    await new Promise<void>((resolve, reject) => {
      own!.once('error', reject);
      own!.listen(settings.port, config.host, () => resolve());
    });
    server = own;
  }
  service.attach(server);
  await service.ready();
  const url = wsUrl(server, config.host);
  log.info({ url: `${url}/v1/<key>` }, 'Started stream');
  return {
    service,
    url,
    async close() {
      await service.close();
      await ownTokens?.stop();
      markets.close();
      if (own) await new Promise<void>((resolve) => own!.close(() => resolve()));
      log.info('Stopped stream');
    },
  };
}
