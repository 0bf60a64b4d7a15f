/**
 * pmdata's Prometheus metrics (prom-client): one registry for the process, with the process metrics
 * (`collectDefaultMetrics`, prefix `pmdata_`) and the metrics of the API, the stream and the job
 * workers declared here; the snapshot gauges and ingest counters are declared beside their subsystem
 * (core/ops/, the ingest writers) on the same registry. Names and labels are fixed and bounded
 * (docs/operations.md, "Metrics").
 *
 * Metric objects are module singletons: several apps or stream services in one process (tests) share
 * them, so counts add up across them.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** The process's metric registry, exposed at `/metrics`. */
export const registry = new Registry();

collectDefaultMetrics({ register: registry, prefix: 'pmdata_' });
// Gauges named like counters (`promtool check metrics` refuses them): the sums of the by-type gauges
// `pmdata_nodejs_active_{handles,requests,resources}`, which stay.
for (const name of ['handles', 'requests', 'resources']) {
  registry.removeSingleMetric(`pmdata_nodejs_active_${name}_total`);
}

// --- HTTP (the API's onResponse hook, api/app.ts) ---

/** Label of a request no route matched (404s of unknown paths): never the raw URL. */
export const UNMATCHED_ROUTE = 'unmatched';

export const httpRequests = new Counter({
  name: 'pmdata_http_requests_total',
  help: 'HTTP requests answered, by service, route pattern, method and status code',
  labelNames: ['service', 'route', 'method', 'status'] as const,
  registers: [registry],
});

export const httpRequestDuration = new Histogram({
  name: 'pmdata_http_request_duration_seconds',
  help: 'Time from receiving a request to sending its response, by service, route pattern and method',
  labelNames: ['service', 'route', 'method'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

interface RouteChildren {
  duration: { observe(v: number): void };
  /** Request counters by status code. */
  byStatus: Map<number, { inc(v?: number): void }>;
}

export interface HttpMetrics {
  /** One answered request: `route` is the route pattern (undefined: no route matched). */
  observe(route: string | undefined, method: string, status: number, seconds: number): void;
}

/**
 * The HTTP metrics of one service, with the label children of each (route, method, status) bound on
 * first use and kept: a request costs two map lookups, a counter increment and a histogram observation.
 */
export function createHttpMetrics(service: string): HttpMetrics {
  const byRoute = new Map<string, Map<string, RouteChildren>>();
  function childrenOf(route: string, method: string): RouteChildren {
    let byMethod = byRoute.get(route);
    if (!byMethod) {
      byMethod = new Map();
      byRoute.set(route, byMethod);
    }
    let c = byMethod.get(method);
    if (!c) {
      c = { duration: httpRequestDuration.labels(service, route, method), byStatus: new Map() };
      byMethod.set(method, c);
    }
    return c;
  }
  return {
    observe(route, method, status, seconds) {
      const r = route ?? UNMATCHED_ROUTE;
      const c = childrenOf(r, method);
      let counter = c.byStatus.get(status);
      if (!counter) {
        counter = httpRequests.labels(service, r, method, String(status));
        c.byStatus.set(status, counter);
      }
      counter.inc();
      c.duration.observe(seconds);
    },
  };
}

// --- The stream (api/stream/) ---

export const streamConnections = new Gauge({
  name: 'pmdata_stream_connections',
  help: 'Open WebSocket connections of this process, by the key tier',
  labelNames: ['tier'] as const,
  registers: [registry],
});

export const streamSubscriptions = new Gauge({
  name: 'pmdata_stream_subscriptions',
  help: 'Active subscriptions of this process, by channel',
  labelNames: ['channel'] as const,
  registers: [registry],
});

export const streamEventsSent = new Counter({
  name: 'pmdata_stream_events_sent_total',
  help: 'Events sent to subscriptions, by channel',
  labelNames: ['channel'] as const,
  registers: [registry],
});

export const streamEventsDropped = new Counter({
  name: 'pmdata_stream_events_dropped_total',
  help: "Events dropped because a connection's send buffer held STREAM_DROP_BYTES, by channel",
  labelNames: ['channel'] as const,
  registers: [registry],
});

/** Why a connection ended, as counted: the server's rules, or the client's own close (or a broken socket). */
export const DISCONNECT_REASONS = ['buffer_limit', 'pong_timeout', 'idle', 'client'] as const;
export type DisconnectReason = (typeof DISCONNECT_REASONS)[number];

export const streamDisconnects = new Counter({
  name: 'pmdata_stream_disconnects_total',
  help: 'Connections ended, by reason: buffer_limit (4002), pong_timeout (4001), idle (4000), client',
  labelNames: ['reason'] as const,
  registers: [registry],
});
for (const reason of DISCONNECT_REASONS) streamDisconnects.labels(reason).inc(0);

// --- Jobs (jobs/worker.ts) ---

export const jobDuration = new Histogram({
  name: 'pmdata_job_duration_seconds',
  help: 'Time of each job attempt that completed or failed, by queue and job name',
  labelNames: ['queue', 'job'] as const,
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600],
  registers: [registry],
});

export const jobFailures = new Counter({
  name: 'pmdata_job_failures_total',
  help: 'Job attempts that failed (retryable or not), by queue and job name',
  labelNames: ['queue', 'job'] as const,
  registers: [registry],
});

// --- Feeds (a venue's WebSocket read: ingest/feed.ts, ingest/venues/<code>/feed.ts) ---

export const feedMessages = new Counter({
  name: 'pmdata_feed_messages_total',
  help: "Data messages a feed read (snapshots and deltas), by the feed's status source",
  labelNames: ['feed'] as const,
  registers: [registry],
});

/** Why a feed re-snapshots its books: a seq gap (or an unreadable message), or a new connection after a loss. */
export const FEED_RESYNC_REASONS = ['gap', 'reconnect'] as const;

export const feedResyncs = new Counter({
  name: 'pmdata_feed_resyncs_total',
  help: 'Resyncs of a feed: seq gaps (get_snapshot) and reconnects (resubscribed), by feed and reason',
  labelNames: ['feed', 'reason'] as const,
  registers: [registry],
});
